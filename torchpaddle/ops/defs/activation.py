"""Activation ops (relu, gelu, softmax, prelu, maxout...) with Paddle's legacy op types and attributes."""
import torch
import torch.nn.functional as F

from ..registry import REGISTRY, REQUIRED, op
from .math_unary import dtype_error, float_input

_FLOAT = "float16, bfloat16, float32 and float64"


def float_only(op_type, X, slot="X"):
    """Paddle registers these kernels for float dtypes only; anything else is a missing kernel."""
    if not X.is_floating_point():
        raise dtype_error(op_type, slot, X.dtype, _FLOAT)


def check_axis(op_type, axis, ndim, name="axis"):
    rank = max(ndim, 1)
    if not -rank <= axis < rank:
        raise ValueError(f"{op_type}: {name}={axis} is out of range [{-rank}, {rank - 1}] for a {ndim}-D input")
    return axis % rank


def _clamp(X, low, high):
    # hardtanh's gradient is zero on the boundaries, as Paddle's is; torch.clamp passes it there.
    return F.hardtanh(X, low, high) if low <= high else torch.clamp(X, low, high)


def _selu(X, scale, alpha):
    return scale * torch.where(X > 0, X, alpha * torch.expm1(X))


def _hard_swish(X, threshold, scale, offset):
    if threshold == 6.0 and scale == 6.0 and offset == 3.0:
        return F.hardswish(X)
    return X * torch.clamp(X + offset, 0.0, threshold) / scale


def _mish(X, threshold):
    return F.mish(X) if threshold == 20.0 else X * torch.tanh(F.softplus(X, 1.0, threshold))


def _swish(X, beta):
    return F.silu(X) if beta == 1.0 else X * torch.sigmoid(beta * X)


# (op type, attrs, fn(X, *attr values in order)); every kernel takes float input only.
_ELEMENTWISE = [
    ("relu", {}, torch.relu),
    ("relu6", {"threshold": 6.0}, lambda X, t: _clamp(X, 0.0, t)),
    ("leaky_relu", {"alpha": 0.02}, F.leaky_relu),
    ("elu", {"alpha": 1.0}, F.elu),
    ("selu", {"scale": 1.0507009873554805, "alpha": 1.6732632423543772}, _selu),
    ("celu", {"alpha": 1.0}, F.celu),
    ("gelu", {"approximate": False}, lambda X, a: F.gelu(X, approximate="tanh" if a else "none")),
    ("hard_shrink", {"threshold": 0.5}, F.hardshrink),
    # NOTE: the legacy attribute is called ``lambda`` (a Python keyword: the entry point's ``lambda_``); Paddle's
    # phi kernel and PIR op call it threshold.
    ("softshrink", {"lambda": 0.5}, F.softshrink),
    ("hard_sigmoid", {"slope": 0.2, "offset": 0.5}, lambda X, s, o: _clamp(X * s + o, 0.0, 1.0)),
    ("hard_swish", {"threshold": 6.0, "scale": 6.0, "offset": 3.0}, _hard_swish),
    ("brelu", {"t_min": 0.0, "t_max": 24.0}, _clamp),
    ("thresholded_relu", {"threshold": 1.0, "value": 0.0}, lambda X, t, v: torch.where(X > t, X, v)),
    ("logsigmoid", {}, F.logsigmoid),
    ("softsign", {}, F.softsign),
    ("softplus", {"beta": 1.0, "threshold": 20.0}, F.softplus),
    ("swish", {"beta": 1.0}, _swish),
    ("silu", {}, F.silu),
    ("mish", {"threshold": 20.0}, _mish),
    ("tanh_shrink", {}, F.tanhshrink),
]


def _register_elementwise(op_type, attrs, fn):
    names = list(attrs)
    if not names:
        def kernel(X):
            if X.is_floating_point():
                return fn(X)
            raise dtype_error(op_type, "X", X.dtype, _FLOAT)
    else:
        def kernel(X, **kw):
            if X.is_floating_point():
                return fn(X, *[kw[n] for n in names])
            raise dtype_error(op_type, "X", X.dtype, _FLOAT)
    kernel.__name__ = op_type
    op(op_type, attrs=attrs, spmd="elementwise")(kernel)


for _type, _attrs, _fn in _ELEMENTWISE:
    _register_elementwise(_type, _attrs, _fn)


def _relu_grad(Out, Out_grad):
    # As Paddle's relu_grad, from Out (a grad op run on its own needs no recompute of the forward).
    return {"X": Out_grad * (Out > 0)}


REGISTRY["relu"].grad(uses=["Out"], autograd=False)(_relu_grad)


@op("sigmoid", spmd="elementwise")
def sigmoid(X):
    # NOTE: unlike the other activations, Paddle's sigmoid casts integer input to the default float dtype.
    if X.is_floating_point():
        return torch.sigmoid(X)
    return torch.sigmoid(float_input("sigmoid", X))


