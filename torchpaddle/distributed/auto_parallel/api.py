"""Dist tensors: ``shard_tensor``, ``dtensor_from_fn``, ``dtensor_from_local``, ``dtensor_to_local``,
``unshard_dtensor``, ``reshard``, and the Tensor properties of a dist tensor.

A dist tensor is a torchpaddle Tensor whose ``_t`` is a torch DTensor: every op's kernel then runs through
DTensor's dispatch (dispatch.py adds Paddle's rules where torch has none or gets them wrong), and autograd
works across reshards. Unlike Paddle, bad placements raise ValueError/TypeError instead of crashing.
"""
from torch.distributed.tensor import DTensor, Partial as _Partial, Replicate as _Replicate, distribute_tensor

from ...framework import dtype as _dtype
from ...framework.convert import _as_torch
from ...framework.dist_attr import TensorDistAttr
from ...framework.parameter import Parameter
from ...framework.tensor import Tensor, wrap
from . import dispatch as _dispatch
from . import reshard as _reshard
from .device_mesh import device_mesh, process_mesh_of
from .placement import from_torch_placements, is_private_placement, placements_to_dims_mapping, \
    to_torch_placements

__all__ = ["shard_tensor", "dtensor_from_fn", "dtensor_from_local", "dtensor_to_local", "unshard_dtensor",
           "reshard", "is_dist_tensor"]


def is_dist_tensor(x):
    return isinstance(x, Tensor) and isinstance(x._t, DTensor)


def _new_like(data, t, name_suffix=".dist"):
    """A Tensor holding ``t``: a Parameter stays a Parameter (attrs kept, renamed ``<name>.dist``)."""
    if isinstance(data, Parameter):
        param = Parameter.__new__(type(data))
        param.__dict__.update(data.__dict__)
        param._t = t
        param._name = data.name if data.name.endswith(name_suffix) else data.name + name_suffix
        return param
    return wrap(t)


def _leaf(t, stop_gradient):
    t = t.detach()
    if not stop_gradient and (t.is_floating_point() or t.is_complex()):
        t.requires_grad_(True)
        if isinstance(t, DTensor):
            t.register_hook(_grad_like(tuple(t.placements)))
    return t


def _grad_like(placements):
    """Paddle gives a dist leaf (a parameter) its gradient in the leaf's own placements, except that a
    replicated leaf may get a Partial gradient (reduced when it is used)."""
    def hook(grad):
        if not isinstance(grad, DTensor):
            return grad
        target = tuple(g if isinstance(g, _Partial) and isinstance(p, _Replicate) else p
                       for p, g in zip(placements, grad.placements))
        return grad if target == tuple(grad.placements) else _reshard.redistribute(grad, target)
    return hook


def shard_tensor(data, mesh, placements, dtype=None, place=None, stop_gradient=None):
    """Every process passes the whole value and keeps its part; Partial: the first process of each partial
    mesh dim holds the value, the others the reduction's identity (zeros for a sum)."""
    torch_mesh = device_mesh(mesh, "shard_tensor")
    if isinstance(data, Tensor):
        # NOTE: as Paddle, an explicit stop_gradient is ignored for Tensor data: the data's is kept
        stop_gradient = data.stop_gradient
        t = data._t.detach()
        if dtype is not None:
            t = t.to(_dtype.to_torch_dtype(dtype))
    else:
        t = _as_torch(data, dtype, place)
        stop_gradient = True if stop_gradient is None else bool(stop_gradient)
    target = to_torch_placements(placements, mesh, t.dim(), "shard_tensor")
    if isinstance(t, DTensor):
        if t.device_mesh is torch_mesh:
            out = _reshard.redistribute(t, target)
        else:
            out = _reshard.cross_mesh(t, torch_mesh, target)
    else:
        plain = tuple(_replicate() if isinstance(p, _Partial) else p for p in target)
        out = distribute_tensor(t, torch_mesh, plain, src_data_rank=None)
        if plain != target:
            out = _reshard.to_partial(out, target)
    _dispatch.enable()
    return _new_like(data, _leaf(out, stop_gradient))


def _replicate():
    return _Replicate()


def dtensor_from_fn(fn, mesh, placements, *args, **kwargs):
    """``shard_tensor(fn(*args, **kwargs), mesh, placements)``."""
    if not callable(fn):
        raise TypeError(f"dtensor_from_fn: fn must be callable, got {type(fn).__name__}")
    return shard_tensor(fn(*args, **kwargs), mesh, placements)


