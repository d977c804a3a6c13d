"""paddle.autograd.PyLayer: user-defined forward/backward, built on torch.autograd.Function.

Each PyLayer subclass gets its own torch Function subclass (so graph nodes carry its name) and its own
context class ``<Name>_backward``. Tensor inputs are found among the positional and keyword arguments
and inside top-level lists/tuples; ``backward`` returns one gradient per such argument (a list for a list
argument), in the order args then kwargs, as in Paddle.
"""
import weakref

import torch

from ..framework.tensor import Tensor, unwrap, wrap

__all__ = ["PyLayer", "PyLayerContext", "Function", "saved_tensors_hooks"]


def _no_node():
    return None


class PyLayerContext:
    """The ``ctx`` of ``forward``/``backward``: saves tensors and any attribute set on it by the user."""

    def __init__(self):
        self.container = None
        self.not_inplace_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.grad_in_dtype_consistent = True
        self._tctx = _no_node
        self._saved = None

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` for ``backward``; read them back with ``saved_tensor()``."""
        tctx = self._tctx()
        if tctx is None:
            self.container = tensors
            return
        # torch checks saved tensors for later in-place changes and unpacks them for double backward.
        torch_saved = [t._t for t in tensors if isinstance(t, Tensor)]
        tctx.save_for_backward(*torch_saved)
        self._saved = tuple(isinstance(t, Tensor) or t for t in tensors)

    def saved_tensor(self):
        """The tensors given to ``save_for_backward`` (a tuple), or None when nothing was saved."""
        tctx = self._tctx()
        if tctx is None:
            return self.container
        if self._saved is None:
            return None
        unpacked = iter(tctx.saved_tensors)
        return tuple(wrap(next(unpacked)) if item is True else item for item in self._saved)

    def mark_not_inplace(self, *args):
        # NOTE: torch never treats a returned input as modified in place (it returns a new view), so
        # this only records the tensors.
        self.not_inplace_tensors = args

    def mark_non_differentiable(self, *args):
        """Outputs that never get a gradient: they come out with stop_gradient=True."""
        self.non_differentiable = args
        tctx = self._tctx()
        if tctx is not None:
            tctx.mark_non_differentiable(*[unwrap(a) for a in args])

    def set_materialize_grads(self, value):
        """With False, ``backward`` gets None (not zeros) for outputs that received no gradient."""
        self.materialize_grads = bool(value)
        tctx = self._tctx()
        if tctx is not None:
            tctx.set_materialize_grads(bool(value))

    def set_grad_in_dtype_consistent(self, flag):
        # NOTE: torch always casts a returned gradient to its input's dtype, so this only records it.
        self.grad_in_dtype_consistent = bool(flag)


class _Call:
    """One ``apply`` call: the user's arguments and the layout of its inputs and outputs."""
    __slots__ = ("layer", "args", "kwargs", "entries", "out_kind", "out_is_tensor", "ctx")

    def __init__(self, layer, args, kwargs):
        self.layer, self.args, self.kwargs = layer, args, kwargs
        # entries: one per tensor argument; an int (one flat tensor) or a list of ints (a list argument).
        self.entries = []
        self.ctx = None


def _flatten_inputs(call):
    flat, entries = [], []
    for value in (*call.args, *call.kwargs.values()):
        if isinstance(value, Tensor):
            entries.append(len(flat))
            flat.append(value._t)
        elif isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            positions = []
            for v in value:
                if isinstance(v, Tensor):
                    positions.append(len(flat))
                    flat.append(v._t)
            entries.append(positions)
    call.entries = entries
    return flat


class _TorchBridge(torch.autograd.Function):
    @staticmethod
    def forward(tctx, call, *flat):
        layer = call.layer
        ctx = layer._ctx_class()
        # The node owns the call and the call the ctx; ctx -> node is weak, so no reference cycle.
        ctx._tctx = weakref.ref(tctx)
        call.ctx = ctx
        tctx.call = call
        out = layer.forward(ctx, *call.args, **call.kwargs)
        call.args = call.kwargs = None
        if isinstance(out, Tensor):
            call.out_kind, call.out_is_tensor = None, (True,)
            return out._t
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{layer.__name__}.forward must return a Tensor or a tuple/list of Tensors, "
                            f"got {type(out).__name__}")
        call.out_kind = type(out)
        call.out_is_tensor = tuple(isinstance(o, Tensor) for o in out)
        return tuple(o._t if isinstance(o, Tensor) else o for o in out)

    @staticmethod
    def backward(tctx, *grads):
        call = tctx.call
        layer = call.layer
        grads = [None if g is None else wrap(g) for g, is_t in zip(grads, call.out_is_tensor) if is_t]
        result = layer.backward(call.ctx, *grads)
        return (None, *_flat_grads(layer, call, result, tctx.needs_input_grad[1:]))


def _flat_grads(layer, call, result, needs):
    """Match ``backward``'s return value to the tensor arguments; Paddle's checks, torch's layout."""
    entries = call.entries
    if isinstance(result, (tuple, list)):
        if (len(entries) == 1 and isinstance(entries[0], list) and len(result) == len(entries[0])
                and all(r is None or isinstance(r, Tensor) for r in result)):
            # The only tensor argument is a list, so a flat list of gradients is that argument's.
            result = (result,)
        result = tuple(result)
    else:
        result = (result,)
    name = layer.__name__
    if len(result) > len(entries):
        raise ValueError(f"{name}: the number of outputs of PyLayer.backward should be {len(entries)} "
                         f"(one per Tensor input of forward), but received {len(result)}")
    given = len(result)
    result = result + (None,) * (len(entries) - given)
    flat = [None] * len(needs)

    def put(position, grad, where):
        if grad is None:
            return
        if not isinstance(grad, Tensor):
            raise TypeError(f"{name}: PyLayer.backward must return Tensors or None, got "
                            f"{type(grad).__name__} at {where}")
        if not needs[position]:
            raise ValueError(f"{name}: PyLayer.backward should return None at {where}, because that forward "
                             "input has stop_gradient=True")
        flat[position] = grad._t

    for i, (entry, grad) in enumerate(zip(entries, result)):
        if isinstance(entry, int):
            if grad is None and needs[entry] and i >= given:
                raise ValueError(f"{name}: PyLayer.backward should not return empty at position {i}")
            put(entry, grad, f"position {i}")
            continue
        if grad is None:
            continue
        if not isinstance(grad, (list, tuple)):
            raise ValueError(f"{name}: PyLayer.backward must return a list or tuple at position {i} (its "
                             f"forward argument is a list of Tensors), got {type(grad).__name__}")
        if len(grad) != len(entry):
            raise ValueError(f"{name}: PyLayer.backward returned {len(grad)} gradients at position {i}, "
                             f"whose forward argument holds {len(entry)} Tensors")
        for j, (position, g) in enumerate(zip(entry, grad)):
            put(position, g, f"position {i}[{j}]")
    return flat


class PyLayer:
    """Subclass with ``@staticmethod forward(ctx, *args, **kwargs)`` and ``backward(ctx, *grads)``; call
    ``YourLayer.apply(...)``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._ctx_class = type(f"{cls.__name__}_backward", (PyLayerContext,), {})
        cls._torch_function = type(cls.__name__, (_TorchBridge,), {"__module__": cls.__module__})

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define a static forward(ctx, *args, **kwargs)")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("PyLayer subclasses must define a static backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record a graph node whose gradient is ``backward``."""
        if cls is PyLayer:
            raise NotImplementedError("PyLayer.apply must be called on a subclass of PyLayer")
        call = _Call(cls, args, kwargs)
        flat = _flatten_inputs(call)
        out = cls._torch_function.apply(call, *flat)
        if call.out_kind is None:
            return wrap(out)
        if not isinstance(out, tuple):
            out = (out,)
        items = [wrap(o) if is_t else o for o, is_t in zip(out, call.out_is_tensor)]
        if hasattr(call.out_kind, "_fields"):  # a namedtuple
            return call.out_kind(*items)
        return call.out_kind(items)


PyLayer._ctx_class = PyLayerContext
Function = PyLayer


class saved_tensors_hooks(torch.autograd.graph.saved_tensors_hooks):
    """Within the block, tensors saved for backward go through ``pack_hook`` and come back through
    ``unpack_hook`` (both see paddle Tensors)."""

    def __init__(self, pack_hook, unpack_hook):
        def pack(t):
            return pack_hook(wrap(t))

        def unpack(packed):
            out = unpack_hook(packed)
            if not isinstance(out, Tensor):
                raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor, got {type(out).__name__}")
            return out._t
        super().__init__(pack, unpack)
