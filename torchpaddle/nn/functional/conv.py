"""Convolutions: conv1d/2d/3d and their transposes, over the conv2d / depthwise_conv2d / conv3d (+ _transpose)
ops. 1-D convolutions run as 2-D ones over an unsqueezed axis, as in Paddle; the bias is a separate add."""
import numpy as np

from ... import ops as _ops
from ...framework.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose", "conv3d_transpose"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def to_list(value, n, name):
    """An int or a sequence of n ints -> list of n ints (Paddle's convert_to_list; ValueError otherwise)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return [int(value)] * n
    if isinstance(value, Tensor):
        value = value.tolist()
        if not isinstance(value, list):
            value = [value]
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"The {name}'s type must be list or tuple. Received: {value!r}")
    if len(value) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {list(value)}")
    out = []
    for v in value:
        if isinstance(v, Tensor):
            v = v.item()
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise ValueError(f"The {name}'s type must be a list or tuple of {n} integers. Received: {list(value)}")
        out.append(int(v))
    return out


def check_format(data_format, nd, api):
    if data_format not in _FORMATS[nd]:
        allowed = " or ".join(repr(f) for f in _FORMATS[nd])
        raise ValueError(f"{api}: Attr(data_format) should be {allowed}. Received Attr(data_format): {data_format}")
    return data_format.endswith("C")


def check_rank(x, rank, api):
    if len(x.shape) != rank:
        raise ValueError(f"{api}: input x should be a {rank}-D tensor, but received x with shape {list(x.shape)}")


def _is_seq(v):
    return isinstance(v, (list, tuple))


def update_padding(padding, channel_last, nd, api, ceil_mode=None):
    """Paddle's padding forms -> (paddings attr, padding_algorithm). Forms: 'SAME'/'VALID', an int, nd ints,
    2*nd ints [before0, after0, ...], or nd+2 pairs including zero pairs for batch and channel."""
    if isinstance(padding, str):
        algorithm = padding.upper()
        if algorithm not in ("SAME", "VALID"):
            raise ValueError(f"{api}: Unknown padding: {padding!r}. It can only be 'SAME' or 'VALID'.")
        if algorithm == "VALID" and ceil_mode:
            raise ValueError(f"{api}: when padding is 'VALID', ceil_mode must be False")
        return [0] * nd, algorithm
    if isinstance(padding, Tensor):
        padding = padding.tolist()
    if _is_seq(padding):
        if len(padding) == nd + 2 and _is_seq(padding[0]):
            pairs = [list(p) for p in padding]
            outer = (pairs[0], pairs[-1]) if channel_last else (pairs[0], pairs[1])
            if any(p != [0, 0] for p in outer):
                raise ValueError(f"{api}: Non-zero padding({list(padding)}) in the batch or channel dimensions "
                                 f"is not supported.")
            inner = pairs[1:-1] if channel_last else pairs[2:]
            flat = to_list([v for p in inner for v in p], 2 * nd, "padding")
        elif len(padding) == 2 * nd and padding and not _is_seq(padding[0]):
            flat = to_list(padding, 2 * nd, "padding")
        elif len(padding) == nd and not _is_seq(padding[0]):
            flat = to_list(padding, nd, "padding")
        else:
            raise ValueError(f"{api}: invalid padding: {list(padding)}")
        if len(flat) == 2 * nd and all(flat[2 * i] == flat[2 * i + 1] for i in range(nd)):
            flat = flat[0::2]
    else:
        flat = to_list(padding, nd, "padding")
    if any(p < 0 for p in flat):
        raise ValueError(f"{api}: Invalid padding, all value should be larger than or equal to 0, "
                         f"but received: {flat}")
    return flat, "EXPLICIT"


def add_bias(out, bias, channel_last):
    if bias is None:
        return out
    return _ops.elementwise_add(out, bias, axis=-1 if channel_last else 1)


def _check_groups(api, groups, channels, num_filters=None):
    if not isinstance(groups, (int, np.integer)) or isinstance(groups, bool):
        raise TypeError(f"{api}: groups must be an int, got {type(groups).__name__}")
    if groups <= 0:
        raise ValueError(f"{api}: the groups of {api} should be greater than 0, received groups: {groups}")
    if channels % groups:
        raise ValueError(f"{api}: the channel of input must be divisible by groups, received: the channel of input "
                         f"is {channels}, the groups is {groups}")
    if num_filters is not None and num_filters % groups:
        raise ValueError(f"{api}: the number of filters must be divisible by groups, received: the number of "
                         f"filters is {num_filters}, the groups is {groups}")


def _conv(api, nd, x, weight, bias, stride, padding, dilation, groups, data_format):
    channel_last = check_format(data_format, nd, api)
    shape = x.shape
    if len(shape) != nd + 2:
        raise ValueError(f"{api}: input x should be a {nd + 2}-D tensor, but received x with shape {list(shape)}")
    channels = shape[-1 if channel_last else 1]
    num_filters = weight.shape[0]
    _check_groups(api, groups, channels, num_filters)
    if padding.__class__ is int:
        padding, algorithm = [padding] * nd, "EXPLICIT"
        if padding[0] < 0:
            raise ValueError(f"{api}: Invalid padding, all value should be larger than or equal to 0, "
                             f"but received: {padding}")
    else:
        padding, algorithm = update_padding(padding, channel_last, nd, api)
    stride = [stride] * nd if stride.__class__ is int else to_list(stride, nd, "stride")
    dilation = [dilation] * nd if dilation.__class__ is int else to_list(dilation, nd, "dilation")
    depthwise = channels == groups and channels != 1 and num_filters % channels == 0
    if nd == 1:
        # Paddle runs 1-D convolutions as 2-D ones over a unit axis before L.
        axis = 1 if channel_last else 2
        x = _ops.unsqueeze2(x, axes=[axis])
        weight = _ops.unsqueeze2(weight, axes=[2])
        padding = [0, 0] + padding if len(padding) == 2 else [0] + padding
        stride, dilation = [1] + stride, [1] + dilation
        fmt = "NHWC" if channel_last else "NCHW"
    else:
        fmt = data_format
    conv = _ops.conv3d if nd == 3 else _ops.depthwise_conv2d if depthwise else _ops.conv2d
    # the bias is a separate elementwise_add, as Paddle does it in both modes
    out = conv(x, weight, strides=stride, paddings=padding, padding_algorithm=algorithm, groups=groups,
               dilations=dilation, data_format=fmt)
    out = add_bias(out, bias, channel_last)
    if nd == 1:
        out = _ops.squeeze2(out, axes=[axis])
    return out


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL", name=None):
    """1-D convolution; weight [out_c, in_c / groups, k]."""
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCHW", name=None):
    """2-D convolution; weight [out_c, in_c / groups, kh, kw]."""
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCDHW", name=None):
    """3-D convolution; weight [out_c, in_c / groups, kd, kh, kw]."""
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def _conv_transpose(api, nd, x, weight, bias, stride, padding, output_padding, dilation, groups, output_size,
                    data_format):
    channel_last = check_format(data_format, nd, api)
    check_rank(x, nd + 2, api)
    channels = x.shape[-1 if channel_last else 1]
    _check_groups(api, groups, channels)
    padding, algorithm = update_padding(padding, channel_last, nd, api)
    stride = to_list(stride, nd, "stride")
    dilation = to_list(dilation, nd, "dilation")
    if output_size is None:
        output_size = []
    else:
        if output_padding != 0:
            raise ValueError(f"{api}: output_padding option is mutually exclusive with output_size")
        output_size = to_list(output_size, nd, "output_size")
    output_padding = to_list(output_padding, nd, "output_padding") if output_padding != 0 else []
    depthwise = nd == 2 and channels == groups and channels != 1 and weight.shape[1] == 1
    if nd == 1:
        axis = 1 if channel_last else 2
        x = _ops.unsqueeze2(x, axes=[axis])
        weight = _ops.unsqueeze2(weight, axes=[2])
        padding = [0, 0] + padding if len(padding) == 2 else [0] + padding
        stride, dilation = [1] + stride, [1] + dilation
        output_size = [1] + output_size if output_size else []
        output_padding = [0] + output_padding if output_padding else []
        fmt = "NHWC" if channel_last else "NCHW"
    else:
        fmt = data_format
    conv = (_ops.conv3d_transpose if nd == 3 else _ops.depthwise_conv2d_transpose if depthwise
            else _ops.conv2d_transpose)
    out = conv(x, weight, output_padding=output_padding, output_size=output_size, strides=stride,
               paddings=padding, padding_algorithm=algorithm, groups=groups, dilations=dilation, data_format=fmt)
    out = add_bias(out, bias, channel_last)
    if nd == 1:
        out = _ops.squeeze2(out, axes=[axis])
    return out


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCL", name=None):
    """1-D transposed convolution; weight [in_c, out_c / groups, k]."""
    return _conv_transpose("conv1d_transpose", 1, x, weight, bias, stride, padding, output_padding, dilation,
                           groups, output_size, data_format)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1, groups=1,
                     output_size=None, data_format="NCHW", name=None):
    """2-D transposed convolution; weight [in_c, out_c / groups, kh, kw]."""
    return _conv_transpose("conv2d_transpose", 2, x, weight, bias, stride, padding, output_padding, dilation,
                           groups, output_size, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1,
                     output_size=None, data_format="NCDHW", name=None):
    """3-D transposed convolution; weight [in_c, out_c / groups, kd, kh, kw]."""
    return _conv_transpose("conv3d_transpose", 3, x, weight, bias, stride, padding, output_padding, dilation,
                           groups, output_size, data_format)
