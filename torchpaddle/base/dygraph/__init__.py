"""paddle.base.dygraph: ``guard`` (run a block in dygraph mode), ``to_variable`` (Paddle 2.x), grad switches."""
from ...autograd import no_grad  # noqa: F401
from .base import disable_dygraph, enable_dygraph, enabled, guard, to_variable  # noqa: F401

__all__ = ["guard", "to_variable", "no_grad", "enabled", "enable_dygraph", "disable_dygraph"]
