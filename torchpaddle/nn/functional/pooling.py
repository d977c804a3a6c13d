"""Pooling: avg/max pool 1d/2d/3d, their adaptive forms and max unpooling, over the pool2d / pool3d,
max_pool{2,3}d_with_index and unpool / unpool3d ops. 1-D pooling runs as 2-D pooling over a unit axis, as in
Paddle."""
import math

import numpy as np

from ... import ops as _ops
from ...framework.tensor import PaddleAssertionError, Tensor
from .conv import check_format, to_list, update_padding

__all__ = ["avg_pool1d", "avg_pool2d", "avg_pool3d", "max_pool1d", "max_pool2d", "max_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d"]


class OutputSizeError(IndexError, ValueError):
    """An adaptive output_size of the wrong length. Paddle indexes past its end (IndexError); this is also
    the ValueError a bad argument deserves."""


def _mark_mask(x, mask):
    """Paddle gives the int mask stop_gradient=False when the input needs a gradient."""
    if isinstance(x, Tensor) and not x.stop_gradient:
        mask.stop_gradient = False
    return mask


def _check_rank(x, rank, api):
    if len(x.shape) != rank:
        raise ValueError(f"{api}: expected input x to be a {rank}-D tensor, but received a {len(x.shape)}-D "
                         f"tensor of shape {list(x.shape)}")


def _window(api, nd, kernel_size, stride):
    kernel_size = to_list(kernel_size, nd, "kernel_size")
    stride = kernel_size if stride is None else to_list(stride, nd, "stride")
    for name, values in (("kernel_size", kernel_size), ("stride", stride)):
        if any(v <= 0 for v in values):
            raise ValueError(f"{api}: every {name} must be greater than 0, got {name}={values}")
    return kernel_size, stride


def _pool_op(nd):
    return _ops.pool3d if nd == 3 else _ops.pool2d


def _unsqueeze_1d(x, padding, api, ceil_mode):
    """1-D pooling as 2-D: [N, C, L] -> [N, C, 1, L] and the padding widened with zeros for the unit axis."""
    padding, algorithm = update_padding(padding, False, 1, api, ceil_mode)
    padding = [0, 0] + padding if len(padding) == 2 else [0] + padding
    return _ops.unsqueeze2(x, axes=[2]), padding, algorithm


def _scale_divisor(out, kernel_size, divisor_override, api):
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float, np.integer, np.floating)) or isinstance(divisor_override, bool):
        raise ValueError(f"{api}: divisor_override must be an int or float, got {type(divisor_override).__name__}")
    # NOTE: like Paddle, the (exclusive or not) average is rescaled by prod(kernel_size) / divisor_override.
    factor = math.prod(kernel_size) / divisor_override if divisor_override else math.inf
    return _ops.scale(out, None, scale=float(factor))


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
    """Average pooling over [N, C, L]."""
    _check_rank(x, 3, "avg_pool1d")
    kernel_size, stride = _window("avg_pool1d", 1, kernel_size, stride)
    x, padding, algorithm = _unsqueeze_1d(x, padding, "avg_pool1d", ceil_mode)
    out = _ops.pool2d(x, pooling_type="avg", ksize=[1] + kernel_size, strides=[1] + stride, paddings=padding,
                      exclusive=exclusive, ceil_mode=ceil_mode, data_format="NCHW", padding_algorithm=algorithm)
    return _ops.squeeze2(out, axes=[2])


