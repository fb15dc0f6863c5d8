#!/usr/bin/python3
"""Writes the core conformance vectors, spec/vectors/<op>/<case>.plumbt, and spec/vectors/cells.txt
(spec/conformance.md). Expected values are computed here, from the spec text, with exact rational
rounding (tools/vectorgen/formats.py) and numpy/math in f64: never by running plumb.

    /usr/bin/python3 tools/gen_core_vectors.py [OUT_DIR]     (default: spec/vectors)
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "vectorgen"))

from common import Out  # noqa: E402
import cast  # noqa: E402
import contraction  # noqa: E402
import elementwise  # noqa: E402
import indexing  # noqa: E402
import layout  # noqa: E402
import misc  # noqa: E402
import negatives  # noqa: E402
import reduce  # noqa: E402


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "spec", "vectors")
    out = Out(root)
    for family in (elementwise, cast, layout, indexing, reduce, contraction, misc, negatives):
        family.generate(out)
    for entry in os.listdir(root) if os.path.isdir(root) else []:
        if os.path.isdir(os.path.join(root, entry)):
            shutil.rmtree(os.path.join(root, entry))  # stale cases of a previous run
    out.write()
    print("%d cases, %d cells" % (len(out.cases), len(out.cells)))


if __name__ == "__main__":
    main()
