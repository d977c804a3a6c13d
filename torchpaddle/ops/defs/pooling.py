"""Pooling ops: pool2d / pool3d (max, avg, adaptive, global), max_pool{2,3}d_with_index, unpool / unpool3d and
lp_pool2d, on torch's pooling kernels.

Paddle's window rules differ from torch's, all handled by the general path below: the output size truncates
toward zero (a kernel up to ``stride - 1`` larger than the padded input still yields one window), ceil_mode
keeps a last window that starts in the padding, and averages divide by Paddle's own window sizes (see
``_avg_pool``). Windows that hold only padding give -FLT_MAX (max, mask -1), NaN or a signed zero (exclusive
avg) or 0 (non-exclusive avg), as Paddle's kernels do.
"""
import torch
import torch.nn.functional as F

from ..registry import REQUIRED, op
from .conv import check_float, check_positive, from_channel_first, padding_pairs, to_channel_first, torch_pad

_MAX = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
_ADAPTIVE_AVG = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}
_ADAPTIVE_MAX = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}


def _check_input(op_type, X, nd):
    if X.dim() != nd + 2:
        raise ValueError(f"{op_type}: input X must be a {nd + 2}-D tensor, got shape {list(X.shape)}")
    check_float(op_type, "X", X)


def _windows(op_type, in_sizes, ksize, strides, paddings, padding_algorithm, ceil_mode):
    """-> (padding pairs, output sizes, kernel, strides) by Paddle's rule. Along a dim with a single window the
    kernel is cut to the padded input (the rest of that window holds nothing) and the stride to the kernel,
    so huge values never reach torch; ``ksize`` is still what a non-exclusive average divides by."""
    nd = len(in_sizes)
    if len(ksize) != nd or len(strides) != nd:
        raise ValueError(f"{op_type}: ksize {list(ksize)} and strides {list(strides)} must hold {nd} ints")
    check_positive(op_type, "ksize", ksize)
    check_positive(op_type, "stride", strides)
    pairs, _ = padding_pairs(op_type, in_sizes, ksize, strides, [1] * nd, paddings, padding_algorithm)
    out = []
    for i in range(nd):
        span = in_sizes[i] + pairs[i][0] + pairs[i][1] - ksize[i] + (strides[i] - 1 if ceil_mode else 0)
        size = int(span / strides[i]) + 1        # C++ division truncates toward zero
        if size <= 0:
            raise ValueError(f"{op_type}: the kernel {list(ksize)} is larger than the padded input: spatial dim "
                             f"{i} has size {in_sizes[i]} with padding {list(pairs[i])}")
        out.append(size)
    kernel, stride = list(ksize), list(strides)
    for i in range(nd):
        if out[i] == 1:
            kernel[i] = min(kernel[i], in_sizes[i] + pairs[i][0] + pairs[i][1])
            stride[i] = kernel[i]
    return pairs, out, kernel, stride


def _torch_native(pairs, ksize, out, in_sizes, strides):
    """Whether torch's own padding gives Paddle's windows: symmetric, at most half the kernel, a kernel that
    fits the unpadded input (torch checks that), and the same window count without ceil_mode."""
    for (lo, hi), k, o, n, s in zip(pairs, ksize, out, in_sizes, strides):
        if lo != hi or 2 * lo > k or o != (n + 2 * lo - k) // s + 1 or n < k:
            return False
    return True


def _pad_to_windows(x, pairs, ksize, strides, out, value):
    """Pad so that plain (unpadded, floor-mode) pooling yields exactly ``out`` windows per dim."""
    full = [(lo, (o - 1) * s + k - n - lo) for (lo, _), k, s, o, n in zip(pairs, ksize, strides, out, x.shape[2:])]
    return F.pad(x, torch_pad(full), value=value), full


def _lowest(dtype):
    # NOTE: Paddle's max pooling starts from -FLT_MAX whatever the dtype, so float64 windows of pure padding
    # hold -3.4e38, not float64's lowest.
    return -torch.finfo(torch.float32).max


