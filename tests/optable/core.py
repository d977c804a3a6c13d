"""The op table's vocabulary. Imports only NumPy, so the conformance runner can load the same rows with
real PaddlePaddle as ``paddle``."""
import dataclasses
import typing

import numpy as np

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
NUMERIC = FLOATS + INTS
ALL = NUMERIC + ("bool",)


@dataclasses.dataclass
class T:
    """An argument that becomes a Tensor: ``data`` is float64/int64/bool, cast to the case's dtype unless
    ``dtype`` pins it (e.g. an index tensor)."""
    data: np.ndarray
    dtype: typing.Optional[str] = None
    stop_gradient: bool = True
    grad: bool = True          # take part in the gradient check (float inputs only)


@dataclasses.dataclass
class Sample:
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    note: str = ""


@dataclasses.dataclass
class Err:
    """A bad-input case: calling with these args must raise ``exc``."""
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    exc: type = ValueError
    note: str = ""


@dataclasses.dataclass
class OpCase:
    name: str                        # unique row id
    api: str                         # attribute path under paddle: "tanh", "linalg.norm", "Tensor.add_"
    ref: typing.Optional[typing.Callable] = None   # NumPy reference over numpy args; None: conformance only
    samples: typing.Callable = None  # rng, dtype -> list[Sample]
    dtypes: tuple = FLOATS
    grad: bool = True                # float64 finite-difference gradient check
    errors: tuple = ()               # Err cases (dtype-independent)
    rtol: float = 1e-5
    atol: float = 1e-6
    conformance: bool = True         # compare with real Paddle 3.3.1
    random: bool = False             # output is random: compare shape/dtype only
    post: typing.Optional[typing.Callable] = None  # applied to outputs of both sides before compare (e.g. sort)
    grad_eps: float = 1e-6


def rng_for(name, dtype):
    return np.random.default_rng(_stable_seed(name + dtype))


def _stable_seed(text):
    value = 0
    for ch in text:
        value = (value * 131 + ord(ch)) % (2 ** 31)
    return value


def data(rng, shape, dtype, low=-2.0, high=2.0):
    """Random data of a kind fitting ``dtype`` (kept as float64/int64/bool; cast later)."""
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("int") or dtype.startswith("uint"):
        return rng.integers(int(low) if low > -100 else -5, int(high) + 1 if high < 100 else 6, size=shape).astype(np.int64)
    return rng.uniform(low, high, size=shape)


def unary(shapes=((3, 4), (2, 3, 4), (), (5,)), low=-2.0, high=2.0, **kwargs):
    def make(rng, dtype):
        return [Sample((T(data(rng, s, dtype, low, high)),), dict(kwargs)) for s in shapes]
    return make


def binary(shapes=(((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))), low=-2.0, high=2.0,
           **kwargs):
    def make(rng, dtype):
        return [Sample((T(data(rng, a, dtype, low, high)), T(data(rng, b, dtype, low, high))), dict(kwargs))
                for a, b in shapes]
    return make


def reduction(shapes=((3, 4, 5),), axes=(None, 0, -1, (0, 2)), keepdims=(False, True), low=-2.0, high=2.0,
              extra=None):
    def make(rng, dtype):
        out = []
        for s in shapes:
            for axis in axes:
                for keep in keepdims:
                    kw = {"axis": list(axis) if isinstance(axis, tuple) else axis, "keepdim": keep}
                    kw.update(extra or {})
                    out.append(Sample((T(data(rng, s, dtype, low, high)),), kw))
        return out
    return make


def fixed(*samples):
    """Samples that are the same for every dtype (their T data is still cast to the dtype)."""
    def make(rng, dtype):
        return list(samples)
    return make
