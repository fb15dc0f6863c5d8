#!/usr/bin/python3
"""Hostile-node sweep (issue 23), run by hand: every one-node model of an ONNX node suite, with
each int attribute set to -100, -1, 0, 7 and 2^40, each ints attribute to [], [-100], [2^40]*n and
[0]*n, and each graph input made rank 0 or all-zero dims, through `plumb convert`. A crash, an
abort or a hang (20 s) is a finding: the first model of each (op, change, exit) is saved in OUTDIR
and printed. Exit 0 (a refusal) and 2 (an error) are both fine; the message's quality is not judged.

Usage: sweep_node_suite.py PLUMB SUITE_DIR OUTDIR
(e.g. build/bin/plumb ../shared/onnx-backend-node /tmp/sweep). About 11,000 models, minutes.
"""
import copy
import glob
import os
import subprocess
import sys

import onnx


def variants(m):
    node = m.graph.node[0]
    for ai, a in enumerate(node.attribute):
        if a.type == onnx.AttributeProto.INT:
            for v in (-100, -1, 0, 7, 1 << 40):
                yield f"attr {a.name}={v}", lambda mm, ai=ai, v=v: setattr(mm.graph.node[0].attribute[ai], "i", v)
        if a.type == onnx.AttributeProto.INTS:
            n = max(1, len(a.ints))
            for v in ([], [-100], [1 << 40] * n, [0] * n):
                def set_ints(mm, ai=ai, v=v):
                    del mm.graph.node[0].attribute[ai].ints[:]
                    mm.graph.node[0].attribute[ai].ints.extend(v)
                yield f"attr {a.name}={v[:2]}", set_ints
    for ii, inp in enumerate(m.graph.input):
        if not inp.type.HasField("tensor_type"):
            continue
        yield f"input {inp.name} rank 0", lambda mm, ii=ii: mm.graph.input[ii].type.tensor_type.shape.ClearField("dim")

        def zero(mm, ii=ii):
            for d in mm.graph.input[ii].type.tensor_type.shape.dim:
                d.dim_value = 0
        yield f"input {inp.name} empty", zero


def main():
    plumb, suite, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    found, count = set(), 0
    for src in sorted(glob.glob(os.path.join(suite, "*", "model.onnx"))):
        try:
            m = onnx.load(src)
        except Exception:
            continue
        if len(m.graph.node) != 1:
            continue
        op = m.graph.node[0].op_type
        for what, change in variants(m):
            mm = copy.deepcopy(m)
            change(mm)
            path = os.path.join(out, "model.onnx")
            onnx.save(mm, path)
            count += 1
            try:
                r = subprocess.run([plumb, "convert", path, "-o", os.path.join(out, "model.plumb")],
                                   capture_output=True, timeout=20)
                rc, err = r.returncode, r.stderr.decode(errors="replace").strip()
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
            if rc in (0, 1, 2):
                continue
            key = (op, what.split("=")[0].split(" rank")[0], rc)
            if key in found:
                continue
            found.add(key)
            name = os.path.basename(os.path.dirname(src))
            keep = os.path.join(out, f"{name}.{len(found)}.onnx")
            onnx.save(mm, keep)
            print(f"{op} ({name}) {what}: exit {rc} {err[-150:]} -> {keep}", flush=True)
    print(f"{count} models, {len(found)} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
