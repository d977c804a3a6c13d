"""paddle.autograd: backward, grad, grad modes, PyLayer, hooks, jacobian/hessian, all on torch autograd."""
from .backward_mode import backward, grad  # noqa: F401
from .grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401
from .functional import jacobian, hessian, Jacobian, Hessian  # noqa: F401
from .py_layer import PyLayer, PyLayerContext, Function, saved_tensors_hooks  # noqa: F401

__all__ = ["jacobian", "hessian", "backward", "PyLayer", "Function", "PyLayerContext", "saved_tensors_hooks"]
