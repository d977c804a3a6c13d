"""``paddle.static.nn.fc``: Paddle's static fully-connected layer (``mul`` ops, ``sum``, bias, activation)."""
import math

from ... import ops as _ops
from ...framework.tensor import Tensor
from ...utils import unique_name

__all__ = ["fc"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """``x`` (a Tensor or a list of them, each with its own weight ``fc_N.w_i``) flattened at
    ``num_flatten_dims``, times the weight, summed, plus the bias ``fc_N.b_0``, then ``activation``."""
    from ...nn.layer.layers import create_parameter_for
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
    prefix = name if name is not None else unique_name.generate("fc")
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
        weight = create_parameter_for([math.prod(inner), size], dtype, None, attr, False, None, "fc",
                                      name_prefix=prefix)
        products.append((_ops.mul(each, weight, x_num_col_dims=flatten, y_num_col_dims=1), flatten))
    out = products[0][0] if len(products) == 1 else _ops.sum([p for p, _ in products])
    bias = create_parameter_for([size], dtype, None, bias_attr, True, None, "fc", name_prefix=prefix)
    if bias is not None:
        out = _ops.elementwise_add(out, bias, axis=products[0][1])
    if activation is not None:
        act = getattr(_ops, activation, None) if isinstance(activation, str) else None
        if act is None:
            raise ValueError(f"fc: activation must be the name of an activation op (e.g. 'relu', 'tanh', "
                             f"'softmax'), got {activation!r}")
        out = act(out)
    return out
