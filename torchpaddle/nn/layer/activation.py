"""Activation layers. Most are a functional plus its arguments, so they are declared as data below."""
import inspect

from ...framework import dtype as _dtype
from ...framework.tensor import PaddleAssertionError
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

_EMPTY = inspect.Parameter.empty


class _Activation(Layer):
    """Stores ``_config`` (Paddle's argument names and defaults) as ``self._<arg>`` and calls
    ``F.<_fn>(x, <arg>=..., name=...)``; ``extra_repr`` is Paddle's ``arg=value, ..., name=...``."""
    _fn = None
    _config = ()
    _aliases = {}          # torch keyword -> Paddle keyword, accepted by Paddle 3
    _repr_formats = {}     # arg -> format spec (SELU prints 16 decimals)

    def __init__(self, *args, **kwargs):
        super().__init__()
        for alias, real in self._aliases.items():
            if alias in kwargs and real not in kwargs:
                kwargs[real] = kwargs.pop(alias)
        bound = self._init_signature.bind(*args, **kwargs)
        bound.apply_defaults()
        self._name = bound.arguments.pop("name")
        self._arg_names = tuple(bound.arguments)
        for key, value in bound.arguments.items():
            setattr(self, "_" + key, value)

    def _args(self):
        return {key: getattr(self, "_" + key) for key in self._arg_names}

    def forward(self, x=None, **kwargs):
        if "input" in kwargs and x is None:  # Paddle 3 also accepts torch's ``input=``
            x = kwargs.pop("input")
        if kwargs or x is None:
            raise TypeError(f"{type(self).__name__}.forward() takes one tensor argument x")
        return getattr(F, self._fn)(x, **self._args(), name=self._name)

    def extra_repr(self):
        parts = [f"{key}={format(value, self._repr_formats.get(key, ''))}" for key, value in self._args().items()]
        if self._name:
            parts.append(f"name={self._name}")
        return ", ".join(parts)


def _activation(cls_name, fn, config=(), aliases=None, repr_formats=None, doc=""):
    params = [inspect.Parameter(key, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default)
              for key, default in config]
    params.append(inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None))
    return type(cls_name, (_Activation,), {
        "_fn": fn, "_config": tuple(config), "_aliases": aliases or {}, "_repr_formats": repr_formats or {},
        "_init_signature": inspect.Signature(params), "__init__": _signed_init(params),
        "__doc__": doc or f"Layer form of nn.functional.{fn}.", "__module__": __name__})


def _signed_init(params):
    """An ``__init__`` that shows Paddle's signature to ``inspect`` (and is not inherited by subclasses)."""
    def __init__(self, *args, **kwargs):
        _Activation.__init__(self, *args, **kwargs)
    self_param = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    __init__.__signature__ = inspect.Signature([self_param] + params)
    return __init__


_SPECS = [
    ("CELU", "celu", [("alpha", 1.0)]),
    ("ELU", "elu", [("alpha", 1.0)]),
    ("GELU", "gelu", [("approximate", False)]),
    ("GLU", "glu", [("axis", -1)], {"dim": "axis"}),
    ("Hardshrink", "hardshrink", [("threshold", 0.5)], {"lambd": "threshold"}),
    ("Hardsigmoid", "hardsigmoid", []),
    ("Hardswish", "hardswish", []),
    ("Hardtanh", "hardtanh", [("min", -1.0), ("max", 1.0)]),
    ("LeakyReLU", "leaky_relu", [("negative_slope", 0.01)]),
    ("LogSigmoid", "log_sigmoid", []),
    ("LogSoftmax", "log_softmax", [("axis", -1)]),
    ("Maxout", "maxout", [("groups", _EMPTY), ("axis", 1)]),
    ("Mish", "mish", []),
    ("ReLU", "relu", []),
    ("ReLU6", "relu6", []),
    ("SELU", "selu", [("scale", 1.0507009873554805), ("alpha", 1.6732632423543772)], None,
     {"scale": ".16f", "alpha": ".16f"}),
    ("Sigmoid", "sigmoid", []),
    ("Softmax", "softmax", [("axis", -1)]),
    ("Softplus", "softplus", [("beta", 1), ("threshold", 20)]),
    ("Softshrink", "softshrink", [("threshold", 0.5)], {"lambd": "threshold"}),
    ("Softsign", "softsign", []),
    ("Swish", "swish", []),
    ("Tanh", "tanh", []),
    ("Tanhshrink", "tanhshrink", []),
    ("ThresholdedReLU", "thresholded_relu", [("threshold", 1.0), ("value", 0.0)]),
]

__all__ = [spec[0] for spec in _SPECS] + ["PReLU", "RReLU", "Silu", "SiLU", "Softmax2D"]
for _spec in _SPECS:
    globals()[_spec[0]] = _activation(*_spec)

# torch-style attribute names that Paddle 3 exposes on a few of them
GLU.dim = property(lambda self: self._axis, lambda self, v: setattr(self, "_axis", v))  # noqa: F821
for _cls in (Hardshrink, Softshrink):  # noqa: F821
    _cls.lambd = property(lambda self: self._threshold, lambda self, v: setattr(self, "_threshold", v))


class Silu(Layer):
    """x * sigmoid(x)."""

    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._inplace, self._name = inplace, name

    def forward(self, x):
        return F.silu(x, self._inplace, self._name)

    def extra_repr(self):
        return f"inplace={self._inplace}" + (f", name={self._name}" if self._name else "")


SiLU = Silu


class Softmax2D(Layer):
    """Softmax over the channel axis (-3) of a 3-D [C, H, W] or 4-D [N, C, H, W] input."""

    def __init__(self, name=None):
        super().__init__()
        self._dtype = None
        self._name = name

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise PaddleAssertionError(f"Softmax2D requires a 3-D or 4-D input, but received a {x.ndim}-D one "
                             f"(shape {list(x.shape)})")
        return F.softmax(x, axis=-3, dtype=self._dtype, name=self._name)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


class PReLU(Layer):
    """max(0, x) + weight * min(0, x), with ``num_parameters`` slopes (1, or one per channel)."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._num_parameters, self._init, self._weight_attr = num_parameters, init, weight_attr
        self._name, self._data_format = name, data_format
        self._weight = self.create_parameter(attr=weight_attr, shape=[num_parameters],
                                             dtype=_dtype.get_default_dtype(), is_bias=False,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, init={self._init}, "
                f"dtype={self._dtype}" + (f", name={self._name}" if self._name else ""))


class RReLU(Layer):
    """Randomized leaky ReLU: slopes drawn from U(lower, upper) in training, (lower + upper) / 2 in eval."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return (f"lower={self._lower}, upper={self._upper}, training={self.training}, dtype={self._dtype}"
                + (f", name={self._name}" if self._name else ""))