def _check_tensor(x, what, dist):
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a paddle.Tensor, got {type(x).__name__}")
    if dist is not None and is_dist_tensor(x) != dist:
        raise ValueError(f"{what}: expected a {'dist' if dist else 'dense (non-dist)'} tensor")


def dtensor_from_local(local_tensor, mesh, placements):
    """Wrap each process's local part, without communication; the global shape assumes even shards."""
    _check_tensor(local_tensor, "dtensor_from_local", False)
    torch_mesh = device_mesh(mesh, "dtensor_from_local")
    target = to_torch_placements(placements, mesh, local_tensor.ndim, "dtensor_from_local")
    out = DTensor.from_local(local_tensor._t, torch_mesh, target, run_check=False)
    _dispatch.enable()
    return wrap(out)


def dtensor_to_local(dist_tensor, mesh=None, placements=None):
    """This process's local part (differentiable; the gradient takes ``placements`` when given)."""
    _check_tensor(dist_tensor, "dtensor_to_local", True)
    grad_placements = None
    if placements is not None:
        mesh = process_mesh_of(dist_tensor._t.device_mesh) if mesh is None else mesh
        grad_placements = to_torch_placements(placements, mesh, dist_tensor.ndim, "dtensor_to_local")
    return wrap(dist_tensor._t.to_local(grad_placements=grad_placements))


def reshard(dist_tensor, mesh, placements):
    """The same global value on ``mesh`` with ``placements`` (any transition, another mesh too)."""
    if not isinstance(dist_tensor, Tensor):
        raise TypeError(f"reshard: expected a paddle.Tensor, got {type(dist_tensor).__name__}")
    torch_mesh = device_mesh(mesh, "reshard")
    target = to_torch_placements(placements, mesh, dist_tensor.ndim, "reshard")
    t = dist_tensor._t
    if not isinstance(t, DTensor):
        return shard_tensor(dist_tensor, mesh, placements)
    if t.device_mesh is torch_mesh:
        out = _reshard.redistribute(t, target)
    else:
        out = _reshard.cross_mesh(t, torch_mesh, target)
    return wrap(out) if not isinstance(dist_tensor, Parameter) else _new_like(dist_tensor, out)


def unshard_dtensor(dist_tensor):
    """The global value as a dense Tensor (a Parameter stays a Parameter)."""
    _check_tensor(dist_tensor, "unshard_dtensor", True)
    t = dist_tensor._t
    full = _reshard.redistribute(t, tuple(_replicate() for _ in t.placements)).to_local()
    if isinstance(dist_tensor, Parameter):
        param = _new_like(dist_tensor, _leaf(full, dist_tensor.stop_gradient), name_suffix="")
        if param._name.endswith(".dist"):
            param._name = param._name[:-len(".dist")]
        return param
    return wrap(full)


# -- Tensor properties (attached to paddle.Tensor) ---------------------------------------------------------

def _fixed(x):
    """The DTensor of ``x``, with a torch-private placement replaced by Replicate first (never seen by users)."""
    t = x._t
    if any(is_private_placement(p) for p in t.placements):
        x._t = t = t.redistribute(t.device_mesh, tuple(_Replicate() if is_private_placement(p) else p
                                                        for p in t.placements))
    return t


def _is_dist(self):
    return isinstance(self._t, DTensor)


def _process_mesh(self):
    if not isinstance(self._t, DTensor):
        return None
    return process_mesh_of(self._t.device_mesh)


def _placements(self):
    if not isinstance(self._t, DTensor):
        return None
    return from_torch_placements(_fixed(self).placements)


def _local_value(self):
    if not isinstance(self._t, DTensor):
        return self
    return wrap(self._t.to_local())


def _local_shape(self):
    if not isinstance(self._t, DTensor):
        return list(self.shape)
    return list(self._t.to_local().shape)


def _dist_attr(self):
    if not isinstance(self._t, DTensor):
        return None
    attr = TensorDistAttr()
    attr.process_mesh = process_mesh_of(self._t.device_mesh)
    mapping, partial = placements_to_dims_mapping(_placements(self), self.ndim)
    attr.dims_mapping = mapping
    for mesh_dim, reduce_type in partial.items():
        attr._set_partial_dims([mesh_dim], reduce_type)
    return attr


Tensor.is_dist = _is_dist
Tensor.process_mesh = property(_process_mesh)
Tensor.placements = property(_placements)
Tensor._local_value = _local_value
Tensor._local_shape = property(_local_shape)
Tensor.dist_attr = property(_dist_attr)
