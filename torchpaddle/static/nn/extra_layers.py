"""paddle.static.nn layers with their own parameters that Paddle 3.x kept: deform_conv2d, row_conv (lookahead
convolution over padded [batch, time, dim] sequences) and sparse_embedding (a parameter-server embedding; here
the table lives in the program like any embedding)."""
import numbers

from .common import _int_list, activate, check_input, embedding, layer_name, param, static_only

__all__ = ["deform_conv2d", "row_conv", "sparse_embedding"]


def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=1,
                  deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None, name=None):
    """Deformable convolution (v2 with ``mask``, v1 without) with its own filter [num_filters, C / groups, kh, kw]
    and bias."""
    from ... import ops as _ops
    from ...tensor.math import add
    from ...tensor.manipulation import reshape
    api = "deform_conv2d"
    static_only(api)
    check_input(x, api, "x", ranks=(4,))
    check_input(offset, api, "offset", ranks=(4,))
    if mask is not None:
        check_input(mask, api, "mask", ranks=(4,))
    if isinstance(num_filters, bool) or not isinstance(num_filters, numbers.Integral) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    channels = x.shape[1]
    if channels < 0 or channels % groups:
        raise ValueError(f"{api}: the channels of x ({channels}) must be known and divisible by groups={groups}")
    kernel = _int_list(filter_size, 2, "filter_size", api)
    attrs = dict(strides=_int_list(stride, 2, "stride", api), paddings=_int_list(padding, 2, "padding", api),
                 dilations=_int_list(dilation, 2, "dilation", api), groups=int(groups),
                 deformable_groups=int(deformable_groups), im2col_step=int(im2col_step))
    prefix = layer_name(api, name)
    weight = param(api, prefix, [num_filters, channels // groups] + kernel, x.dtype, weight_attr)
    bias = param(api, prefix, [num_filters], x.dtype, bias_attr, is_bias=True)
    out = (_ops.deformable_conv(x, offset, weight, mask, **attrs) if mask is not None
           else _ops.deformable_conv_v1(x, offset, weight, **attrs))
    return out if bias is None else add(out, reshape(bias, [1, num_filters, 1, 1]))


def row_conv(input, future_context_size, param_attr=None, act=None):
    """``out[b, t] = sum_i input[b, t + i] * W[i]`` for i in 0..future_context_size (zeros past the end), with
    ``W`` [future_context_size + 1, dim] its own parameter; ``input`` is a padded [batch, time, dim] batch."""
    from ...nn import functional as F
    from ...tensor.manipulation import slice as slice_
    from ...tensor.math import add, multiply
    api = "row_conv"
    static_only(api)
    check_input(input, api, ranks=(3,))
    if isinstance(future_context_size, bool) or not isinstance(future_context_size, numbers.Integral) \
            or future_context_size < 0:
        raise ValueError(f"{api}: future_context_size must be a non-negative int, got {future_context_size!r}")
    dim, steps = input.shape[2], input.shape[1]
    if dim < 0 or steps < 0:
        raise ValueError(f"{api}: the time and feature dims of input{list(input.shape)} must be known")
    k = int(future_context_size)
    weight = param(api, layer_name(api), [k + 1, dim], input.dtype, param_attr)
    padded = F.pad(input, [0, k], value=0.0, data_format="NLC") if k else input
    out = None
    for i in range(k + 1):
        term = multiply(slice_(padded, [1], [i], [i + steps]), slice_(weight, [0], [i], [i + 1]))
        out = term if out is None else add(out, term)
    return activate(out, act, api)


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None, table_class="MemorySparseTable",
                     param_attr=None, dtype="float32", slot=None):
    """The parameter-server embedding: on one machine, an ordinary embedding table (``entry``, ``table_class``
    and ``slot`` configure the distributed table and have no effect here)."""
    if table_class not in ("MemorySparseTable", "MemorySparseGeoTable", "SSDSparseTable"):
        raise ValueError(f"sparse_embedding: table_class must be 'MemorySparseTable', 'MemorySparseGeoTable' or "
                         f"'SSDSparseTable', got {table_class!r}")
    return embedding(input, size, is_sparse=True, padding_idx=padding_idx, param_attr=param_attr, dtype=dtype)
