"""Writing case files (spec/conformance.md): one text-form graph plus directives per case."""
import os

from formats import dense, ttype


class Out:
    def __init__(self, root):
        self.root = root
        self.cases = {}   # "op/name" -> text
        self.cells = []   # required cells, from the spec's Dtypes tables

    def require(self, cell):
        if cell not in self.cells:
            self.cells.append(cell)

    def add(self, op, name, text):
        key = op + "/" + name
        assert key not in self.cases, key
        self.cases[key] = text

    def write(self):
        for key, text in self.cases.items():
            path = os.path.join(self.root, key + ".plumbt")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        with open(os.path.join(self.root, "cells.txt"), "w") as f:
            f.write("# Every op x dtype cell of the Dtypes tables of spec/ops/*.md (written by\n"
                    "# tools/gen_core_vectors.py); `plumb conformance --core --cells` checks each is\n"
                    "# claimed by a passing vector.\n")
            for c in self.cells:
                f.write(c + "\n")


def case_text(params, nodes, results, directives):
    """params: [(name, type)], nodes: text lines, results: [(value, type)], directives: lines
    without the leading '// '."""
    sig = ", ".join("%%%s: %s" % (n, t) for n, t in params)
    rts = ", ".join(t for _, t in results)
    lines = ["plumb 1", "func @main(%s) -> (%s) {" % (sig, rts)]
    lines += ["  " + n for n in nodes]
    lines.append("  return " + ", ".join("%" + v for v, _ in results) if results else "  return")
    lines.append("}")
    lines += ["// " + d for d in directives]
    return "\n".join(lines) + "\n"


def input_dir(name, dt, shape, elems):
    return "input %%%s = %s" % (name, dense(dt, shape, elems))


def expect_dir(k, dt, shape, elems):
    return "expect %d = %s" % (k, dense(dt, shape, elems))


def one_node(op_line_fn, ins, outs, cells=(), extra=()):
    """ins: [(name, dt, shape, elems)], outs: [(dt, shape, elems or None)]; op_line_fn(names)
    gives the node text `%r... = op ...` with result names r0, r1, ..."""
    params = [(n, ttype(dt, sh)) for n, dt, sh, _ in ins]
    node = op_line_fn()
    results = [("r%d" % k, ttype(dt, sh)) for k, (dt, sh, _) in enumerate(outs)]
    d = ["cell " + c for c in cells]
    d += [input_dir(n, dt, sh, el) for n, dt, sh, el in ins]
    d += list(extra)
    d += [expect_dir(k, dt, sh, el) for k, (dt, sh, el) in enumerate(outs) if el is not None]
    return case_text(params, [node], results, d)
