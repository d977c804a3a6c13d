"""Transforms (bijections and friends) with forward/inverse, log-det-Jacobians and shape maps.

A subclass overrides ``_forward``/``_inverse`` and one of ``_forward_log_det_jacobian``/
``_inverse_log_det_jacobian`` (the other follows), plus ``_domain``/``_codomain`` when events are not scalars.
Those hooks take and return Paddle Tensors, so user subclasses can write them with Paddle ops.
"""
import enum
import math
import typing

import torch
import torch.nn.functional as F

from ..framework.tensor import Tensor, wrap
from . import _util

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform", "IndependentTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform", "StackTransform",
           "StickBreakingTransform", "TanhTransform"]


class Type(enum.Enum):
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type):
        return _type in (cls.BIJECTION, cls.INJECTION)


class _Space:
    """A transform's domain or codomain: only how many rightmost dims make one event matters here."""
    __slots__ = ("event_rank", "is_discrete")

    def __init__(self, event_rank=0, is_discrete=False):
        self.event_rank, self.is_discrete = event_rank, is_discrete


def _independent(space, rank):
    return _Space(space.event_rank + rank, space.is_discrete)


def _stack(spaces, axis):
    rank = max(s.event_rank for s in spaces)
    return _Space(rank + 1 if axis + rank < 0 else rank, any(s.is_discrete for s in spaces))


_REAL = _Space()


