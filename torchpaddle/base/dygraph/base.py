"""paddle.base.dygraph.base: switching to dygraph mode and turning values into Tensors."""
import contextlib

import numpy as np

from ...framework import place as _place
from ...framework.mode import disable_static, enable_static, in_dynamic_mode
from ...framework.tensor import Tensor
from ...utils import unique_name

__all__ = ["guard", "to_variable", "enabled", "enable_dygraph", "disable_dygraph"]


def enabled():
    return in_dynamic_mode()


def enable_dygraph(place=None):
    disable_static(place)


def disable_dygraph():
    enable_static()


@contextlib.contextmanager
def guard(place=None):
    """Run the block in dygraph mode (on ``place`` if given) with fresh unique names; restores the mode."""
    was_static = not in_dynamic_mode()
    saved = _place._STATE.place
    if was_static:
        disable_static()
    if place is not None:
        _place.set_device(place)
    try:
        with unique_name.guard():
            yield
    finally:
        if place is not None:
            _place.set_device(saved)
        if was_static:
            enable_static()


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """Paddle 2.x's ``to_variable``: a Tensor (stop_gradient=True) from an ndarray, a Tensor or a number list."""
    from ...tensor.creation import to_tensor
    if isinstance(value, Tensor):
        return value if dtype is None else value.astype(dtype)
    if not isinstance(value, (np.ndarray, list, tuple, int, float, complex, np.generic)):
        raise TypeError(f"to_variable: value must be a numpy.ndarray, Tensor, list or tuple, got "
                        f"{type(value).__name__}")
    out = to_tensor(value, dtype=dtype)
    if name is not None:
        out.name = name
    return out