def _unpadded_index(index, padded_sizes, full, in_sizes):
    """Flat indices into the padded spatial dims -> flat indices into the input's (-1 inside the padding)."""
    coords, rest = [], index
    for size in reversed(padded_sizes):
        coords.append(rest % size)
        rest = rest // size
    coords.reverse()
    flat = torch.zeros_like(index)
    valid = torch.ones_like(index, dtype=torch.bool)
    for c, (lo, _), n in zip(coords, full, in_sizes):
        c = c - lo
        valid &= (c >= 0) & (c < n)
        flat = flat * n + c
    return torch.where(valid, flat, torch.full_like(flat, -1))


def _max_pool(x, ksize, strides, pairs, out, with_index):
    nd = len(ksize)
    in_sizes = list(x.shape[2:])
    if _torch_native(pairs, ksize, out, in_sizes, strides):
        return _MAX[nd](x, ksize, strides, [lo for lo, _ in pairs], return_indices=with_index)
    xp, full = _pad_to_windows(x, pairs, ksize, strides, out, _lowest(x.dtype))
    if not with_index:
        return _MAX[nd](xp, ksize, strides)
    values, index = _MAX[nd](xp, ksize, strides, return_indices=True)
    return values, _unpadded_index(index, list(xp.shape[2:]), full, in_sizes)


def _avg_pool(x, ksize, strides, pairs, out, exclusive, full_ksize, full_strides):
    nd = len(ksize)
    in_sizes = list(x.shape[2:])
    if _torch_native(pairs, ksize, out, in_sizes, strides):
        return _AVG[nd](x, ksize, strides, [lo for lo, _ in pairs], count_include_pad=not exclusive)
    xp, _ = _pad_to_windows(x, pairs, ksize, strides, out, 0.0)
    mean = _AVG[nd](xp, ksize, strides)          # window sum / prod(ksize)
    # NOTE: Paddle's divisor, per dim, for a window starting at a (padding included):
    #   exclusive:      min(a + k, n) - max(a, 0)   -- 0 (so 0/0 = NaN) or negative (-0) for all-padding windows
    #   non-exclusive:  min(a + k, n + leading padding) - a   -- cut at the leading, not the trailing, padding
    cut = 1
    divisor = torch.ones([1, 1] + [1] * nd, dtype=x.dtype, device=x.device)
    for i, ((lo, _), k, s, o, n) in enumerate(zip(pairs, full_ksize, full_strides, out, in_sizes)):
        starts = torch.arange(o, device=x.device) * s - lo
        if exclusive:
            size = torch.clamp(starts + k, max=n) - torch.clamp(starts, min=0)
        else:
            size = torch.clamp(starts + k, max=n + lo) - starts
        shape = [1] * (nd + 2)
        shape[2 + i] = o
        divisor = divisor * size.to(x.dtype).reshape(shape)
        cut *= ksize[i]
    return mean * cut / divisor


def _adaptive_sizes(op_type, ksize, nd, x):
    if 0 in x.shape[2:]:
        raise ValueError(f"{op_type}: adaptive pooling needs non-empty spatial dims, got input {list(x.shape)}")
    if len(ksize) != nd:
        raise ValueError(f"{op_type}: the adaptive output size must hold {nd} ints, got {list(ksize)}")
    for k in ksize:
        if k < 0:
            raise ValueError(f"{op_type}: the adaptive output size must be non-negative, got {list(ksize)}")
    return list(ksize)


def _pool(op_type, nd, X, pooling_type, ksize, global_pooling, strides, paddings, exclusive, adaptive, ceil_mode,
          data_format, padding_algorithm):
    _check_input(op_type, X, nd)
    if pooling_type not in ("max", "avg"):
        raise ValueError(f"{op_type}: pooling_type must be 'max' or 'avg', got {pooling_type!r}")
    x = to_channel_first(X, data_format)
    if global_pooling:
        ksize, paddings, padding_algorithm, adaptive = [1] * nd, [0] * nd, "EXPLICIT", True
    if adaptive:
        sizes = _adaptive_sizes(op_type, ksize, nd, x)
        fn = _ADAPTIVE_MAX[nd] if pooling_type == "max" else _ADAPTIVE_AVG[nd]
        return from_channel_first(fn(x, sizes), data_format)
    pairs, out, kernel, stride = _windows(op_type, list(x.shape[2:]), ksize, strides, paddings, padding_algorithm,
                                          ceil_mode)
    if pooling_type == "max":
        y = _max_pool(x, kernel, stride, pairs, out, False)
    else:
        y = _avg_pool(x, kernel, stride, pairs, out, exclusive, list(ksize), list(strides))
    return from_channel_first(y, data_format)


