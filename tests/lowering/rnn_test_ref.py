# Independent float64 NumPy reference of ONNX RNN/GRU/LSTM with plumb's rulings (sequence_lens,
# clip, activation alpha/beta consumption). Prints the expected-value arrays of rnn_test.cpp:
#     /usr/bin/python3 tests/lowering/rnn_test_ref.py
import numpy as np

DEF = {'Affine': (1.0, 0.0), 'LeakyRelu': (np.float32(0.01), 0), 'ThresholdedRelu': (1.0, 0),
       'ScaledTanh': (1.0, 1.0), 'HardSigmoid': (np.float32(0.2), 0.5), 'Elu': (1.0, 0)}
USES = {'Affine': (1, 1), 'LeakyRelu': (1, 0), 'ThresholdedRelu': (1, 0), 'ScaledTanh': (1, 1),
        'HardSigmoid': (1, 1), 'Elu': (1, 0)}

def act(name, a, b):
    return {
        'Relu': lambda x: np.maximum(x, 0), 'Tanh': np.tanh, 'Sigmoid': lambda x: 1 / (1 + np.exp(-x)),
        'Affine': lambda x: a * x + b, 'LeakyRelu': lambda x: np.where(x < 0, a * x, x),
        'ThresholdedRelu': lambda x: np.where(x >= a, x, 0), 'ScaledTanh': lambda x: a * np.tanh(b * x),
        'HardSigmoid': lambda x: np.minimum(np.maximum(a * x + b, 0), 1),
        'Elu': lambda x: np.where(x < 0, a * (np.exp(x) - 1), x), 'Softsign': lambda x: x / (1 + abs(x)),
        'Softplus': lambda x: np.log1p(np.exp(x))}[name]

def resolve(names, alphas, betas):
    ia = ib = 0; out = []
    for nm in names:
        a, b = DEF.get(nm, (0, 0)); ua, ub = USES.get(nm, (0, 0))
        if ua and ia < len(alphas): a = alphas[ia]; ia += 1
        if ub and ib < len(betas): b = betas[ib]; ib += 1
        out.append(act(nm, float(a), float(b)))
    return out

def run(cell, X, W, R, B=None, seq=None, h0=None, c0=None, P=None, direction='forward', layout=0,
        clip=None, acts=None, alphas=(), betas=(), lbr=0, input_forget=0):
    X = X.astype(np.float64)
    if layout: X = X.swapaxes(0, 1)
    if layout and h0 is not None: h0 = h0.swapaxes(0, 1)
    if layout and c0 is not None: c0 = c0.swapaxes(0, 1)
    T, Bn, _ = X.shape; D = W.shape[0]; H = R.shape[2]
    G = {'rnn': 1, 'gru': 3, 'lstm': 4}[cell]
    dflt = {'rnn': ['Tanh'], 'gru': ['Sigmoid', 'Tanh'], 'lstm': ['Sigmoid', 'Tanh', 'Tanh']}[cell]
    names = acts if acts else dflt * D
    if len(names) == len(dflt) and D == 2: names = names * 2
    fs = resolve(names, alphas, betas)
    cl = (lambda x: np.maximum(np.minimum(x, clip), -clip)) if clip else (lambda x: x)
    seq = np.full(Bn, T) if seq is None else np.asarray(seq)
    Y = np.zeros((T, D, Bn, H)); Yh = np.zeros((D, Bn, H)); Yc = np.zeros((D, Bn, H))
    for d in range(D):
        f = fs[d * len(dflt):(d + 1) * len(dflt)]
        Wd, Rd = W[d].astype(np.float64), R[d].astype(np.float64)
        Bd = np.zeros(2 * G * H) if B is None else B[d].astype(np.float64)
        Pd = np.zeros(3 * H) if P is None else P[d].astype(np.float64)
        w = [Wd[g * H:(g + 1) * H] for g in range(G)]; r = [Rd[g * H:(g + 1) * H] for g in range(G)]
        wb = [Bd[g * H:(g + 1) * H] for g in range(G)]; rb = [Bd[(G + g) * H:(G + g + 1) * H] for g in range(G)]
        h = np.zeros((Bn, H)) if h0 is None else h0[d].astype(np.float64)
        c = np.zeros((Bn, H)) if c0 is None else c0[d].astype(np.float64)
        rev = direction == 'reverse' or d == 1
        for s in range(T):
            t = T - 1 - s if rev else s
            x = X[t]
            pre = lambda g, hh: x @ w[g].T + hh @ r[g].T
            if cell == 'rnn':
                hn = f[0](cl(pre(0, h) + wb[0] + rb[0])); cn = c
            elif cell == 'gru':
                z = f[0](cl(pre(0, h) + wb[0] + rb[0])); rr = f[0](cl(pre(1, h) + wb[1] + rb[1]))
                if lbr: hh = f[1](cl(x @ w[2].T + rr * (h @ r[2].T + rb[2]) + wb[2]))
                else: hh = f[1](cl(x @ w[2].T + (rr * h) @ r[2].T + rb[2] + wb[2]))
                hn = (1 - z) * hh + z * h; cn = c
            else:
                pi, po, pf = Pd[:H], Pd[H:2 * H], Pd[2 * H:]
                i = f[0](cl(pre(0, h) + pi * c + wb[0] + rb[0]))
                ff = 1 - i if input_forget else f[0](cl(pre(2, h) + pf * c + wb[2] + rb[2]))
                cc = f[1](cl(pre(3, h) + wb[3] + rb[3]))
                cn = ff * c + i * cc
                o = f[0](cl(pre(1, h) + po * cn + wb[1] + rb[1]))
                hn = o * f[2](cl(cn))
            live = (t < seq)[:, None]
            Y[t, d] = np.where(live, hn, 0)
            h = np.where(live, hn, h); c = np.where(live, cn, c)
        Yh[d] = h; Yc[d] = c
    if layout:
        Y = Y.transpose(2, 0, 1, 3); Yh = Yh.swapaxes(0, 1); Yc = Yc.swapaxes(0, 1)
    return Y, Yh, Yc

