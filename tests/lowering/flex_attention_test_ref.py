# Expected values for tests/lowering/flex_attention_test.cpp, computed independently with numpy
# from the FlexAttention formula (onnx/defs/preview/defs.cc): S = (Q K^T) * scale, S = score_mod(S),
# P = softmax(S), P = prob_mod(P), Y = P V; plumb's ruling for a row of all -inf: P = 0.
# Run: /usr/bin/python3 tests/lowering/flex_attention_test_ref.py
import numpy as np


def softmax(s):
    m = s.max(-1, keepdims=True)
    dead = m == -np.inf
    e = np.exp(s - np.where(dead, 0, m))
    tot = e.sum(-1, keepdims=True)
    return np.where(dead, 0, e / np.where(dead, 1, tot))


def flex(q, k, v, scale=None, score_mod=None, prob_mod=None):
    hq, hkv = q.shape[1], k.shape[1]
    k = np.repeat(k, hq // hkv, axis=1)
    v = np.repeat(v, hq // hkv, axis=1)
    if scale is None:
        scale = 1 / np.sqrt(q.shape[3])
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if score_mod:
        s = score_mod(s)
    p = softmax(s)
    if prob_mod:
        p = prob_mod(p)
    return p @ v


def show(name, y):
    print(name, ", ".join(repr(float(x)) for x in y.ravel()))


a = np.array
q = a([0.5, -1, 1.5, 0.25]).reshape(1, 1, 2, 2)
k = a([1, 2, -1, 0.5, 0, -2]).reshape(1, 1, 3, 2)
v = a([1, -1, 2, 0, -3, 4]).reshape(1, 1, 3, 2)
show("Basic", flex(q, k, v))
show("NegativeScale", flex(q, k, v, scale=-0.5))
show("DoubleProbMod", flex(q, k, v, prob_mod=lambda p: p * 2))

show("Gqa", flex(a([1, 0, 0, -1.0]).reshape(1, 2, 1, 2), a([1, 1, -1, 2.0]).reshape(1, 1, 2, 2),
                 a([10, 20.0]).reshape(1, 1, 2, 1)))

i = np.arange(3).reshape(3, 1)
j = np.arange(3).reshape(1, 3)
show("ScoreModIndices", flex(a([1, 0, 0, 1, 1, 1.0]).reshape(1, 1, 3, 2), a([1, 2, 0, 1, -1, 0.5]).reshape(1, 1, 3, 2),
                             a([1, 2, 4.0]).reshape(1, 1, 3, 1), scale=1.0,
                             score_mod=lambda s: s - 0.5 * np.abs(i - j)))

keep = a([0, 0, 0, 1, 0, 1]).reshape(1, 1, 2, 3).astype(bool)
qm, km, vm = a([1, 2.0]).reshape(1, 1, 2, 1), a([1, 0, -1.0]).reshape(1, 1, 3, 1), a([1, 2, 3.0]).reshape(1, 1, 3, 1)
show("AllMaskedRow", flex(qm, km, vm, score_mod=lambda s: np.where(keep, s, -np.inf)))
show("ProbModSeesZeroRow", flex(qm, km, vm, score_mod=lambda s: np.where(keep, s, -np.inf),
                                prob_mod=lambda p: p + 0.25))

qn = q.copy()
qn[0, 0, 0, 0] = np.nan
show("NanQueryRow", flex(qn, k, v))
show("HalfPrecisionModifier", flex(q, k, v, score_mod=lambda s: -(s.astype(np.float16).astype(np.float64))))
