"""paddle.autograd: backward, grad, grad modes, PyLayer, hooks, all on torch autograd."""
from .backward_mode import backward, grad  # noqa: F401
from .grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401
from .py_layer import *  # noqa: F401,F403