def _tensor(x, api, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: expected '{name}' to be a Tensor, got {type(x).__name__}")
    return _util.eager(x, api)


def _sum_rightmost(x, n):
    return wrap(_util.sum_rightmost(x._t, n)) if n > 0 else x


class Transform:
    """The base transform: an injection unless a subclass says otherwise."""
    _type = Type.INJECTION

    def __init__(self):
        super().__init__()

    @classmethod
    def _is_injective(cls):
        return Type.is_injective(cls._type)

    def __call__(self, input):
        from .distribution import Distribution
        if isinstance(input, Distribution):
            from .transformed_distribution import TransformedDistribution
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check(self, x, space, api, name):
        x = _tensor(x, f"{type(self).__name__}.{api}", name)
        if x.ndim < space.event_rank:
            raise ValueError(f"{type(self).__name__}.{api}: the dimensions of {name}({x.ndim}) should be greater "
                             f"than or equal to {space.event_rank}")
        return x

    def forward(self, x):
        return self._forward(self._check(x, self._domain, "forward", "x"))

    def inverse(self, y):
        return self._inverse(self._check(y, self._codomain, "inverse", "y"))

    def forward_log_det_jacobian(self, x):
        x = self._check(x, self._domain, "forward_log_det_jacobian", "x")
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__}: forward_log_det_jacobian can't be implemented for "
                                      "non-injective transforms.")
        return self._call_forward_log_det_jacobian(x)

    def inverse_log_det_jacobian(self, y):
        return self._call_inverse_log_det_jacobian(self._check(y, self._codomain, "inverse_log_det_jacobian", "y"))

    def forward_shape(self, shape):
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"{type(self).__name__}.forward_shape: expected shape to be a Sequence[int], got "
                            f"{type(shape).__name__}")
        return self._forward_shape(shape)

    def inverse_shape(self, shape):
        if not isinstance(shape, typing.Sequence):
            raise TypeError(f"{type(self).__name__}.inverse_shape: expected shape to be a Sequence[int], got "
                            f"{type(shape).__name__}")
        return self._inverse_shape(shape)

    @property
    def _domain(self):
        return _REAL

    @property
    def _codomain(self):
        return _REAL

    def _forward(self, x):
        raise NotImplementedError("Forward not implemented")

    def _inverse(self, y):
        raise NotImplementedError("Inverse not implemented")

    def _call_forward_log_det_jacobian(self, x):
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return -self._inverse_log_det_jacobian(self.forward(x))
        raise NotImplementedError("Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian is implemented. "
                                  "One of them is required.")

    def _call_inverse_log_det_jacobian(self, y):
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        if hasattr(self, "_forward_log_det_jacobian"):
            return -self._forward_log_det_jacobian(self._inverse(y))
        raise NotImplementedError("Neither _forward_log_det_jacobian nor _inverse_log_det_jacobian is implemented. "
                                  "One of them is required.")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|; not injective, so the inverse is the pair (-y, y)."""
    _type = Type.SURJECTION

    def _forward(self, x):
        return wrap(x._t.abs())

    def _inverse(self, y):
        return wrap(-y._t), y

    def _inverse_log_det_jacobian(self, y):
        zero = wrap(torch.zeros((), dtype=y._t.dtype, device=y._t.device))
        return zero, zero

    @property
    def _codomain(self):
        return _REAL


class AffineTransform(Transform):
    """y = loc + scale * x."""
    _type = Type.BIJECTION

    def __init__(self, loc, scale):
        self._loc = _tensor(loc, "AffineTransform", "loc")
        self._scale = _tensor(scale, "AffineTransform", "scale")
        super().__init__()

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _forward(self, x):
        return wrap(self._loc._t + self._scale._t * x._t)

    def _inverse(self, y):
        return wrap((y._t - self._loc._t) / self._scale._t)

    def _forward_log_det_jacobian(self, x):
        return wrap(torch.abs(self._scale._t).log())

    def _forward_shape(self, shape):
        return _util.broadcast_shapes("AffineTransform", tuple(shape), self._loc._t.shape, self._scale._t.shape)

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition of ``transforms``, applied first to last."""

    def __init__(self, transforms):
        if not isinstance(transforms, typing.Sequence):
            raise TypeError(f"ChainTransform: expected 'transforms' to be a Sequence, got {type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("ChainTransform: all elements of transforms should be Transform type.")
        self.transforms = transforms
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self.transforms)

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value, event_rank = 0.0, self._domain.event_rank
        for t in self.transforms:
            value = value + _sum_rightmost(t.forward_log_det_jacobian(x), event_rank - t._domain.event_rank)
            x = t.forward(x)
            event_rank += t._codomain.event_rank - t._domain.event_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape

    @property
    def _domain(self):
        domain = self.transforms[0]._domain
        event_rank = self.transforms[-1]._codomain.event_rank
        for t in reversed(self.transforms):
            event_rank -= t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._domain.event_rank)
        return _independent(domain, event_rank - domain.event_rank)

    @property
    def _codomain(self):
        codomain = self.transforms[-1]._codomain
        event_rank = self.transforms[0]._domain.event_rank
        for t in self.transforms:
            event_rank += t._codomain.event_rank - t._domain.event_rank
            event_rank = max(event_rank, t._codomain.event_rank)
        return _independent(codomain, event_rank - codomain.event_rank)


