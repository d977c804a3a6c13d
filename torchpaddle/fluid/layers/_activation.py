"""fluid.layers' activations and element-wise math: one op each, with fluid's attribute names and defaults."""
import numbers

from ... import ops as _ops
from ._helper import check_variable, layer_prefix, tmp_names

# op type -> fluid's defaults of its attributes (fluid's argument names are the op's attribute names)
_FAMILY = {
    "relu": {}, "sigmoid": {}, "exp": {}, "abs": {}, "sqrt": {}, "rsqrt": {}, "ceil": {}, "floor": {}, "cos": {},
    "acos": {}, "asin": {}, "sin": {}, "atan": {}, "round": {}, "reciprocal": {}, "square": {}, "log": {},
    "erf": {}, "sign": {}, "tanh": {}, "tanh_shrink": {}, "logsigmoid": {}, "softsign": {},
    "relu6": {"threshold": 6.0}, "brelu": {"t_min": 0.0, "t_max": 24.0}, "elu": {"alpha": 1.0},
    "leaky_relu": {"alpha": 0.02}, "hard_sigmoid": {"slope": 0.2, "offset": 0.5},
    "hard_swish": {"threshold": 6.0, "scale": 6.0, "offset": 3.0}, "stanh": {"scale_a": 0.67, "scale_b": 1.7159},
}

__all__ = sorted(_FAMILY) + ["swish", "selu", "softplus", "soft_relu", "gelu", "hard_shrink", "softshrink",
                             "thresholded_relu", "softmax", "log_softmax", "cumsum", "maxout", "mish"]


def _unary(op_type, defaults):
    kernel = getattr(_ops, op_type)
    names = list(defaults)

    def layer(x, *args, name=None, **kwargs):
        check_variable(x, op_type, "x")
        attrs = dict(defaults)
        if len(args) > len(names):
            raise TypeError(f"{op_type}() takes at most {len(names) + 1} positional arguments")
        attrs.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in attrs:
                raise TypeError(f"{op_type}() got an unexpected keyword argument {key!r}")
            attrs[key] = value
        for key, value in attrs.items():
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{op_type}: {key} must be a float, got {value!r}")
        with tmp_names(layer_prefix(op_type, name)):
            return kernel(x, **{k: float(v) for k, v in attrs.items()})
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = f"fluid.layers.{op_type}({', '.join(['x'] + [f'{k}={v}' for k, v in defaults.items()])})."
    return layer


for _type, _defaults in _FAMILY.items():
    globals()[_type] = _unary(_type, _defaults)


def swish(x, beta=1.0, name=None):
    """x * sigmoid(x). NOTE: Paddle 1.8's fluid.layers.swish passes ``beta`` under a name its op ignores, so
    legacy code always got beta = 1; this keeps those results (paddle.nn.functional.swish is the 2.x one)."""
    check_variable(x, "swish", "x")
    with tmp_names(layer_prefix("swish", name)):
        return _ops.swish(x, beta=1.0)


def selu(x, scale=None, alpha=None, name=None):
    check_variable(x, "selu", "x")
    return _ops.selu(x, scale=1.0507009873554805 if scale is None else float(scale),
                     alpha=1.6732632423543772 if alpha is None else float(alpha))


def softplus(x, name=None):
    check_variable(x, "softplus", "x")
    return _ops.softplus(x, beta=1.0, threshold=20.0)


def soft_relu(x, threshold=40.0, name=None):
    """log(1 + exp(clip(x, -threshold, threshold))) (the Paddle 1.x ``soft_relu`` op)."""
    check_variable(x, "soft_relu", "x")
    with tmp_names(layer_prefix("soft_relu", name)):
        return _ops.soft_relu(x, threshold=float(threshold))


def gelu(x, approximate=False):
    check_variable(x, "gelu", "x")
    return _ops.gelu(x, approximate=bool(approximate))


def hard_shrink(x, threshold=None):
    check_variable(x, "hard_shrink", "x")
    return _ops.hard_shrink(x, threshold=0.5 if threshold is None else float(threshold))


def softshrink(x, alpha=None):
    check_variable(x, "softshrink", "x")
    return _ops.softshrink(x, lambda_=0.5 if alpha is None else float(alpha))


def thresholded_relu(x, threshold=None):
    check_variable(x, "thresholded_relu", "x")
    return _ops.thresholded_relu(x, threshold=1.0 if threshold is None else float(threshold), value=0.0)


def softmax(input, use_cudnn=False, name=None, axis=-1):
    check_variable(input, "softmax", "input")
    with tmp_names(layer_prefix("softmax", name)):
        return _ops.softmax(input, axis=int(axis))


def log_softmax(input, axis=None, dtype=None, name=None):
    check_variable(input, "log_softmax", "input")
    if dtype is not None:
        from ... import tensor as _T
        input = _T.cast(input, dtype)
    return _ops.log_softmax(input, axis=-1 if axis is None else int(axis))


def cumsum(x, axis=None, exclusive=None, reverse=None):
    """Cumulative sum along ``axis``. NOTE: fluid's axis=None means the last axis (not the flattened input)."""
    check_variable(x, "cumsum", "x")
    return _ops.cumsum(x, axis=-1 if axis is None else int(axis), flatten=False, exclusive=bool(exclusive),
                       reverse=bool(reverse))


def maxout(x, groups, name=None, axis=1):
    check_variable(x, "maxout", "x")
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis!r}")
    with tmp_names(layer_prefix("maxout", name)):
        return _ops.maxout(x, groups=int(groups), axis=int(axis))


def mish(x, threshold=20, name=None):
    check_variable(x, "mish", "x")
    return _ops.mish(x, threshold=float(threshold))