def _max_pool_with_index(op_type, nd, X, ksize, global_pooling, strides, paddings, adaptive, ceil_mode):
    _check_input(op_type, X, nd)
    if global_pooling:
        ksize, paddings, adaptive = [1] * nd, [0] * nd, True
    if adaptive:
        values, index = _ADAPTIVE_MAX[nd](X, _adaptive_sizes(op_type, ksize, nd, X), return_indices=True)
        return values, index.to(torch.int32)
    if len(paddings) != nd:
        # NOTE: unlike pool2d, Paddle's with-index kernel takes only symmetric paddings.
        raise ValueError(f"{op_type}: paddings {list(paddings)} must hold {nd} ints (one per spatial dim); "
                         f"asymmetric padding is not supported with return_mask")
    pairs, out, kernel, stride = _windows(op_type, list(X.shape[2:]), ksize, strides, paddings, "EXPLICIT",
                                          ceil_mode)
    values, index = _max_pool(X, kernel, stride, pairs, out, True)
    return values, index.to(torch.int32)


# Paddle's defaults; use_cudnn only says which kernel Paddle picks on a GPU
_POOL_ATTRS = {"pooling_type": "", "ksize": REQUIRED, "global_pooling": False, "strides": [1, 1],
               "paddings": [0, 0], "exclusive": True, "adaptive": False, "ceil_mode": False,
               "data_format": "NCHW", "padding_algorithm": "EXPLICIT", "use_cudnn": False}
_INDEX_ATTRS = {"ksize": REQUIRED, "global_pooling": False, "strides": [1, 1], "paddings": [0, 0],
                "adaptive": False, "ceil_mode": False}


def _register(op_type, nd):
    attrs = dict(_POOL_ATTRS)
    if nd == 3:
        attrs.update(strides=[1, 1, 1], paddings=[0, 0, 0], data_format="NCDHW")

    def kernel(X, *, pooling_type, ksize, global_pooling, strides, paddings, exclusive, adaptive, ceil_mode,
               data_format, padding_algorithm, use_cudnn):
        return _pool(op_type, nd, X, pooling_type, ksize, global_pooling, strides, paddings, exclusive, adaptive,
                     ceil_mode, data_format, padding_algorithm)
    kernel.__doc__ = f"{op_type}: {nd}-D max / average pooling, plain, adaptive or global."
    op(op_type, inputs=["X"], outputs=["Out"], attrs=attrs)(kernel)


def _register_with_index(op_type, nd):
    attrs = dict(_INDEX_ATTRS)
    if nd == 3:
        attrs.update(strides=[1, 1, 1], paddings=[0, 0, 0])

    def kernel(X, *, ksize, global_pooling, strides, paddings, adaptive, ceil_mode):
        return _max_pool_with_index(op_type, nd, X, ksize, global_pooling, strides, paddings, adaptive, ceil_mode)
    kernel.__doc__ = f"{op_type}: {nd}-D max pooling with the argmax (flat index into each input plane, int32)."
    op(op_type, inputs=["X"], outputs=["Out", "Mask"], attrs=attrs)(kernel)


for _type, _nd in [("pool2d", 2), ("pool3d", 3)]:
    _register(_type, _nd)
for _type, _nd in [("max_pool2d_with_index", 2), ("max_pool3d_with_index", 3)]:
    _register_with_index(_type, _nd)


# -- max unpooling ----------------------------------------------------------------------------------------------

