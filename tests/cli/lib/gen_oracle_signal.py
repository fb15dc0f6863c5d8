"""The third part of tests/cli/lib/gen_oracle.py's float64 numpy evaluation: the ops of plumb gen's
hunt/gen_recipes_signal.cpp (DFT, STFT, GridSample, ConvInteger, QLinearConv, NonZero, Unique,
MaxPool's indices and MaxUnpool, DynamicQuantizeLinear, the random ops as gen uses them) and
SequenceMap, and of hunt/gen_recipes_detect.cpp (NonMaxSuppression, MaxRoiPool: Caffe's definition, the text
giving none; TfIdfVectorizer; MelWeightMatrix: the reference of ONNX's backend case; StringNormalizer), each written from the ONNX operator text
(opsets 16 and 17), nothing from plumb.
"""
import numpy as np


def dft(x, ins, a):
    axis = a.get('axis', 1)
    sig = x[..., 0] if x.shape[-1] == 1 else x[..., 0] + 1j * x[..., 1]
    n = int(ins[1]) if len(ins) > 1 and ins[1] is not None else sig.shape[axis]
    y = (np.fft.ifft if a.get('inverse', 0) else np.fft.fft)(sig, n=n, axis=axis)
    if a.get('onesided', 0):
        y = np.take(y, np.arange(n // 2 + 1), axis=axis)
    return np.stack([y.real, y.imag], axis=-1)


def stft(ins, a):
    x, step = ins[0][..., 0], int(ins[1])
    window = ins[2] if len(ins) > 2 and ins[2] is not None else None
    frame = len(window) if window is not None else int(ins[3])
    frames = (x.shape[1] - frame) // step + 1
    segs = np.stack([x[:, t * step:t * step + frame] for t in range(frames)], axis=1)
    if window is not None:
        segs = segs * window
    y = np.fft.rfft(segs, axis=-1) if a.get('onesided', 1) else np.fft.fft(segs, axis=-1)
    return np.stack([y.real, y.imag], axis=-1)


def reflect(v, lo, hi):
    span = hi - lo
    if span <= 0:
        return lo
    if v < lo:
        d = lo - v
        k, r = int(d // span), d % span
        return lo + r if k % 2 == 0 else hi - r
    if v > hi:
        d = v - hi
        k, r = int(d // span), d % span
        return hi - r if k % 2 == 0 else lo + r
    return v


def grid_sample(x, grid, a):
    """Bilinear: a grid point (-1, -1) is the top-left pixel's centre (align_corners) or corner."""
    n, c, h, w = x.shape
    align = a.get('align_corners', 0)
    pad = a.get('padding_mode', b'zeros').decode()
    out = np.zeros((n, c) + grid.shape[1:3])

    def pixel(b, yy, xx):
        if 0 <= yy < h and 0 <= xx < w:
            return x[b, :, yy, xx]
        return np.zeros(c)
    for b in range(n):
        for i in range(grid.shape[1]):
            for j in range(grid.shape[2]):
                gx, gy = grid[b, i, j]
                px = (gx + 1) / 2 * (w - 1) if align else ((gx + 1) * w - 1) / 2
                py = (gy + 1) / 2 * (h - 1) if align else ((gy + 1) * h - 1) / 2
                if pad == 'border':
                    px, py = min(max(px, 0), w - 1), min(max(py, 0), h - 1)
                elif pad == 'reflection':
                    px = reflect(px, 0, w - 1) if align else reflect(px, -0.5, w - 0.5)
                    py = reflect(py, 0, h - 1) if align else reflect(py, -0.5, h - 0.5)
                    px, py = min(max(px, 0), w - 1), min(max(py, 0), h - 1)
                x0, y0 = int(np.floor(px)), int(np.floor(py))
                fx, fy = px - x0, py - y0
                out[b, :, i, j] = ((1 - fy) * ((1 - fx) * pixel(b, y0, x0) + fx * pixel(b, y0, x0 + 1)) +
                                   fy * ((1 - fx) * pixel(b, y0 + 1, x0) + fx * pixel(b, y0 + 1, x0 + 1)))
    return out


def max_pool_indices(x, a):
    """MaxPool's Indices (no padding, dilation 1): the flat index into x of each window's first
    maximum, row-major over the whole tensor (storage_order 0)."""
    ks, st = a['kernel_shape'], a.get('strides', [1] * len(a['kernel_shape']))
    n, c, h, w = x.shape
    oh, ow = (h - ks[0]) // st[0] + 1, (w - ks[1]) // st[1] + 1
    y, idx = np.zeros((n, c, oh, ow)), np.zeros((n, c, oh, ow), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    win = x[b, ch, i * st[0]:i * st[0] + ks[0], j * st[1]:j * st[1] + ks[1]]
                    k = int(np.argmax(win))
                    yy, xx = i * st[0] + k // ks[1], j * st[1] + k % ks[1]
                    y[b, ch, i, j] = win.flat[k]
                    idx[b, ch, i, j] = ((b * c + ch) * h + yy) * w + xx
    return [y, idx]


def non_max_suppression(ins, a):
    # ONNX's text: boxes [B, N, 4] as any diagonal pair of corners [y1, x1, y2, x2]
    # (center_point_box 0) or [x_center, y_center, width, height] (1); per batch and class, boxes
    # by descending score, those with a score below score_threshold removed, a box dropped when
    # its IoU with a box already selected is above iou_threshold, at most
    # max_output_boxes_per_class (default 0: none) selected; rows [batch, class, box].
    boxes, scores = ins[0].astype(np.float64), ins[1].astype(np.float64)
    opt = lambda k, d: float(np.asarray(ins[k]).reshape(-1)[0]) if len(ins) > k and ins[k] is not None else d
    max_out, iou_t, score_t = int(opt(2, 0)), opt(3, 0.0), opt(4, None)
    if a.get('center_point_box', 0) == 1:
        cx, cy, w, h = (boxes[..., k] for k in range(4))
        boxes = np.stack([cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2], axis=-1)
    lo = np.minimum(boxes[..., 0:2], boxes[..., 2:4])
    hi = np.maximum(boxes[..., 0:2], boxes[..., 2:4])

    def iou(b, i, j):
        inter = np.prod(np.maximum(0.0, np.minimum(hi[b, i], hi[b, j]) - np.maximum(lo[b, i], lo[b, j])))
        area = lambda k: np.prod(hi[b, k] - lo[b, k])
        return inter / (area(i) + area(j) - inter)

    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            kept = []
            for i in sorted(range(scores.shape[2]), key=lambda k: -scores[b, c, k]):
                if len(kept) == max_out:
                    break
                if score_t is not None and scores[b, c, i] < score_t:
                    continue
                if all(iou(b, i, j) <= iou_t for j in kept):
                    kept.append(i)
            rows += [[b, c, i] for i in kept]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def roi_align(x, rois, batch, a, opset):
    """RoiAlign as ONNX's text and reference (onnx/reference/ops/op_roi_align.py) define it: each
    bin averages (or, mode max, takes the largest of the weighted corners of) g_h x g_w bilinear
    samples at start + p * bin + (i + 0.5) * bin / g; samples below -1 or past the extent count 0;
    coordinates below 0 clamp to 0, a low index at the last row or column clamps there. RoiAlign-10
    has no coordinate_transformation_mode and no half-pixel shift; 16 defaults to half_pixel."""
    mode = a.get('mode', b'avg').decode()
    default = 'half_pixel' if opset >= 16 else 'output_half_pixel'
    half = a.get('coordinate_transformation_mode', default.encode()).decode() == 'half_pixel'
    oh, ow = a.get('output_height', 1), a.get('output_width', 1)
    ratio, scale = a.get('sampling_ratio', 0), a.get('spatial_scale', 1.0)
    n_rois, c, h, w = len(rois), x.shape[1], x.shape[2], x.shape[3]
    y = np.zeros((n_rois, c, oh, ow))
    shift = 0.5 if half else 0.0
    for r in range(n_rois):
        x1, y1, x2, y2 = (float(v) * scale - shift for v in rois[r])
        rw, rh = x2 - x1, y2 - y1
        if not half:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = ratio if ratio > 0 else int(np.ceil(rh / oh))
        gw = ratio if ratio > 0 else int(np.ceil(rw / ow))
        img = x[int(batch[r])]
        for ph in range(oh):
            for pw in range(ow):
                vals = []
                for iy in range(gh):
                    yy = y1 + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = x1 + pw * bw + (ix + 0.5) * bw / gw
                        if yy < -1.0 or yy > h or xx < -1.0 or xx > w:
                            vals.append(np.zeros(c))
                            continue
                        yc, xc = max(yy, 0.0), max(xx, 0.0)
                        y0, x0 = int(yc), int(xc)
                        if y0 >= h - 1:
                            y0 = y1i = h - 1
                            yc = float(y0)
                        else:
                            y1i = y0 + 1
                        if x0 >= w - 1:
                            x0 = x1i = w - 1
                            xc = float(x0)
                        else:
                            x1i = x0 + 1
                        ly, lx = yc - y0, xc - x0
                        taps = [(1 - ly) * (1 - lx) * img[:, y0, x0], (1 - ly) * lx * img[:, y0, x1i],
                                ly * (1 - lx) * img[:, y1i, x0], ly * lx * img[:, y1i, x1i]]
                        vals.append(sum(taps) if mode == 'avg' else np.max(np.stack(taps), axis=0))
                stack = np.stack(vals)
                y[r, :, ph, pw] = stack.sum(axis=0) / max(gh * gw, 1) if mode == 'avg' else stack.max(axis=0)
    return y


def max_roi_pool(x, rois, a):
    # ONNX's text gives no bin formula (rois [R, 5] = [batch_id, x1, y1, x2, y2], output [R, C,
    # pooled_shape]); this is Caffe's RoI pooling, where the op comes from: corners rounded (half
    # away from zero) after spatial_scale, RoI size end - start + 1 (at least 1), bin p of a size-s
    # RoI [floor(p * s / pooled), ceil((p + 1) * s / pooled)) from its start, clipped to the image;
    # an empty bin is 0.
    ph, pw = a['pooled_shape']
    scale = a.get('spatial_scale', 1.0)
    rnd = lambda v: int(np.sign(v) * np.floor(abs(v) + 0.5))
    h, w = x.shape[2], x.shape[3]
    y = np.zeros((rois.shape[0], x.shape[1], ph, pw))
    for r, roi in enumerate(rois.astype(np.float64)):
        x1, y1, x2, y2 = (rnd(v * scale) for v in roi[1:])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(ph):
            hs = min(max(int(np.floor(i * rh / ph)) + y1, 0), h)
            he = min(max(int(np.ceil((i + 1) * rh / ph)) + y1, 0), h)
            for j in range(pw):
                ws = min(max(int(np.floor(j * rw / pw)) + x1, 0), w)
                we = min(max(int(np.ceil((j + 1) * rw / pw)) + x1, 0), w)
                if he > hs and we > ws:
                    y[r, :, i, j] = x[int(roi[0]), :, hs:he, ws:we].max(axis=(1, 2))
    return y


def tfidf_vectorizer(x, a):
    # ONNX's text: the pool holds the n-grams of length 1, 2, ... (ngram_counts: where each length
    # starts in pool_int64s); for n in [min_gram_length, max_gram_length] every n-gram of a row
    # is counted, its items max_skip_count or fewer items apart ("all skips up to S"; a 1-gram has
    # no skip and is counted once), into Y[ngram_indexes[i]] for the pool's i-th n-gram. TF the
    # count; IDF 1 for a count above 0, times the i-th weight; TFIDF the count times the i-th
    # weight (weights all one when absent).
    pool, starts = list(a['pool_int64s']), list(a['ngram_counts'])
    index, weights = list(a['ngram_indexes']), list(a.get('weights', []))
    lo, hi, skips = a['min_gram_length'], a['max_gram_length'], a['max_skip_count']
    mode = a['mode'].decode() if isinstance(a['mode'], bytes) else a['mode']
    grams = []  # (n, items) in pool order, parallel to ngram_indexes
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(pool)
        grams += [(k + 1, tuple(pool[p:p + k + 1])) for p in range(start, end, k + 1)]
    rows = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    y = np.zeros((rows.shape[0], max(index) + 1))
    for r, row in enumerate(rows):
        for i, (n, g) in enumerate(grams):
            if not lo <= n <= hi:
                continue
            count = 0
            for d in (range(1, skips + 2) if n > 1 else [1]):
                count += sum(tuple(row[s:s + (n - 1) * d + 1:d]) == g for s in range(len(row) - (n - 1) * d))
            w = weights[i] if weights else 1.0
            y[r, index[i]] += count if mode == 'TF' else (w if count else 0) if mode == 'IDF' else count * w
    return y.reshape(x.shape[:-1] + (y.shape[1],)) if x.ndim == 2 else y.reshape(-1)


def mel_weight_matrix(ins):
    # ONNX's reference (its backend case test_melweightmatrix): mel edges spaced by
    # (high - low) / (num_mel_bins + 2), back to hertz, floor((dft_length + 1) * f / sample_rate),
    # then triangles between consecutive bins. gen picks settings whose bins are at least 0.02
    # from an integer (hunt/gen_recipes_detect.cpp): checked here, a floor there could part
    # backends.
    nm, dl, sr = (int(v) for v in ins[:3])
    lo, up = float(ins[3]), float(ins[4])
    lo_m, hi_m = 2595 * np.log10(1 + lo / 700), 2595 * np.log10(1 + up / 700)
    f = np.arange(0, nm + 2) * ((hi_m - lo_m) / (nm + 2)) + lo_m
    f = (dl + 1) * (700 * (np.power(10, f / 2595) - 1)) / sr
    near = np.abs(f - np.rint(f))[0 if lo else 1:]
    if near.size and near.min() < 0.02:
        raise ValueError('MelWeightMatrix setting with a bin %g from an integer' % near.min())
    bins = np.floor(f).astype(int)
    out = np.zeros((dl // 2 + 1, nm))
    for i in range(nm):
        left, center, right = bins[i], bins[i + 1], bins[i + 2]
        if center == left:
            out[center, i] = 1
        else:
            for j in range(left, center + 1):
                out[j, i] = (j - left) / (center - left)
        for j in range(center, right):
            out[j, i] = (right - j) / (right - center)
    return out


def string_normalizer(x, a):
    # ONNX's text: X of shape [C] or [1, C]; the elements equal to a stop word are removed (compared
    # ignoring case unless is_case_sensitive, default 0), then the rest lowercased, uppercased or
    # kept (case_change_action); nothing left gives [""] of shape [1] or [1, 1]. gen writes ASCII.
    text = lambda v: v.decode() if isinstance(v, bytes) else v
    stops = [text(w) for w in a.get('stopwords', [])]
    sensitive = a.get('is_case_sensitive', 0)
    key = (lambda w: w) if sensitive else (lambda w: w.lower())
    kept = [text(w) for w in x.reshape(-1) if key(text(w)) not in {key(s) for s in stops}]
    action = text(a.get('case_change_action', 'NONE'))
    kept = [w.lower() if action == 'LOWER' else w.upper() if action == 'UPPER' else w for w in kept] or ['']
    y = np.array([w.encode() for w in kept], dtype=object)
    return y.reshape((1, -1) if x.ndim == 2 else (-1,))


def evaluate_signal(node, ins, a, conv, run_graph, env):
    op = node.op_type
    if op == 'DFT':
        return [dft(ins[0], ins, a)]
    if op == 'STFT':
        return [stft(ins, a)]
    if op == 'GridSample':
        return [grid_sample(ins[0], ins[1], a)]
    if op in ('ConvInteger', 'QLinearConv'):
        q = op == 'QLinearConv'
        x, xz = ins[0].astype(np.float64), float(ins[2] if q else ins[2])
        w, wz = ins[3 if q else 1].astype(np.float64), float(ins[5] if q else ins[3])
        acc = conv(x - xz, w - wz, **{k: v for k, v in a.items()})
        if not q:
            return [acc.astype(np.int32)]
        return [np.clip(np.rint(acc * (ins[1] * ins[4] / ins[6])) + int(ins[7]), 0, 255).astype(np.uint8)]
    if op == 'NonZero':
        return [np.array(np.nonzero(ins[0]), dtype=np.int64)]
    if op == 'NonMaxSuppression':
        return [non_max_suppression(ins, a)]
    if op == 'MaxRoiPool':
        return [max_roi_pool(ins[0], ins[1], a)]
    if op == 'RoiAlign':
        return [roi_align(ins[0], ins[1], ins[2], a, env.get('__opset__', 17) if env else 17)]
    if op == 'TfIdfVectorizer':
        return [tfidf_vectorizer(ins[0], a)]
    if op == 'MelWeightMatrix':
        return [mel_weight_matrix(ins)]
    if op == 'StringNormalizer':
        return [string_normalizer(ins[0], a)]
    if op == 'Unique':
        y, first, inverse, counts = np.unique(ins[0], return_index=True, return_inverse=True, return_counts=True)
        return [y, first.astype(np.int64), inverse.astype(np.int64), counts.astype(np.int64)]
    if op == 'MaxPool' and len(node.output) > 1:
        return max_pool_indices(ins[0], a)
    if op == 'MaxUnpool':
        y, idx = ins[0], ins[1]
        ks, st = a['kernel_shape'], a.get('strides', [1] * len(a['kernel_shape']))
        shape = list(y.shape[:2]) + [(y.shape[2 + i] - 1) * st[i] + ks[i] for i in range(len(ks))]
        out = np.zeros(int(np.prod(shape)))
        out[idx.reshape(-1)] = y.reshape(-1)
        return [out.reshape(shape)]
    if op == 'DynamicQuantizeLinear':
        # In float32, as the text's formula reads for a float input: two divisions, rounded once each.
        x = ins[0].astype(np.float32)
        scale = np.float32((max(0.0, float(x.max())) - min(0.0, float(x.min()))) / np.float32(255))
        zp = np.clip(np.rint(np.float32(-min(0.0, float(x.min()))) / scale), 0, 255) if scale else 0.0
        y = np.clip(np.rint(x / scale) + zp, 0, 255) if scale else np.full(x.shape, zp)
        return [y.astype(np.uint8), np.array(scale, dtype=np.float64), np.array(zp, dtype=np.uint8)]
    # The random ops: gen multiplies every sample by 0, so only the shape and type matter here.
    if op in ('RandomUniformLike', 'RandomNormalLike', 'Bernoulli'):
        return [np.zeros(ins[0].shape)]
    if op in ('RandomUniform', 'RandomNormal'):
        return [np.zeros(a['shape'])]
    if op == 'Multinomial':
        return [np.zeros((ins[0].shape[0], a.get('sample_size', 1)), dtype=np.int32)]
    if op == 'SequenceMap':
        body = [at.g for at in node.attribute if at.name == 'body'][0]
        return [[run_graph(body, env, [e])[0] for e in ins[0]]]
    return None
