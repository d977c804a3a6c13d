"""Tensor.backward, paddle.autograd.backward and paddle.grad on torch autograd, with Paddle's checks."""
import torch

from ..framework.tensor import PaddleAssertionError, Tensor, wrap

__all__ = ["backward", "grad", "GraphFreedError"]


class _AssertionTypeError(AssertionError, TypeError):
    """Paddle asserts argument types (AssertionError); catching TypeError works too."""


class GraphFreedError(RuntimeError, SystemError):
    """Backward through a graph whose saved tensors were freed (Paddle raises SystemError here)."""


def _as_list(value, what):
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        for v in value:
            if not isinstance(v, Tensor):
                raise _AssertionTypeError(f"{what} must be Tensor or list of Tensor, got an element of type "
                                          f"{type(v).__name__}")
        return list(value)
    raise _AssertionTypeError(f"{what} must be Tensor or list of Tensor, got {type(value).__name__}")


def _seeds(what, roots, grads):
    """The gradient to start from for each root: ones, or the given tensor cast to the root's dtype."""
    if grads is None:
        grads = [None] * len(roots)
    elif isinstance(grads, Tensor):
        grads = [grads]
    elif not isinstance(grads, (list, tuple)):
        raise _AssertionTypeError(f"{what} must be None, a Tensor or a list of Tensor|None, "
                                  f"got {type(grads).__name__}")
    if len(grads) != len(roots):
        raise PaddleAssertionError(f"The length of {what} must be equal to the number of tensors: "
                                   f"{len(grads)} != {len(roots)}")
    seeds = []
    for i, (root, g) in enumerate(zip(roots, grads)):
        t = root._t
        if g is None:
            seeds.append(torch.ones_like(t))
            continue
        if not isinstance(g, Tensor):
            raise _AssertionTypeError(f"The type of {what}[{i}] must be paddle.Tensor or None, "
                                      f"got {type(g).__name__}")
        s = g._t
        if s.shape != t.shape:
            raise PaddleAssertionError(f"{what}[{i}] has shape {list(s.shape)} but the tensor it seeds has "
                                       f"shape {list(t.shape)}")
        if s.dtype != t.dtype or s.device != t.device:
            s = s.to(device=t.device, dtype=t.dtype)
        seeds.append(s)
    return seeds


def _run(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except RuntimeError as e:
        if "a second time" in str(e):
            raise GraphFreedError(
                "The saved tensors of this graph were already freed: backward/grad ran through it twice. "
                "Pass retain_graph=True to the first backward/grad call.") from e
        raise


def backward(tensors, grad_tensors=None, retain_graph=False, *, dump_backward_graph_path=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves they depend on.

    Tensors with stop_gradient=True are skipped, as in Paddle (no error).
    """
    tensors = _as_list(tensors, "tensors")
    seeds = _seeds("grad_tensors", tensors, grad_tensors)
    roots, used = [], []
    for t, s in zip(tensors, seeds):
        if t._t.requires_grad:
            roots.append(t._t)
            used.append(s)
    if roots:
        _run(torch.autograd.backward, roots, used, retain_graph=bool(retain_graph))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, no_grad_vars=None, *, dump_backward_graph_path=None):
    """Gradients of ``outputs`` w.r.t. ``inputs`` (a list, one per input), without touching ``.grad``."""
    outputs = _as_list(outputs, "outputs")
    inputs = _as_list(inputs, "inputs")
    if not outputs:
        raise PaddleAssertionError("grad: outputs cannot be empty")
    if not inputs:
        raise PaddleAssertionError("grad: inputs cannot be empty")
    if not only_inputs:
        raise PaddleAssertionError("grad: only_inputs=False is not supported (nor is it by Paddle)")
    seen = set()
    for x in inputs:
        if id(x._t) in seen:
            raise RuntimeError(f"grad: inputs contain the tensor {x.name} more than once")
        seen.add(id(x._t))
    seeds = _seeds("grad_outputs", outputs, grad_outputs)
    # NOTE: Paddle's grad never frees the graph, whatever retain_graph says: a later backward/grad
    # through the same outputs still works. torch frees the graph once the outputs are dropped anyway.
    retain_graph = True

    roots = [(o._t, s) for o, s in zip(outputs, seeds) if o._t.requires_grad]
    wanted = [i for i, x in enumerate(inputs) if x._t.requires_grad]
    result = [None] * len(inputs)
    if roots and wanted:
        handles = []
        if no_grad_vars is not None:
            blocked = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else list(no_grad_vars)
            for v in blocked:
                if not isinstance(v, Tensor):
                    raise _AssertionTypeError(f"grad: no_grad_vars must hold Tensors, got {type(v).__name__}")
                # A zero gradient through a variable is the same as treating it as a constant.
                if v._t.requires_grad:
                    handles.append(v._t.register_hook(torch.zeros_like))
        try:
            grads = _run(torch.autograd.grad, [r for r, _ in roots], [inputs[i]._t for i in wanted],
                         [s for _, s in roots], retain_graph=bool(retain_graph), create_graph=bool(create_graph),
                         allow_unused=True, materialize_grads=False)
        finally:
            for h in handles:
                h.remove()
        for i, g in zip(wanted, grads):
            if g is not None and create_graph and not g.requires_grad:
                # Paddle marks every create_graph gradient stop_gradient=False, even a constant one.
                g.requires_grad_(True)
            result[i] = g
    out = []
    for i, g in enumerate(result):
        if g is None:
            if not allow_unused:
                raise ValueError(f"grad: the {i}-th input does not appear in the backward graph of outputs; "
                                 "check the inputs or pass allow_unused=True to get None for it")
            out.append(None)
        else:
            out.append(wrap(g))
    return out
