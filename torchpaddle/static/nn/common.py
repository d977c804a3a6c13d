"""``paddle.static.nn`` layers with parameters: fc, conv2d/3d (transpose), embedding, prelu,
bilinear_tensor_product. Parameters are named as Paddle's LayerHelper names them (``conv2d_0.w_0``,
``conv2d_0.b_0``) and made by the nn layers' parameter machinery; the maths is nn.functional's / the op's."""
import math
import numbers

from ... import ops as _ops
from ...framework.mode import STATE as _MODE
from ...framework.tensor import Tensor
from ...utils import unique_name

__all__ = ["fc", "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "embedding", "prelu",
           "bilinear_tensor_product", "activate", "param", "layer_name",
           "static_only"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def static_only(api):
    """Paddle's static.nn layers and py_func refuse dygraph mode (with an AssertionError, as Paddle)."""
    if not _MODE.static:
        raise AssertionError(f"{api}() is only supported in static graph mode; call paddle.enable_static() before "
                             "this api to enter static graph mode")


def activate(out, act, api):
    """``act`` (the name of an activation op, or None) applied to ``out``."""
    if act is None:
        return out
    fn = getattr(_ops, act, None) if isinstance(act, str) else None
    if fn is None:
        raise ValueError(f"{api}: act must be the name of an activation op (e.g. 'relu', 'tanh', 'softmax'), got "
                         f"{act!r}")
    return fn(out)


def layer_name(api, name=None):
    """Paddle's LayerHelper name ``<api>_N`` (or ``name``). Counted apart from op output names, which take the op
    type as key here, so that consecutive layers are numbered 0, 1, ... as in Paddle."""
    if name is not None:
        return name
    generator = unique_name._CURRENT[0]
    return f"{generator.prefix}{api}_{next(generator.counters[('layer', api)])}"


def param(api, prefix, shape, dtype, attr, is_bias=False, default_initializer=None):
    """A parameter ``<prefix>.w_N`` / ``<prefix>.b_N`` (None when ``attr`` is False)."""
    from ...nn.layer.layers import create_parameter_for
    return create_parameter_for(shape, dtype, None, attr, is_bias, default_initializer, api, name_prefix=prefix)


def check_input(x, api, what="input", ranks=None):
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: {what} must be a Tensor (Variable), got {type(x).__name__}")
    if x.dtype.name not in _FLOATS:
        raise TypeError(f"{api}: {what} must be float16, bfloat16, float32 or float64, got {x.dtype.name}")
    if ranks is not None and len(x.shape) not in ranks:
        raise ValueError(f"{api}: {what} must be {' or '.join(f'{r}-D' for r in ranks)}, got shape {list(x.shape)}")


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """``x`` (a Tensor or a list of them, each with its own weight ``fc_N.w_i``) flattened at
    ``num_flatten_dims``, times the weight, summed, plus the bias ``fc_N.b_0``, then ``activation``."""
    static_only("fc")
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    if not inputs:
        raise ValueError("fc: x must be a Tensor or a non-empty list of Tensors")
    for i, each in enumerate(inputs):
        if not isinstance(each, Tensor):
            raise TypeError(f"fc: x{'' if len(inputs) == 1 else f'[{i}]'} must be a Tensor (Variable), got "
                            f"{type(each).__name__}")
    dtype = inputs[0].dtype
    if dtype.name not in _FLOATS:
        raise TypeError(f"fc: x must be float16, bfloat16, float32 or float64, got {dtype.name}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    if isinstance(num_flatten_dims, bool) or not isinstance(num_flatten_dims, int):
        raise TypeError(f"fc: num_flatten_dims must be an int, got {type(num_flatten_dims).__name__}")
    weight_attrs = list(weight_attr) if isinstance(weight_attr, (list, tuple)) else [weight_attr] * len(inputs)
    if len(weight_attrs) != len(inputs):
        raise ValueError(f"fc: weight_attr holds {len(weight_attrs)} attributes for {len(inputs)} inputs")
    prefix = layer_name("fc", name)
    products = []
    for each, attr in zip(inputs, weight_attrs):
        shape = list(each.shape)
        flatten = len(shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
        if not 1 <= flatten < len(shape):
            raise ValueError(f"fc: num_flatten_dims must be in [1, {len(shape) - 1}] (or -1) for an input of "
                             f"shape {shape}, got {num_flatten_dims}")
        inner = shape[flatten:]
        if any(d < 0 for d in inner):
            raise ValueError(f"fc: the dimensions after num_flatten_dims={flatten} of the input shape {shape} "
                             "must be known")
        weight = param("fc", prefix, [math.prod(inner), size], dtype, attr)
        products.append((_ops.mul(each, weight, x_num_col_dims=flatten, y_num_col_dims=1), flatten))
    out = products[0][0] if len(products) == 1 else _ops.sum([p for p, _ in products])
    bias = param("fc", prefix, [size], dtype, bias_attr, is_bias=True)
    if bias is not None:
        out = _ops.elementwise_add(out, bias, axis=products[0][1])
    return activate(out, activation, "fc")


def _int_list(value, n, what, api):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return [int(value)] * n
    if isinstance(value, (list, tuple)) and len(value) == n and all(isinstance(v, numbers.Integral) for v in value):
        return [int(v) for v in value]
    raise ValueError(f"{api}: {what} must be an int or a list of {n} ints, got {value!r}")


def _channels(x, data_format, api, channel_last_formats):
    if data_format not in channel_last_formats + ("NCHW", "NCDHW"):
        raise ValueError(f"{api}: data_format must be 'NCHW'/'NHWC' (2-D) or 'NCDHW'/'NDHWC' (3-D), got "
                         f"{data_format!r}")
    c = x.shape[-1] if data_format in channel_last_formats else x.shape[1]
    if c < 0:
        raise ValueError(f"{api}: the channel dimension of input{list(x.shape)} must be known")
    return c


def _groups(groups, channels, api):
    groups = 1 if groups is None else groups
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups <= 0:
        raise ValueError(f"{api}: groups must be a positive int, got {groups!r}")
    if channels % groups:
        raise ValueError(f"{api}: the {channels} input channels are not divisible by groups={groups}")
    return int(groups)


def _conv(nd, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr, act,
          name, data_format):
    from ...nn import functional as F
    from ...nn.initializer import Normal
    api = f"conv{nd}d"
    static_only(api)
    check_input(input, api, ranks=(nd + 2,))
    if isinstance(num_filters, bool) or not isinstance(num_filters, numbers.Integral) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    channels = _channels(input, data_format, api, ("NHWC", "NDHWC"))
    groups = _groups(groups, channels, api)
    kernel = _int_list(filter_size, nd, "filter_size", api)
    prefix = layer_name(api, name)
    # Paddle's default: normal with std sqrt(2 / (kernel elements * input channels))
    std = (2.0 / (math.prod(kernel) * channels)) ** 0.5
    weight = param(api, prefix, [num_filters, channels // groups] + kernel, input.dtype, param_attr,
                   default_initializer=Normal(0.0, std))
    bias = param(api, prefix, [num_filters], input.dtype, bias_attr, is_bias=True)
    conv = F.conv2d if nd == 2 else F.conv3d
    out = conv(input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups,
               data_format=data_format)
    return activate(out, act, api)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """2-D convolution with its own filter ``conv2d_N.w_0`` [num_filters, C / groups, kh, kw] and bias."""
    return _conv(2, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr, act,
                 name, data_format)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None, param_attr=None,
           bias_attr=None, use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """3-D convolution with its own filter ``conv3d_N.w_0`` [num_filters, C / groups, kd, kh, kw] and bias."""
    return _conv(3, input, num_filters, filter_size, stride, padding, dilation, groups, param_attr, bias_attr, act,
                 name, data_format)


def _conv_transpose(nd, input, num_filters, output_size, filter_size, padding, stride, dilation, groups,
                    param_attr, bias_attr, act, name, data_format):
    from ...nn import functional as F
    api = f"conv{nd}d_transpose"
    static_only(api)
    check_input(input, api, ranks=(nd + 2,))
    if isinstance(num_filters, bool) or not isinstance(num_filters, numbers.Integral) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    channel_last = data_format in ("NHWC", "NDHWC")
    channels = _channels(input, data_format, api, ("NHWC", "NDHWC"))
    groups = _groups(groups, channels, api)
    if num_filters % groups:
        raise ValueError(f"{api}: num_filters={num_filters} is not divisible by groups={groups}")
    stride_l = _int_list(stride, nd, "stride", api)
    dilation_l = _int_list(dilation, nd, "dilation", api)
    if output_size is not None:
        output_size = _int_list(output_size, nd, "output_size", api)
    if filter_size is None:
        if output_size is None:
            raise ValueError(f"{api}: output_size must be set when filter_size is None")
        # the filter that maps the input size to output_size (Paddle's rule)
        if isinstance(padding, str):
            pads = [0] * (2 * nd)
        elif isinstance(padding, numbers.Integral):
            pads = [int(padding)] * (2 * nd)
        elif len(padding) == nd:
            pads = [int(p) for p in padding for _ in range(2)]
        else:
            pads = [int(p) for p in padding]
        spatial = input.shape[1:-1] if channel_last else input.shape[2:]
        if any(s < 0 for s in spatial):
            raise ValueError(f"{api}: the spatial dims of input{list(input.shape)} must be known to derive "
                             "filter_size from output_size")
        kernel = [(output_size[i] - (spatial[i] - 1) * stride_l[i] + pads[2 * i] + pads[2 * i + 1] - 1)
                  // dilation_l[i] + 1 for i in range(nd)]
        output_size = None   # the derived filter gives that size already, as in Paddle
    else:
        kernel = _int_list(filter_size, nd, "filter_size", api)
    prefix = layer_name(api, name)
    weight = param(api, prefix, [channels, num_filters // groups] + kernel, input.dtype, param_attr)
    bias = param(api, prefix, [num_filters], input.dtype, bias_attr, is_bias=True)
    conv = F.conv2d_transpose if nd == 2 else F.conv3d_transpose
    out = conv(input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups,
               output_size=output_size, data_format=data_format)
    return activate(out, act, api)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCHW"):
    """2-D transposed convolution with its own filter [C, num_filters / groups, kh, kw] and bias; filter_size may
    be derived from output_size."""
    return _conv_transpose(2, input, num_filters, output_size, filter_size, padding, stride, dilation, groups,
                           param_attr, bias_attr, act, name, data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1, dilation=1,
                     groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
                     data_format="NCDHW"):
    """3-D transposed convolution with its own filter [C, num_filters / groups, kd, kh, kw] and bias."""
    return _conv_transpose(3, input, num_filters, output_size, filter_size, padding, stride, dilation, groups,
                           param_attr, bias_attr, act, name, data_format)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype="float32"):
    """Rows of the table ``embedding_N.w_0`` [size[0], size[1]] picked by the integer ids ``input``."""
    from ...nn import functional as F
    api = "embedding"
    static_only(api)
    if not isinstance(input, Tensor):
        raise TypeError(f"{api}: input must be a Tensor (Variable), got {type(input).__name__}")
    if input.dtype.name not in ("int32", "int64", "uint8", "int16"):
        raise TypeError(f"{api}: input must hold integer ids (int32/int64), got {input.dtype.name}")
    if not isinstance(size, (list, tuple)) or len(size) != 2 or not all(
            isinstance(s, numbers.Integral) and s > 0 for s in size):
        raise ValueError(f"{api}: size must be [vocabulary size, embedding dim] of positive ints, got {size!r}")
    if padding_idx is not None and not -size[0] <= padding_idx < size[0]:
        raise ValueError(f"{api}: padding_idx must lie in [-{size[0]}, {size[0]}), got {padding_idx}")
    weight = param(api, layer_name(api), list(size), dtype, param_attr)
    return F.embedding(input, weight, padding_idx=padding_idx, sparse=bool(is_sparse))


def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """PReLU with its own alpha ``prelu_N.w_0``: [1] ('all'), one per channel ('channel'), or one per element of
    a sample ('element'); alpha starts at 0.25."""
    from ...nn.initializer import Constant
    api = "prelu"
    static_only(api)
    check_input(x, api, "x")
    if mode not in ("all", "channel", "element"):
        raise ValueError(f"{api}: mode must be 'all', 'channel' or 'element', got {mode!r}")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"{api}: data_format must be one of NC, NCL, NCHW, NCDHW, NLC, NHWC, NDHWC, got "
                         f"{data_format!r}")
    shape = list(x.shape)
    if mode == "all":
        alpha_shape = [1]
    elif mode == "channel":
        if len(shape) < 2:
            raise ValueError(f"{api}: mode 'channel' needs x of rank >= 2, got shape {shape}")
        channel_last = data_format in ("NLC", "NHWC", "NDHWC")
        alpha_shape = [1] * len(shape)
        alpha_shape[-1 if channel_last else 1] = shape[-1 if channel_last else 1]
    else:
        alpha_shape = [1] + shape[1:]
    if any(d < 0 for d in alpha_shape):
        raise ValueError(f"{api}: the dims of x{shape} that alpha covers in mode {mode!r} must be known")
    alpha = param(api, layer_name(api, name), alpha_shape, x.dtype, param_attr,
                  default_initializer=Constant(0.25))
    layout = data_format if len(shape) == 4 else ("NHWC" if data_format in ("NLC", "NHWC", "NDHWC") else "NCHW")
    return _ops.prelu(x, alpha, mode=mode, data_format=layout)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """out[:, k] = x W_k y^T + b_k with its own weight [size, M, N] and bias [1, size]."""
    api = "bilinear_tensor_product"
    static_only(api)
    check_input(x, api, "x", ranks=(2,))
    check_input(y, api, "y", ranks=(2,))
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size <= 0:
        raise ValueError(f"{api}: size must be a positive int, got {size!r}")
    if x.shape[1] < 0 or y.shape[1] < 0:
        raise ValueError(f"{api}: the second dims of x{x.shape} and y{y.shape} must be known")
    prefix = layer_name(api, name)
    weight = param(api, prefix, [size, x.shape[1], y.shape[1]], x.dtype, param_attr)
    bias = param(api, prefix, [1, size], x.dtype, bias_attr, is_bias=True)
    return activate(_ops.bilinear_tensor_product(x, y, weight, bias), act, api)
