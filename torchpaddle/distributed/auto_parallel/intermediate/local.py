"""``local_map`` and ``LocalLayer``: run code written for local tensors on the shards of dist tensors.

Inputs go in as each process's local part (``dtensor_to_local``), outputs come back as dist tensors built from
the local results with the given placements (``dtensor_from_local``). Gradients are exact: the gradient of a
``Partial`` output reaches every process's local result (Paddle 3.3.1 gives every process but the first a
zero gradient there).
"""
from ....framework.tensor import Tensor
from ....nn import Layer
from ....utils.nest import flatten, pack_sequence_as
from ..api import dtensor_from_local, dtensor_to_local, is_dist_tensor, reshard

__all__ = ["local_map", "LocalLayer"]


def _check_list(value, what):
    if value is not None and not isinstance(value, (list, tuple)):
        raise TypeError(f"{what} must be a list (one entry per tensor), got {type(value).__name__}")


def local_map(func, out_placements, in_placements=None, process_mesh=None, reshard_inputs=False):
    """``func`` wrapped to take dist tensors and return dist tensors with ``out_placements``."""
    if not callable(func):
        raise TypeError(f"local_map: func must be callable, got {type(func).__name__}")
    _check_list(out_placements, "local_map: out_placements")
    _check_list(in_placements, "local_map: in_placements")

    def wrapped(*args, **kwargs):
        mesh = process_mesh
        flat = flatten(list(args))
        dist_inputs = [a for a in flat if isinstance(a, Tensor) and is_dist_tensor(a)]
        if mesh is None and dist_inputs:
            mesh = dist_inputs[0].process_mesh
        if in_placements is not None and len(in_placements) != len(flat):
            raise ValueError(f"local_map: in_placements has {len(in_placements)} entries for {len(flat)} inputs")
        local = []
        for i, a in enumerate(flat):
            if isinstance(a, Tensor) and is_dist_tensor(a):
                want = in_placements[i] if in_placements is not None else None
                if want is not None and list(a.placements) != list(want):
                    if not reshard_inputs:
                        raise ValueError(f"local_map: input {i} has placements {a.placements}, in_placements says "
                                         f"{list(want)}; pass reshard_inputs=True to reshard it")
                    a = reshard(a, mesh, want)
                local.append(dtensor_to_local(a, mesh, want if want is not None else a.placements))
            else:
                local.append(a)
        out = func(*pack_sequence_as(list(args), local), **kwargs)
        flat_out = flatten(out)
        if len(flat_out) != len(out_placements):
            raise ValueError(f"local_map: {len(out_placements)} out_placements for {len(flat_out)} outputs "
                             "(one per output, None for a non-tensor)")
        if not dist_inputs and mesh is None:
            if any(p is not None for p in out_placements):
                raise ValueError("local_map: process_mesh must be given when no input is a dist tensor")
            return out
        result = []
        for value, placements in zip(flat_out, out_placements):
            if isinstance(value, Tensor) and placements is not None:
                if is_dist_tensor(value):
                    raise TypeError("local_map: func must return local (dense) tensors, got a dist tensor")
                result.append(dtensor_from_local(value, mesh, placements))
            else:
                if isinstance(value, Tensor) is False and placements is not None:
                    raise ValueError(f"local_map: a non-tensor output {value!r} needs placements None, got "
                                     f"{placements}")
                result.append(value)
        return pack_sequence_as(out, result)

    return wrapped


class LocalLayer(Layer):
    """A Layer whose ``forward`` works on local tensors; ``out_dist_attrs`` gives (mesh, placements) per output,
    ``grad_dist_attrs`` (mesh, placements) or None per input for the layout of its gradient."""

    def __init__(self, out_dist_attrs, grad_dist_attrs=None):
        super().__init__()
        _check_list(out_dist_attrs, "LocalLayer: out_dist_attrs")
        _check_list(grad_dist_attrs, "LocalLayer: grad_dist_attrs")
        self.out_dist_attrs = out_dist_attrs
        self.grad_dist_attrs = grad_dist_attrs

    def __call__(self, *inputs, **kwargs):
        inputs = list(inputs)
        if self.grad_dist_attrs is not None and len(inputs) != len(self.grad_dist_attrs):
            raise ValueError(f"LocalLayer: {len(inputs)} inputs but {len(self.grad_dist_attrs)} grad_dist_attrs")
        for i, x in enumerate(inputs):
            if isinstance(x, Tensor) and is_dist_tensor(x):
                attr = self.grad_dist_attrs[i] if self.grad_dist_attrs is not None else None
                mesh, placements = (x.process_mesh, x.placements) if attr is None else attr
                inputs[i] = dtensor_to_local(x, mesh, placements)
        outputs = Layer.__call__(self, *inputs, **kwargs)
        flat = flatten(outputs)
        if len(flat) != len(self.out_dist_attrs):
            raise ValueError(f"LocalLayer: {len(flat)} outputs but {len(self.out_dist_attrs)} out_dist_attrs")
        return pack_sequence_as(outputs, [dtensor_from_local(v, mesh, placements)
                                          for v, (mesh, placements) in zip(flat, self.out_dist_attrs)])
