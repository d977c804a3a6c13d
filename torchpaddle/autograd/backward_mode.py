"""Tensor.backward and paddle.grad on torch autograd."""
import torch

from ..framework.tensor import Tensor, wrap

__all__ = ["backward", "grad"]


def _as_list(value, what):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        for v in value:
            if v is not None and not isinstance(v, Tensor):
                raise TypeError(f"{what} must be a Tensor or a list of Tensors, got an element of type "
                                f"{type(v).__name__}")
        return list(value)
    raise TypeError(f"{what} must be a Tensor or a list of Tensors, got {type(value).__name__}")


def backward(tensors, grad_tensors=None, retain_graph=False):
    """paddle.autograd.backward: accumulate gradients of ``tensors`` into the leaves' ``.grad``."""
    tensors = _as_list(tensors, "backward: tensors")
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    else:
        grad_tensors = _as_list(grad_tensors, "backward: grad_tensors")
    if len(grad_tensors) != len(tensors):
        raise ValueError(f"backward: got {len(tensors)} tensors but {len(grad_tensors)} grad_tensors")
    roots, seeds = [], []
    for t, g in zip(tensors, grad_tensors):
        if not t._t.requires_grad:
            raise RuntimeError(f"backward: Tensor {t.name} has stop_gradient=True, so there is nothing to "
                               "differentiate")
        if g is None:
            seed = torch.ones_like(t._t)
        else:
            seed = g._t
            if list(seed.shape) != list(t._t.shape):
                raise ValueError(f"backward: grad_tensor shape {list(seed.shape)} does not match tensor shape "
                                 f"{list(t._t.shape)}")
        roots.append(t._t)
        seeds.append(seed)
    torch.autograd.backward(roots, seeds, retain_graph=bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, no_grad_vars=None, *, dump_backward_graph_path=None):
    """paddle.grad: gradients of ``outputs`` w.r.t. ``inputs``, without touching ``.grad``."""
    single = isinstance(inputs, Tensor)
    outputs = _as_list(outputs, "grad: outputs")
    inputs = _as_list(inputs, "grad: inputs")
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    else:
        grad_outputs = _as_list(grad_outputs, "grad: grad_outputs")
        if len(grad_outputs) != len(outputs):
            raise ValueError(f"grad: got {len(outputs)} outputs but {len(grad_outputs)} grad_outputs")
    for x in inputs:
        if not x._t.requires_grad:
            raise ValueError(f"grad: input Tensor {x.name} has stop_gradient=True; its gradient is undefined")
    seeds = [torch.ones_like(o._t) if g is None else g._t for o, g in zip(outputs, grad_outputs)]
    if retain_graph is None:
        retain_graph = create_graph
    handles = []
    if no_grad_vars is not None:
        # A zero gradient at a variable is the same as treating it as a constant.
        blocked = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else list(no_grad_vars)
        for v in blocked:
            if v._t.requires_grad:
                handles.append(v._t.register_hook(torch.zeros_like))
    try:
        result = torch.autograd.grad([o._t for o in outputs], [x._t for x in inputs], seeds,
                                     retain_graph=retain_graph, create_graph=create_graph, allow_unused=True,
                                     materialize_grads=False)
    finally:
        for h in handles:
            h.remove()
    out = []
    for x, g in zip(inputs, result):
        if g is None:
            if not allow_unused:
                raise ValueError(f"grad: input Tensor {x.name} is not reachable from outputs; "
                                 "pass allow_unused=True to get None for it")
            out.append(None)
        else:
            out.append(wrap(g))
    return out