class ExpTransform(Transform):
    """y = exp(x)."""
    _type = Type.BIJECTION

    def _forward(self, x):
        return wrap(x._t.exp())

    def _inverse(self, y):
        return wrap(y._t.log())

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """``base`` with its ``reinterpreted_batch_rank`` rightmost batch dims read as event dims (the
    log-det-Jacobian sums over them)."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: expected 'base' to be a Transform, got {type(base).__name__}")
        if reinterpreted_batch_rank <= 0:
            raise ValueError(f"IndependentTransform: expected 'reinterpreted_batch_rank' to be greater than zero, "
                             f"got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__()

    def _is_injective(self):
        return self._base._is_injective()

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return _sum_rightmost(self._base.forward_log_det_jacobian(x), self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)

    @property
    def _domain(self):
        return _independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self):
        return _independent(self._base._codomain, self._reinterpreted_batch_rank)


class PowerTransform(Transform):
    """y = x ** power."""
    _type = Type.BIJECTION

    def __init__(self, power):
        self._power = _tensor(power, "PowerTransform", "power")
        super().__init__()

    @property
    def power(self):
        return self._power

    def _forward(self, x):
        return wrap(x._t.pow(self._power._t))

    def _inverse(self, y):
        return wrap(y._t.pow(1 / self._power._t))

    def _forward_log_det_jacobian(self, x):
        p = self._power._t
        return wrap((p * x._t.pow(p - 1)).abs().log())

    def _forward_shape(self, shape):
        return _util.broadcast_shapes("PowerTransform", tuple(shape), self._power._t.shape)

    _inverse_shape = _forward_shape


class ReshapeTransform(Transform):
    """Reshapes the event from ``in_event_shape`` to ``out_event_shape`` (same number of elements)."""
    _type = Type.BIJECTION

    def __init__(self, in_event_shape, out_event_shape):
        if not isinstance(in_event_shape, typing.Sequence) or not isinstance(out_event_shape, typing.Sequence):
            raise TypeError(f"ReshapeTransform: expected 'in_event_shape' and 'out_event_shape' to be "
                            f"Sequence[int], got {in_event_shape!r} and {out_event_shape!r}")
        if math.prod(in_event_shape) != math.prod(out_event_shape):
            raise ValueError(f"ReshapeTransform: the numel of 'in_event_shape' should equal that of "
                             f"'out_event_shape', got {math.prod(in_event_shape)} != {math.prod(out_event_shape)}")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)
        super().__init__()

    @property
    def in_event_shape(self):
        return self._in_event_shape

    @property
    def out_event_shape(self):
        return self._out_event_shape

    @property
    def _domain(self):
        return _Space(len(self._in_event_shape))

    @property
    def _codomain(self):
        return _Space(len(self._out_event_shape))

    @staticmethod
    def _reshape(x, old, new):
        t = x._t
        try:
            return wrap(t.reshape(tuple(t.shape[:t.dim() - len(old)]) + new))
        except RuntimeError:
            raise ValueError(f"ReshapeTransform: cannot reshape the event of shape {list(t.shape)} from "
                             f"{list(old)} to {list(new)}") from None

    def _forward(self, x):
        return self._reshape(x, self._in_event_shape, self._out_event_shape)

    def _inverse(self, y):
        return self._reshape(y, self._out_event_shape, self._in_event_shape)

    @staticmethod
    def _map_shape(shape, old, new, api):
        if len(shape) < len(old):
            raise ValueError(f"ReshapeTransform.{api}: expected the length of 'shape' to be at least {len(old)}, "
                             f"got {len(shape)}")
        if tuple(shape[len(shape) - len(old):]) != old:
            raise ValueError(f"ReshapeTransform.{api}: event shape mismatch, expected {old}, got "
                             f"{tuple(shape[len(shape) - len(old):])}")
        return tuple(shape[:len(shape) - len(old)]) + new

    def _forward_shape(self, shape):
        return self._map_shape(shape, self._in_event_shape, self._out_event_shape, "forward_shape")

    def _inverse_shape(self, shape):
        return self._map_shape(shape, self._out_event_shape, self._in_event_shape, "inverse_shape")

    def _forward_log_det_jacobian(self, x):
        t = x._t
        return wrap(torch.zeros(t.shape[:t.dim() - len(self._in_event_shape)], dtype=t.dtype, device=t.device))


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""

    def _forward(self, x):
        return wrap(torch.sigmoid(x._t))

    def _inverse(self, y):
        return wrap(y._t.log() - (-y._t).log1p())

    def _forward_log_det_jacobian(self, x):
        return wrap(-F.softplus(-x._t) - F.softplus(x._t))


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis; not injective, so no log-det-Jacobian."""
    _type = Type.OTHER

    @property
    def _domain(self):
        return _Space(1)

    @property
    def _codomain(self):
        return _Space(1)

    def _forward(self, x):
        e = (x._t - x._t.max(-1, keepdim=True).values).exp()
        return wrap(e / e.sum(-1, keepdim=True))

    def _inverse(self, y):
        return wrap(y._t.log())

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError(f"SoftmaxTransform: expected the length of shape to be at least 1, got {len(shape)}")
        return shape

    _inverse_shape = _forward_shape


