"""Fractional max pooling (Graham, 2014) with Paddle's pseudo-random window sequence: for each spatial dim, with
``alpha = (in - k) / (out - 1)`` (or ``in / out`` when ``kernel_size`` is None) and a draw ``u``, output ``i`` pools
rows ``[ceil(alpha * (i + u) - 1), ...)`` (with a kernel, torch's sequence). Composed from slice, argmax and
take_along_axis, so autograd works."""
import math

import torch

from ...tensor import creation, indexing, manipulation, search
from ...tensor.math import _not_tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _sizes(value, n, arg):
    values = [value] * n if isinstance(value, int) else list(value)
    if len(values) != n or any(not isinstance(v, int) or v < 1 for v in values):
        raise ValueError(f"fractional_max_pool{n}d(): {arg} must be a positive int or {n} of them, got {value!r}")
    return values


def _windows(size, out, kernel, u):
    """[start, end) of each of ``out`` windows over ``size`` rows."""
    if kernel:
        alpha = (size - kernel) / (out - 1) if out > 1 else 0.0
    else:
        alpha = size / out
        base = size // out
        # scale u so that every window keeps at least one row
        u *= min((base + 2) / alpha - 1, (size + 1 - base) / alpha - (out - 1))
    spans = []
    for i in range(out):
        if kernel:   # NOTE: with a kernel Paddle uses torch's sequence: the last window ends at the input's end
            start = size - kernel if i == out - 1 else int((i + u) * alpha) - int(u * alpha)
            end = start + kernel
        else:
            start = max(0, math.ceil(alpha * (i + u) - 1))
            end = math.ceil(alpha * (i + 1 + u) - 1)
        spans.append((min(start, size - 1), max(min(end, size), min(start, size - 1) + 1)))
    return spans


def _fractional(x, n, output_size, kernel_size, random_u, return_mask):
    _not_tensor(x, f"fractional_max_pool{n}d")
    if x.ndim != n + 2:
        raise ValueError(f"fractional_max_pool{n}d(): x must be {n + 2}-D (N, C, spatial...), got {list(x.shape)}")
    outs = _sizes(output_size, n, "output_size")
    kernels = [0] * n if kernel_size is None else _sizes(kernel_size, n, "kernel_size")
    spatial = list(x.shape[2:])
    for size, out, k in zip(spatial, outs, kernels):
        if out > size or (k and k > size):
            raise ValueError(f"fractional_max_pool{n}d(): output_size {outs} and kernel_size {kernel_size} do not fit "
                             f"input spatial size {spatial}")
    if random_u is None:
        random_u = float(torch.rand(()))   # the global generator, so paddle.seed makes it reproducible
    if not 0 < random_u < 1:
        raise ValueError(f"fractional_max_pool{n}d(): random_u must be in (0, 1), got {random_u}")
    index = creation.arange(0, math.prod(spatial), dtype="int32").reshape([1, 1] + spatial)   # Paddle: int32 mask
    index = manipulation.expand(index, list(x.shape))
    values = x
    for d in range(n):
        axis = 2 + d
        parts, part_index = [], []
        for start, end in _windows(spatial[d], outs[d], kernels[d], random_u):
            seg = manipulation.slice(values, [axis], [start], [end])
            arg = search.argmax(seg, axis=axis, keepdim=True)
            parts.append(indexing.take_along_axis(seg, arg, axis))
            part_index.append(indexing.take_along_axis(manipulation.slice(index, [axis], [start], [end]), arg, axis))
        values, index = manipulation.concat(parts, axis), manipulation.concat(part_index, axis)
    return (values, index) if return_mask else values


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    return _fractional(x, 2, output_size, kernel_size, random_u, return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False, name=None):
    return _fractional(x, 3, output_size, kernel_size, random_u, return_mask)