def _avg_pool(api, nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override, data_format):
    kernel_size, stride = _window(api, nd, kernel_size, stride)
    channel_last = check_format(data_format, nd, api)
    padding, algorithm = update_padding(padding, channel_last, nd, api, ceil_mode)
    out = _pool_op(nd)(x, pooling_type="avg", ksize=kernel_size, strides=stride, paddings=padding,
                       exclusive=exclusive, ceil_mode=ceil_mode, data_format=data_format,
                       padding_algorithm=algorithm)
    return _scale_divisor(out, kernel_size, divisor_override, api)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCHW", name=None):
    """Average pooling over [N, C, H, W] (or NHWC)."""
    return _avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True, divisor_override=None,
               data_format="NCDHW", name=None):
    """Average pooling over [N, C, D, H, W] (or NDHWC)."""
    return _avg_pool("avg_pool3d", 3, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                     data_format)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
    """Max pooling over [N, C, L]; with return_mask also the argmax along L (int32)."""
    _check_rank(x, 3, "max_pool1d")
    kernel_size, stride = _window("max_pool1d", 1, kernel_size, stride)
    x, padding, algorithm = _unsqueeze_1d(x, padding, "max_pool1d", ceil_mode)
    if return_mask:
        out, mask = _ops.max_pool2d_with_index(x, ksize=[1] + kernel_size, strides=[1] + stride, paddings=padding,
                                               ceil_mode=ceil_mode)
        return _ops.squeeze2(out, axes=[2]), _mark_mask(x, _ops.squeeze2(mask, axes=[2]))
    out = _ops.pool2d(x, pooling_type="max", ksize=[1] + kernel_size, strides=[1] + stride, paddings=padding,
                      ceil_mode=ceil_mode, data_format="NCHW", padding_algorithm=algorithm)
    return _ops.squeeze2(out, axes=[2])


def _max_pool(api, nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    kernel_size, stride = _window(api, nd, kernel_size, stride)
    channel_last = check_format(data_format, nd, api)
    padding, algorithm = update_padding(padding, channel_last, nd, api, ceil_mode)
    if return_mask:
        if channel_last:
            raise ValueError(f"{api}: return_mask=True needs data_format {'NCHW' if nd == 2 else 'NCDHW'}, "
                             f"got {data_format}")
        # NOTE: Paddle's with-index op has no padding_algorithm; 'SAME' arrives there as zero padding.
        with_index = _ops.max_pool3d_with_index if nd == 3 else _ops.max_pool2d_with_index
        out, mask = with_index(x, ksize=kernel_size, strides=stride, paddings=padding, ceil_mode=ceil_mode)
        return out, _mark_mask(x, mask)
    return _pool_op(nd)(x, pooling_type="max", ksize=kernel_size, strides=stride, paddings=padding,
                        ceil_mode=ceil_mode, data_format=data_format, padding_algorithm=algorithm)


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW",
               name=None):
    """Max pooling over [N, C, H, W] (or NHWC); with return_mask also the flat argmax per plane (int32)."""
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW",
               name=None):
    """Max pooling over [N, C, D, H, W] (or NDHWC); with return_mask also the flat argmax per volume (int32)."""
    return _max_pool("max_pool3d", 3, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format)


def _output_size(output_size, in_sizes, api):
    """An int, or a sequence whose None entries keep the input's size (Tensor entries are read)."""
    nd = len(in_sizes)
    if isinstance(output_size, (int, np.integer)) and not isinstance(output_size, bool):
        return [int(output_size)] * nd
    if isinstance(output_size, Tensor):
        output_size = output_size.tolist()
        output_size = output_size if isinstance(output_size, list) else [output_size]
    if not isinstance(output_size, (list, tuple, str)):
        raise TypeError(f"{api}: output_size must be an int or a list of {nd} ints, got {output_size!r}")
    if isinstance(output_size, str) or len(output_size) != nd:
        raise OutputSizeError(f"{api}: output_size must be an int or a list of {nd} ints, got {output_size!r}")
    sizes = [in_sizes[i] if v is None else v for i, v in enumerate(output_size)]
    return to_list(sizes, nd, "output_size")


def adaptive_avg_pool1d(x, output_size, name=None):
    """Adaptive average pooling over [N, C, L]."""
    _check_rank(x, 3, "adaptive_avg_pool1d")
    size = to_list(output_size, 1, "output_size")
    out = _ops.pool2d(_ops.unsqueeze2(x, axes=[2]), pooling_type="avg", ksize=[1] + size, adaptive=True)
    return _ops.squeeze2(out, axes=[2])