def _unpool(op_type, nd, X, Indices, output_size, data_format):
    if X.dim() != nd + 2 or Indices.shape != X.shape:
        raise ValueError(f"{op_type}: X must be {nd + 2}-D and Indices must have its shape, got X {list(X.shape)} "
                         f"and Indices {list(Indices.shape)}")
    if Indices.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"{op_type}: Indices must be int32 or int64, got {Indices.dtype}")
    if data_format not in ("NCHW", "NCDHW"):
        raise ValueError(f"{op_type}: data_format must be channel-first, got {data_format!r}")
    if len(output_size) != nd or any(s <= 0 for s in output_size):
        raise ValueError(f"{op_type}: output_size must hold {nd} positive ints, got {list(output_size)}")
    plane = 1
    for s in output_size:
        plane *= s
    index = Indices.reshape(X.shape[0], X.shape[1], -1)
    if index.numel() and index.device.type != "meta":
        lo, hi = torch.aminmax(index)
        # NOTE: Paddle checks only the upper bound (a negative index corrupts its heap); both are checked here.
        if int(lo) < 0 or int(hi) >= plane:
            bad = int(lo) if int(lo) < 0 else int(hi)
            raise ValueError(f"{op_type}: Indices holds {bad}, out of range [0, {plane}) for output_size "
                             f"{list(output_size)}")
    out = X.new_zeros(X.shape[0], X.shape[1], plane)
    out = out.scatter(2, index.long(), X.reshape(X.shape[0], X.shape[1], -1))
    return out.reshape(list(X.shape[:2]) + list(output_size))


def _register_unpool(op_type, nd):
    # unpool has an unpooling_type ("max", the only one), unpool3d none
    attrs = {"ksize": REQUIRED, "strides": [1] * nd, "paddings": [0] * nd, "output_size": [0] * nd,
             "data_format": "NCHW" if nd == 2 else "NCDHW"}
    if nd == 2:
        attrs = dict(unpooling_type=REQUIRED, **attrs)

    def kernel(X, Indices, *, ksize, strides, paddings, output_size, data_format, unpooling_type="max"):
        if unpooling_type != "max":
            raise ValueError(f"{op_type}: unpooling_type must be 'max', got {unpooling_type!r}")
        return _unpool(op_type, nd, X, Indices, output_size, data_format)
    kernel.__doc__ = f"{op_type}: scatters X to the flat per-plane positions in Indices of a zero output."
    op(op_type, inputs=["X", "Indices"], outputs=["Out"], attrs=attrs)(kernel)


for _type, _nd in [("unpool", 2), ("unpool3d", 3)]:
    _register_unpool(_type, _nd)


# -- power-average pooling ------------------------------------------------------------------------------------

@op("lp_pool2d", inputs=["x"], outputs=["out"],
    attrs={"pooling_type": "", "kernel_size": REQUIRED, "global_pooling": False, "strides": [1, 1],
           "paddings": [0, 0], "padding_algorithm": "EXPLICIT", "ceil_mode": False, "exclusive": True,
           "data_format": "NCHW", "norm_type": 0.0, "adaptive": False})
def lp_pool2d(x, *, pooling_type, kernel_size, global_pooling, strides, paddings, padding_algorithm, ceil_mode,
              exclusive, data_format, norm_type, adaptive):
    """(sum of x**p over each window's input elements) ** (1/p); p = inf is max pooling. Powers are raw, as in
    Paddle: a negative sum under a fractional root is NaN."""
    _check_input("lp_pool2d", x, 2)
    if pooling_type != "lp" or global_pooling or adaptive:
        raise ValueError(f"lp_pool2d: only pooling_type 'lp' over windows is supported, got pooling_type="
                         f"{pooling_type!r}, global_pooling={global_pooling}, adaptive={adaptive}")
    if norm_type == 0:
        raise ValueError("lp_pool2d: norm_type cannot be 0")
    t = to_channel_first(x, data_format)
    pairs, out, kernel, stride = _windows("lp_pool2d", list(t.shape[2:]), kernel_size, strides, paddings,
                                          padding_algorithm, ceil_mode)
    if norm_type == float("inf"):
        return from_channel_first(_max_pool(t, kernel, stride, pairs, out, False), data_format)
    # pad after the power so that padding adds nothing (0 ** p would be inf for p < 0)
    powered, _ = _pad_to_windows(t.pow(norm_type), pairs, kernel, stride, out, 0.0)
    total = _AVG[2](powered, kernel, stride) * (kernel[0] * kernel[1])
    return from_channel_first(total.pow(1.0 / norm_type), data_format)
