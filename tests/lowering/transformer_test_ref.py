# Independent float64 NumPy statements of ONNX RotaryEmbedding-23 (as a complex rotation),
# LinearAttention-27 (per-head loops) and SwiGLU-28. Prints the expected-value arrays of
# transformer_test.cpp:
#     /usr/bin/python3 tests/lowering/transformer_test_ref.py
import numpy as np

rng = np.random.default_rng(9)


def q(*shape, scale=8):
    return rng.integers(-8, 9, size=shape) / float(scale)


def fmt(a):
    return '{' + ', '.join(repr(float(v)) for v in np.asarray(a, dtype=np.float64).ravel()) + '}'


def emit(name, **arrs):
    for k, v in arrs.items():
        print(f'// {name}.{k} {list(np.shape(v))}')
        print(f'const std::vector<double> k{name}{k} = {fmt(v)};')


def rope_bsnh(x, cos, sin, rot, interleaved):
    """x [B, S, N, Hd]; cos/sin [B, S, rot/2]: pairs (x_a, x_b) rotate as complex numbers."""
    out = x.copy()
    half = rot // 2
    for j in range(half):
        a, b = (2 * j, 2 * j + 1) if interleaved else (j, half + j)
        z = (x[..., a] + 1j * x[..., b]) * (cos[:, :, None, j] + 1j * sin[:, :, None, j])
        out[..., a], out[..., b] = z.real, z.imag
    return out


# 4-D input [B, N, S, Hd] with position_ids, partial rotation, interleaved and not.
B, N, S, Hd, rot, P = 2, 2, 3, 6, 4, 5
x = q(B, N, S, Hd); cos = q(P, rot // 2); sin = q(P, rot // 2); pos = rng.integers(0, P, size=(B, S))
emit('Rope4', X=x, Cos=cos, Sin=sin, Pos=pos)
for inter in (0, 1):
    y = rope_bsnh(x.transpose(0, 2, 1, 3), cos[pos], sin[pos], rot, inter).transpose(0, 2, 1, 3)
    emit(f'Rope4I{inter}', Y=y)
# 3-D input [B, S, N*Hd], 3-D caches (no position_ids), full rotation.
B, S, N, Hd = 1, 2, 2, 4
x = q(B, S, N * Hd); cos = q(B, S, Hd // 2); sin = q(B, S, Hd // 2)
y = rope_bsnh(x.reshape(B, S, N, Hd), cos, sin, Hd, 0).reshape(B, S, N * Hd)
emit('Rope3', X=x, Cos=cos, Sin=sin, Y=y)


def linear_attention(qq, k, v, hq, hkv, rule, past=None, decay=None, beta=None, scale=0.0):
    Bn, T, _ = qq.shape
    dk = qq.shape[2] // hq; dv = v.shape[2] // hkv; grp = hq // hkv
    S = np.zeros((Bn, hkv, dk, dv)) if past is None else past.copy()
    out = np.zeros((Bn, T, hq * dv))
    sc = scale if scale else 1 / np.sqrt(dk)
    for t in range(T):
        for b in range(Bn):
            for h in range(hkv):
                kt = k[b, t, h * dk:(h + 1) * dk]; vt = v[b, t, h * dv:(h + 1) * dv]
                if decay is not None:
                    w = decay.shape[2] // hkv
                    g = decay[b, t, h * w:(h + 1) * w]
                    S[b, h] = S[b, h] * np.exp(g)[:, None]
                if beta is not None:
                    bb = beta[b, t, h if beta.shape[2] > 1 else 0]
                    vt = bb * (vt - S[b, h].T @ kt)
                S[b, h] = S[b, h] + np.outer(kt, vt)
            for h in range(hq):
                qt = qq[b, t, h * dk:(h + 1) * dk]
                out[b, t, h * dv:(h + 1) * dv] = sc * (qt @ S[b, h // grp])
    return out, S


# gated_delta, GQA (4 query heads over 2 kv heads), per-key-dim decay, beta per head, past state.
B, T, hq, hkv, dk, dv = 2, 3, 4, 2, 2, 3
qq = q(B, T, hq * dk); k = q(B, T, hkv * dk); v = q(B, T, hkv * dv)
decay = -np.abs(q(B, T, hkv * dk)); beta = np.abs(q(B, T, hkv)); past = q(B, hkv, dk, dv)
o, s = linear_attention(qq, k, v, hq, hkv, 'gated_delta', past, decay, beta)
emit('La', Q=qq, K=k, V=v, Decay=decay, Beta=beta, Past=past, O=o, S=s)
# gated (per-head decay), no past, explicit scale 0.5.
decay_h = -np.abs(q(B, T, hkv))
o, s = linear_attention(qq, k, v, hq, hkv, 'gated', None, decay_h, None, 0.5)
emit('LaGated', DecayH=decay_h, O=o, S=s)
# delta with beta of last dim 1, MHA (hq = hkv = 2).
beta1 = np.abs(q(B, T, 1))
q2 = qq[:, :, :hkv * dk]
o, s = linear_attention(q2, k, v, hkv, hkv, 'delta', past, None, beta1)
emit('LaDelta', Beta1=beta1, O=o, S=s)

# SwiGLU, alpha 1.5: A * sigmoid(1.5 A) * B.
a = q(2, 3, scale=2); b = q(2, 3, scale=4)
emit('Swiglu', A=a, B=b, Y=a / (1 + np.exp(-1.5 * a)) * b)