class StackTransform(Transform):
    """Applies ``transforms[i]`` to slice i along ``axis``."""

    def __init__(self, transforms, axis=0):
        if not transforms or not isinstance(transforms, typing.Sequence):
            raise TypeError(f"StackTransform: expected 'transforms' to be a non-empty Sequence[Transform], got "
                            f"{transforms!r}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("StackTransform: expected every element of transforms to be a Transform.")
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"StackTransform: expected 'axis' to be an int, got {type(axis).__name__}")
        self._transforms = transforms
        self._axis = axis
        super().__init__()

    def _is_injective(self):
        return all(t._is_injective() for t in self._transforms)

    @property
    def transforms(self):
        return self._transforms

    @property
    def axis(self):
        return self._axis

    def _map(self, v, method):
        t = v._t
        if not -t.dim() <= self._axis < t.dim():
            raise ValueError(f"StackTransform: input dimensions {t.dim()} should be greater than stack transform "
                             f"axis {self._axis}.")
        if t.shape[self._axis] != len(self._transforms):
            raise ValueError(f"StackTransform: input size along axis {self._axis} ({t.shape[self._axis]}) should "
                             f"equal the number of transforms ({len(self._transforms)}).")
        parts = [getattr(tr, method)(wrap(s))._t for s, tr in zip(t.unbind(self._axis), self._transforms)]
        try:
            return wrap(torch.stack(parts, self._axis))
        except RuntimeError:
            raise ValueError(f"StackTransform.{method}: the transforms gave shapes "
                             f"{[list(p.shape) for p in parts]}, which cannot be stacked") from None

    def _forward(self, x):
        return self._map(x, "forward")

    def _inverse(self, y):
        return self._map(y, "inverse")

    def _forward_log_det_jacobian(self, x):
        return self._map(x, "forward_log_det_jacobian")

    @property
    def _domain(self):
        return _stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self):
        return _stack([t._codomain for t in self._transforms], self._axis)


def _stick_offset(k, like):
    # [k, k-1, ..., 1]: the number of pieces left at each break (Paddle builds it in the default dtype)
    return torch.arange(k, 0, -1, dtype=_util.default_torch_dtype(), device=like.device)


class StickBreakingTransform(Transform):
    """Maps R^K onto the (K+1)-simplex by breaking a unit stick."""
    _type = Type.BIJECTION

    def _forward(self, x):
        t = x._t
        z = torch.sigmoid(t - _stick_offset(t.shape[-1], t).log())
        return wrap(F.pad(z, (0, 1), value=1) * F.pad((1 - z).cumprod(-1), (1, 0), value=1))

    def _inverse(self, y):
        t = y._t
        crop = t[..., :-1]
        return wrap(crop.log() - (1 - crop.cumsum(-1)).log() + _stick_offset(crop.shape[-1], t).log())

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)._t
        t = x._t - _stick_offset(x._t.shape[-1], x._t).log()
        return wrap((-t + F.logsigmoid(t) + y[..., :-1].log()).sum(-1))

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError(f"StickBreakingTransform: expected 'shape' to be non-empty, got {shape}")
        return (*shape[:-1], shape[-1] + 1)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError(f"StickBreakingTransform: expected 'shape' to be non-empty, got {shape}")
        return (*shape[:-1], shape[-1] - 1)

    @property
    def _domain(self):
        return _Space(1)

    @property
    def _codomain(self):
        return _Space(1)


class TanhTransform(Transform):
    """y = tanh(x)."""
    _type = Type.BIJECTION

    def _forward(self, x):
        return wrap(x._t.tanh())

    def _inverse(self, y):
        return wrap(y._t.atanh())

    def _forward_log_det_jacobian(self, x):
        return wrap(2.0 * (math.log(2.0) - x._t - F.softplus(-2.0 * x._t)))
