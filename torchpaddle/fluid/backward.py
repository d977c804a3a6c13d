"""fluid.backward: append_backward and gradients of the static graph."""
from ..static.backward import append_backward, gradients  # noqa: F401

__all__ = ["append_backward", "gradients"]
