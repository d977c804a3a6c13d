"""fluid.dygraph.base: entering dygraph mode (``guard``), ``to_variable``, ``no_grad`` and mode queries."""
import contextlib

from ...autograd import no_grad  # noqa: F401
from ...base.dygraph import base as _base
from ...framework import mode as _mode
from ...autograd.backward_mode import grad  # noqa: F401

__all__ = ["guard", "to_variable", "no_grad", "enabled", "enable_dygraph", "disable_dygraph",
           "enable_imperative", "disable_imperative", "grad"]

enabled = _base.enabled
enable_dygraph = enable_imperative = _base.enable_dygraph
disable_dygraph = disable_imperative = _base.disable_dygraph


@contextlib.contextmanager
def guard(place=None):
    """Run the block in dygraph mode with fresh unique names (``linear_0`` again in every guard, as in fluid);
    afterwards the mode is what it was, including "not chosen yet" (fluid code then still defaults to static)."""
    chosen = _mode._ModeState.chosen
    try:
        with _base.guard(place):
            # inside, dygraph is chosen: a static-only fluid call must not switch the block to static
            _mode._ModeState.chosen = True
            yield
    finally:
        _mode._ModeState.chosen = chosen


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A Tensor (stop_gradient=True) from an ndarray, a Tensor or a list, keeping the ndarray's dtype."""
    return _base.to_variable(value, name=name, zero_copy=zero_copy, dtype=dtype)