# ---- the cases of rnn_test.cpp (prints its k* arrays) ----
rng = np.random.default_rng(5)
def q(*shape): return (rng.integers(-8, 9, size=shape) / 8.0).astype(np.float32)
def fmt(a): return '{' + ', '.join(repr(float(v)) for v in np.asarray(a, dtype=np.float64).ravel()) + '}'
def emit(name, **arrs):
    for k, v in arrs.items():
        print(f'// {name}.{k} {list(np.shape(v))}')
        print(f'const std::vector<double> k{name}{k} = {fmt(v)};')
cases = {}
# A/B: GRU bidirectional layout 1, B, initial_h; lbr 1 and 0
T, Bn, I, H = 3, 2, 2, 2
X = q(Bn, T, I); W = q(2, 3 * H, I); R = q(2, 3 * H, H); B = q(2, 6 * H); h0 = q(Bn, 2, H)
emit('GruIn', X=X, W=W, R=R, B=B, H0=h0)
for lbr in (0, 1):
    Y, Yh, _ = run('gru', X, W, R, B, h0=h0, direction='bidirectional', layout=1, lbr=lbr)
    emit(f'GruLbr{lbr}', Y=Y, Yh=Yh)
# C: LSTM forward peepholes + input_forget + clip
T, Bn, I, H = 3, 2, 2, 2
X = q(T, Bn, I); W = q(1, 4 * H, I) * 2; R = q(1, 4 * H, H); B = q(1, 8 * H); P = q(1, 3 * H)
h0 = q(1, Bn, H); c0 = q(1, Bn, H) * 4
emit('LstmIn', X=X, W=W, R=R, B=B, P=P, H0=h0, C0=c0)
Y, Yh, Yc = run('lstm', X, W, R, B, h0=h0, c0=c0, P=P, input_forget=1, clip=0.75)
emit('LstmFc', Y=Y, Yh=Yh, Yc=Yc)
# D: LSTM reverse with sequence_lens [3, 1]
Y, Yh, Yc = run('lstm', X, W, R, B, seq=[3, 1], h0=h0, c0=c0, P=P, direction='reverse')
emit('LstmRevSeq', Y=Y, Yh=Yh, Yc=Yc)
Y, Yh, Yc = run('lstm', X, W, R, B, seq=[2, 0], h0=h0, c0=c0, P=P)
emit('LstmFwdSeq', Y=Y, Yh=Yh, Yc=Yc)
# E: RNN bidirectional, [LeakyRelu, HardSigmoid], alpha [0.5, 0.25], beta [0.375]
T, Bn, I, H = 2, 2, 2, 3
X = q(T, Bn, I); W = q(2, H, I); R = q(2, H, H); B = q(2, 2 * H)
emit('RnnIn', X=X, W=W, R=R, B=B)
Y, Yh, _ = run('rnn', X, W, R, B, direction='bidirectional', acts=['LeakyRelu', 'HardSigmoid'], alphas=[0.5, 0.25], betas=[0.375])
emit('RnnActs', Y=Y, Yh=Yh)
# F: every activation, RNN forward T=2 B=1 I=1 H=2, no bias; inputs scaled to reach both signs
X = np.array([[[1.5]], [[-2.0]]], np.float32); W = np.array([[[1.0], [-0.75]]], np.float32)
R = np.array([[[0.5, -0.25], [0.25, 0.5]]], np.float32)
emit('ActIn', X=X, W=W, R=R)
for nm, al, be in [('Relu', [], []), ('Tanh', [], []), ('Sigmoid', [], []), ('Affine', [2.0], [0.5]), ('LeakyRelu', [], []),
                   ('ThresholdedRelu', [0.5], []), ('ScaledTanh', [1.5], [0.5]), ('HardSigmoid', [], []), ('Elu', [0.5], []),
                   ('Softsign', [], []), ('Softplus', [], []), ('Affine', [], [])]:
    Y, _, _ = run('rnn', X, W, R, acts=[nm], alphas=al, betas=be)
    emit(f'Act{nm}{"Dflt" if not al and nm=="Affine" else ""}', Y=Y)