def _adaptive_avg(api, nd, x, output_size, data_format):
    channel_last = check_format(data_format, nd, api)
    _check_rank(x, nd + 2, api)
    in_sizes = list(x.shape[1:-1] if channel_last else x.shape[2:])
    size = _output_size(output_size, in_sizes, api)
    return _pool_op(nd)(x, pooling_type="avg", ksize=size, adaptive=True, data_format=data_format)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Adaptive average pooling over [N, C, H, W] (or NHWC); None in output_size keeps that input size."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, x, output_size, data_format)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Adaptive average pooling over [N, C, D, H, W] (or NDHWC); None in output_size keeps that input size."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, x, output_size, data_format)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling over [N, C, L]; with return_mask also the argmax along L (int32)."""
    _check_rank(x, 3, "adaptive_max_pool1d")
    size = to_list(output_size, 1, "output_size")
    out, mask = _ops.max_pool2d_with_index(_ops.unsqueeze2(x, axes=[2]), ksize=[1] + size, adaptive=True)
    out = _ops.squeeze2(out, axes=[2])
    return (out, _mark_mask(x, _ops.squeeze2(mask, axes=[2]))) if return_mask else out


def _adaptive_max(api, nd, x, output_size, return_mask):
    _check_rank(x, nd + 2, api)
    size = _output_size(output_size, list(x.shape[2:]), api)
    with_index = _ops.max_pool3d_with_index if nd == 3 else _ops.max_pool2d_with_index
    out, mask = with_index(x, ksize=size, adaptive=True)
    return (out, _mark_mask(x, mask)) if return_mask else out


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling over [N, C, H, W]; with return_mask also the flat argmax per plane (int32)."""
    return _adaptive_max("adaptive_max_pool2d", 2, x, output_size, return_mask)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling over [N, C, D, H, W]; with return_mask also the flat argmax per volume (int32)."""
    return _adaptive_max("adaptive_max_pool3d", 3, x, output_size, return_mask)


def _unpool_output_size(x, kernel_size, stride, padding, output_size, api):
    nd = len(kernel_size)
    if output_size is not None and not isinstance(output_size, (list, tuple)):
        raise PaddleAssertionError(f"{api}: output_size must be None, a list or a tuple, got {output_size!r}")
    in_sizes = list(x.shape[-nd:])
    default = [(n - 1) * s + k - 2 * p for n, s, k, p in zip(in_sizes, stride, kernel_size, padding)]
    if output_size is None:
        return default
    output_size = [int(_scalar(v)) for v in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"{api}: output_size should hold {nd} or {nd + 2} elements, got {output_size}")
    for d in range(nd):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < output_size[d] < high:
            raise ValueError(f"{api}: invalid output_size {output_size} (dim {d} must be between {low} and {high})")
    return output_size


def _scalar(v):
    return v.item() if isinstance(v, Tensor) else v


def _unpool_args(api, nd, x, indices, kernel_size, stride, padding, data_format, allowed):
    if len(x.shape) != nd + 2:
        raise ValueError(f"{api}: x should be a {nd + 2}-D tensor, but received shape {list(x.shape)}")
    if len(indices.shape) != nd + 2:
        raise ValueError(f"{api}: indices should be a {nd + 2}-D tensor, but received shape {list(indices.shape)}")
    if data_format != allowed:
        raise ValueError(f"{api}: Attr(data_format) should be {allowed!r}. Received Attr(data_format): {data_format}")
    kernel_size = to_list(kernel_size, nd, "kernel_size")
    stride = kernel_size if stride is None else to_list(stride, nd, "stride")
    return kernel_size, stride, to_list(padding, nd, "padding")


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
    """Inverse of max_pool1d: puts x at the positions in indices (from return_mask) of a zero [N, C, L]."""
    kernel_size, stride, padding = _unpool_args("max_unpool1d", 1, x, indices, kernel_size, stride, padding,
                                                data_format, "NCL")
    x4, i4 = _ops.unsqueeze2(x, axes=[2]), _ops.unsqueeze2(indices, axes=[2])
    if output_size is not None:
        # NOTE: Paddle inserts the unit H dim at position 2 of the given list, so only [N, C, L] works.
        output_size = list(output_size[:2]) + [1] + list(output_size[2:])
    size = _unpool_output_size(x4, [1] + kernel_size, [1] + stride, [0] + padding, output_size, "max_unpool1d")
    out = _ops.unpool(x4, i4, ksize=[1] + kernel_size, unpooling_type="max", strides=[1] + stride,
                      paddings=[0] + padding, output_size=size, data_format="NCHW")
    return _ops.squeeze2(out, axes=[2])


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
    """Inverse of max_pool2d: puts x at the flat per-plane positions in indices of a zero [N, C, H, W]."""
    kernel_size, stride, padding = _unpool_args("max_unpool2d", 2, x, indices, kernel_size, stride, padding,
                                                data_format, "NCHW")
    size = _unpool_output_size(x, kernel_size, stride, padding, output_size, "max_unpool2d")
    return _ops.unpool(x, indices, ksize=kernel_size, unpooling_type="max", strides=stride, paddings=padding,
                       output_size=size, data_format=data_format)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
    """Inverse of max_pool3d: puts x at the flat per-volume positions in indices of a zero [N, C, D, H, W]."""
    kernel_size, stride, padding = _unpool_args("max_unpool3d", 3, x, indices, kernel_size, stride, padding,
                                                data_format, "NCDHW")
    size = _unpool_output_size(x, kernel_size, stride, padding, output_size, "max_unpool3d")
    return _ops.unpool3d(x, indices, ksize=kernel_size, strides=stride, paddings=padding, output_size=size,
                         data_format=data_format)


def _lp_pool(api, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
    if not isinstance(norm_type, (int, float, np.integer, np.floating)) or isinstance(norm_type, bool):
        raise TypeError(f"{api}: norm_type must be a number, got {type(norm_type).__name__}")
    channel_last = check_format(data_format, 2, api)
    _check_rank(x, 4, api)
    kernel_size, stride = _window(api, 2, kernel_size, stride)
    padding, algorithm = update_padding(padding, channel_last, 2, api, ceil_mode)
    return _ops.lp_pool2d(x, pooling_type="lp", kernel_size=kernel_size, strides=stride, paddings=padding,
                          padding_algorithm=algorithm, ceil_mode=ceil_mode, data_format=data_format,
                          norm_type=float(norm_type))


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCL", name=None):
    """Power-average pooling over [N, C, L] (or NLC): (sum of x**p per window) ** (1/p)."""
    channel_last = check_format(data_format, 1, "lp_pool1d")
    _check_rank(x, 3, "lp_pool1d")
    kernel_size, stride = _window("lp_pool1d", 1, kernel_size, stride)
    padding, algorithm = update_padding(padding, channel_last, 1, "lp_pool1d", ceil_mode)
    axis = 1 if channel_last else 2
    if algorithm == "EXPLICIT":
        padding = [0, 0] + padding if len(padding) == 2 else [0] + padding
    else:
        padding = algorithm       # 'SAME' / 'VALID' again for the 2-D call
    out = _lp_pool("lp_pool1d", _ops.unsqueeze2(x, axes=[axis]), norm_type, [1] + kernel_size, [1] + stride,
                   padding, ceil_mode, "NHWC" if channel_last else "NCHW")
    return _ops.squeeze2(out, axes=[axis])


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NCHW", name=None):
    """Power-average pooling over [N, C, H, W] (or NHWC): (sum of x**p per window) ** (1/p)."""
    return _lp_pool("lp_pool2d", x, norm_type, kernel_size, stride, padding, ceil_mode, data_format)
