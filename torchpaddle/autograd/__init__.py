"""paddle.autograd: backward, grad, grad modes, PyLayer, hooks, jacobian/hessian, all on torch autograd."""
from .backward_mode import backward, grad  # noqa: F401
from .grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled  # noqa: F401
from .functional import jacobian, hessian, Jacobian, Hessian  # noqa: F401
from .py_layer import PyLayer, PyLayerContext, Function, saved_tensors_hooks  # noqa: F401

from . import hooks as _hooks
from ..framework.tensor import Tensor as _Tensor


def _tensor_backward(self, grad_tensor=None, retain_graph=False, *, dump_backward_graph_path=None):
    backward([self], None if grad_tensor is None else [grad_tensor], retain_graph)


# Tensor's autograd methods live here, above the framework layer that defines Tensor
_Tensor.backward = _tensor_backward
_Tensor.register_hook = _hooks.register_hook

__all__ = ["jacobian", "hessian", "backward", "PyLayer", "Function", "PyLayerContext", "saved_tensors_hooks"]
