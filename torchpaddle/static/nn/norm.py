"""``paddle.static.nn`` normalisation layers with parameters: batch_norm, layer_norm, group_norm, instance_norm,
spectral_norm. Parameter names, shapes and defaults follow Paddle 3.3.1's legacy static builders."""
import math

from ... import ops as _ops
from ...framework.mode import STATE as _MODE
from ...framework.param_attr import ParamAttr
from ...framework.tensor import Tensor
from .common import activate, check_input, layer_name, param, static_only

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "spectral_norm"]


def _param_dtype(x):
    # as in Paddle: float16 inputs keep float32 parameters
    return "float32" if x.dtype.name == "float16" else x.dtype


def _channels(x, layout, api):
    if layout not in ("NCHW", "NHWC"):
        raise ValueError(f"{api}: data_layout must be 'NCHW' or 'NHWC', got {layout!r}")
    c = x.shape[1] if layout == "NCHW" else x.shape[-1]
    if c < 0:
        raise ValueError(f"{api}: the channel dimension of input{list(x.shape)} must be known")
    return c


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None, bias_attr=None,
               data_layout="NCHW", in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalisation with scale ``batch_norm_N.w_0``, bias ``.b_0`` and the moving mean/variance ``.w_1`` /
    ``.w_2`` (persistable, not trainable), which the op's MeanOut/VarianceOut update in training."""
    from ...nn.initializer import Constant
    api = "batch_norm"
    static_only(api)
    check_input(input, api)
    if len(input.shape) < 2:
        raise ValueError(f"{api}: input must be at least 2-D, got shape {list(input.shape)}")
    channels = _channels(input, data_layout, api)
    prefix = layer_name(api, name)
    dtype = _param_dtype(input)
    scale = param(api, prefix, [channels], dtype, param_attr, default_initializer=Constant(1.0))
    bias = param(api, prefix, [channels], dtype, bias_attr, is_bias=True)
    average = bool(do_model_average_for_mean_and_var)
    mean = param(api, prefix, [channels], dtype, ParamAttr(name=moving_mean_name, initializer=Constant(0.0),
                                                           trainable=False, do_model_average=average))
    variance = param(api, prefix, [channels], dtype, ParamAttr(name=moving_variance_name, initializer=Constant(1.0),
                                                               trainable=False, do_model_average=average))
    outs = _ops.batch_norm(input, scale, bias, mean, variance, momentum=float(momentum), epsilon=float(epsilon),
                           data_layout=data_layout, is_test=bool(is_test), use_global_stats=bool(use_global_stats),
                           trainable_statistics=False, fuse_with_relu=False)
    if _MODE.static:
        # as in Paddle's program, MeanOut/VarianceOut are the moving statistics themselves (updated in place)
        op = mean.block.program.current_block().ops[-1]
        for slot, stat, tmp in (("MeanOut", mean, outs[1]), ("VarianceOut", variance, outs[2])):
            op.outputs[slot] = [stat.name]
            tmp.block._remove_var(tmp.name)
    return activate(outs[0], act, api)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None, bias_attr=None,
               act=None, name=None):
    """Layer normalisation over the dims from ``begin_norm_axis``, with scale ``layer_norm_N.w_0`` and bias
    ``.b_0`` of their flattened size (when ``scale`` / ``shift``)."""
    from ...nn.initializer import Constant
    api = "layer_norm"
    static_only(api)
    check_input(input, api)
    shape = list(input.shape)
    if not 0 < begin_norm_axis < len(shape):
        raise ValueError(f"{api}: begin_norm_axis must be in [1, {len(shape) - 1}] for input{shape}, got "
                         f"{begin_norm_axis}")
    inner = shape[begin_norm_axis:]
    if any(d < 0 for d in inner):
        raise ValueError(f"{api}: the dims of input{shape} from begin_norm_axis={begin_norm_axis} must be known")
    prefix = layer_name(api, name)
    dtype = _param_dtype(input)
    size = [math.prod(inner)]
    weight = param(api, prefix, size, dtype, param_attr, default_initializer=Constant(1.0)) if scale else None
    bias = param(api, prefix, size, dtype, bias_attr, is_bias=True) if shift else None
    out = _ops.layer_norm(input, weight, bias, epsilon=float(epsilon), begin_norm_axis=int(begin_norm_axis))[0]
    return activate(out, act, api)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None, data_layout="NCHW",
               name=None):
    """Group normalisation. NOTE: as in Paddle 3.3.1, the scale/bias parameters exist only when param_attr /
    bias_attr is given (a ParamAttr); None means none."""
    from ...nn.initializer import Constant
    api = "group_norm"
    static_only(api)
    check_input(input, api)
    if len(input.shape) < 2:
        raise ValueError(f"{api}: input must be at least 2-D, got shape {list(input.shape)}")
    channels = _channels(input, data_layout, api)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0 or channels % groups:
        raise ValueError(f"{api}: groups must be a positive int dividing the {channels} channels, got {groups!r}")
    prefix = layer_name(api, name)
    dtype = _param_dtype(input)
    scale = param(api, prefix, [channels], dtype, param_attr, default_initializer=Constant(1.0)) \
        if param_attr else None
    bias = param(api, prefix, [channels], dtype, bias_attr, is_bias=True) if bias_attr else None
    out = _ops.group_norm(input, scale, bias, epsilon=float(epsilon), groups=groups, data_layout=data_layout)[0]
    return activate(out, act, api)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalisation. NOTE: as in Paddle 3.3.1, scale and bias exist only when both param_attr and
    bias_attr are given."""
    from ...nn.initializer import Constant
    api = "instance_norm"
    static_only(api)
    check_input(input, api)
    if not 2 <= len(input.shape) <= 5:
        raise ValueError(f"{api}: expected 2-D to 5-D input, got shape {list(input.shape)}")
    channels = input.shape[1]
    prefix = layer_name(api, name)
    scale = bias = None
    if param_attr and bias_attr:
        dtype = _param_dtype(input)
        scale = param(api, prefix, [channels], dtype, param_attr, default_initializer=Constant(1.0))
        bias = param(api, prefix, [channels], dtype, bias_attr, is_bias=True)
    return _ops.instance_norm(input, scale, bias, epsilon=float(epsilon))[0]


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """``weight`` divided by its largest singular value, estimated by power iteration from the persistable
    vectors ``spectral_norm_N.w_0`` [h] and ``.w_1`` [w] (normal(0, 1), not trainable)."""
    from ...nn.initializer import Normal
    api = "spectral_norm"
    static_only(api)
    if not isinstance(weight, Tensor):
        raise TypeError(f"{api}: weight must be a Tensor (Variable), got {type(weight).__name__}")
    if weight.dtype.name not in ("float32", "float64"):
        raise TypeError(f"{api}: weight must be float32 or float64, got {weight.dtype.name}")
    shape = list(weight.shape)
    if len(shape) < 2 or any(d < 0 for d in shape):
        raise ValueError(f"{api}: weight must be at least 2-D with known dims, got shape {shape}")
    if not isinstance(dim, int) or not -len(shape) <= dim < len(shape):
        raise ValueError(f"{api}: dim must be an int in [{-len(shape)}, {len(shape)}), got {dim!r}")
    if not isinstance(power_iters, int) or power_iters < 0:
        raise ValueError(f"{api}: power_iters must be a non-negative int, got {power_iters!r}")
    h = shape[dim]
    w = math.prod(shape) // h
    prefix = layer_name(api, name)
    vectors = [param(api, prefix, [n], weight.dtype, ParamAttr(initializer=Normal(0.0, 1.0), trainable=False))
               for n in (h, w)]
    return _ops.spectral_norm(weight, vectors[0], vectors[1], dim=dim, power_iters=power_iters, eps=float(eps))