@op("softmax", attrs={"axis": -1}, spmd="softmax")
def softmax(X, *, axis):
    if not X.is_floating_point():
        raise dtype_error("softmax", "X", X.dtype, _FLOAT)
    return torch.softmax(X, check_axis("softmax", axis, X.dim()))


@op("log_softmax", attrs={"axis": -1}, spmd="softmax")
def log_softmax(X, *, axis):
    if not X.is_floating_point():
        raise dtype_error("log_softmax", "X", X.dtype, _FLOAT)
    return torch.log_softmax(X, check_axis("log_softmax", axis, X.dim()))


@op("prelu", inputs=["X", "Alpha"], attrs={"mode": "all", "data_format": "NCHW"})
def prelu(X, Alpha, *, mode, data_format):
    float_only("prelu", X)
    if Alpha.dtype is not X.dtype:
        raise ValueError(f"prelu: Alpha has dtype {Alpha.dtype} but X has {X.dtype}; they must match")
    if mode == "all":
        if Alpha.numel() != 1:
            raise ValueError(f"prelu: mode 'all' needs one Alpha value, got shape {list(Alpha.shape)}")
        alpha = Alpha.reshape([])
    elif mode == "channel":
        if X.dim() < 2:
            raise ValueError(f"prelu: mode 'channel' needs X of rank >= 2, got shape {list(X.shape)}")
        channel = X.dim() - 1 if data_format in ("NHWC", "NLC", "NDHWC") else 1
        if Alpha.numel() != X.shape[channel]:
            raise ValueError(f"prelu: Alpha{list(Alpha.shape)} must hold one value per channel of "
                             f"X{list(X.shape)} (data_format={data_format})")
        shape = [1] * X.dim()
        shape[channel] = -1
        alpha = Alpha.reshape(shape)
    elif mode == "element":
        per_sample = X[0].numel() if X.dim() else 1
        if Alpha.numel() != per_sample:
            raise ValueError(f"prelu: mode 'element' needs Alpha with {per_sample} values for X{list(X.shape)}")
        alpha = Alpha.reshape([1] + list(X.shape[1:]))
    else:
        raise ValueError(f"prelu: mode must be 'all', 'channel' or 'element', got {mode!r}")
    return torch.where(X > 0, X, alpha * X)


@op("rrelu", outputs=["Out", "Noise"], attrs={"lower": 1.0 / 8.0, "upper": 1.0 / 3.0, "is_test": False})
def rrelu(X, *, lower, upper, is_test):
    float_only("rrelu", X)
    if is_test:
        noise = torch.where(X >= 0, torch.ones_like(X), torch.full_like(X, (lower + upper) / 2.0))
    else:
        noise = torch.empty_like(X).uniform_(lower, upper)
        noise = torch.where(X >= 0, torch.ones_like(X), noise)
    noise = noise.detach()
    return X * noise, noise


@rrelu.grad(uses=["Noise"], autograd=False)
def rrelu_grad(Noise, Out_grad, Noise_grad, *, lower, upper, is_test):
    # As Paddle's rrelu_grad, from the Noise (the slopes) the forward drew: a recompute would draw others.
    return None if Out_grad is None else {"X": Out_grad * Noise}


@op("maxout", attrs={"groups": REQUIRED, "axis": 1})
def maxout(X, *, groups, axis):
    float_only("maxout", X)
    if X.dim() != 4:
        raise ValueError(f"maxout: X must be 4-D, got shape {list(X.shape)}")
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    axis = axis % 4
    channels = X.shape[axis]
    if groups <= 0 or channels % groups:
        raise ValueError(f"maxout: the channels of X{list(X.shape)} on axis {axis} must be divisible by "
                         f"groups={groups}")
    shape = list(X.shape)
    shape[axis:axis + 1] = [channels // groups, groups]
    return X.reshape(shape).amax(axis + 1)


@op("gumbel_softmax", attrs={"temperature": 1.0, "hard": False, "axis": -1})
def gumbel_softmax(X, *, temperature, hard, axis):
    float_only("gumbel_softmax", X)
    if not temperature > 0:
        raise ValueError(f"gumbel_softmax: temperature must be greater than 0, got {temperature}")
    axis = check_axis("gumbel_softmax", axis, X.dim())
    uniform = torch.rand_like(X).clamp_(min=torch.finfo(X.dtype).tiny)
    gumbel = -torch.log(-torch.log(uniform))
    soft = torch.softmax((X + gumbel) / temperature, axis)
    if not hard:
        return soft
    index = soft.argmax(axis, keepdim=True)
    one_hot = torch.zeros_like(soft).scatter_(axis, index, 1.0)
    # Straight-through: the forward value is one-hot, the gradient that of the soft sample.
    return one_hot - soft.detach() + soft
