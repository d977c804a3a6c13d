"""``shard_optimizer`` with ``ShardingStage1/2/3``, and ``shard_scaler``.

The optimizer update runs on DTensors: for each parameter the wrapper picks the layout its states live in
(Paddle's policy below), brings the gradient and a view of the parameter to that layout, runs the inner
optimizer's own update there (the ``torch._foreach_*`` kernels take DTensors), and writes the result back into
the parameter's layout (an all-gather when the states are sharded more than the parameter).

Placement policy, as Paddle 3.3.1:
- no shard_fn (stage 0): states take their parameter's placements; a Partial gradient is reduced first;
- ShardingStage1: moments (and master weights) are ``Shard(d)`` on the sharding mesh dim, ``d`` the first
  tensor dim not sharded by another mesh dim; the gradient is reduced straight into that layout at step time;
- ShardingStage2: as Stage 1, and a gradient hook reduce-scatters each gradient as soon as backward makes it,
  so only the shard is kept;
- ShardingStage3: as Stage 2, and the parameters themselves are resharded that way when the optimizer is
  wrapped (ops on them gather what they need);
- beta powers stay replicated; a parameter whose dim 0 has size 1, or that is not replicated on the sharding
  mesh dim, keeps its own placements for its states.
``gradient_accumulation_steps=k`` divides the gradients by ``k`` before the update (they were summed over k
backward passes). Unlike Paddle, any eager optimizer works, not only SGD and AdamW.
"""
import torch
import torch.distributed as _dist
from torch.distributed.tensor import DTensor
from torch.distributed.tensor import full as _dtensor_full
from torch.distributed.tensor import placement_types as _tp

from ...framework.mode import in_dynamic_mode
from ...framework.parameter import Parameter
from ...framework.process_mesh import ProcessMesh
from ...framework.tensor import PaddleAssertionError, Tensor, wrap
from ...optimizer.optimizer import Optimizer
from .reshard import redistribute
from .api import _leaf
from .device_mesh import get_mesh

__all__ = ["ShardingStage1", "ShardingStage2", "ShardingStage3", "shard_optimizer", "shard_scaler"]


class _ShardingStageBase:
    _level = 0

    def __init__(self, sharding_mesh_dim=None, mesh=None):
        if mesh is not None and not isinstance(mesh, ProcessMesh):
            raise ValueError(f"{type(self).__name__}: mesh must be a ProcessMesh, got {type(mesh).__name__}")
        if sharding_mesh_dim is not None and (isinstance(sharding_mesh_dim, bool) or
                                              not isinstance(sharding_mesh_dim, (int, str))):
            raise TypeError(f"{type(self).__name__}: sharding_mesh_dim must be a mesh dim name or index, got "
                            f"{sharding_mesh_dim!r}")
        self._mesh = mesh
        self._sharding_mesh_dim = sharding_mesh_dim

    def __repr__(self):
        return f"{type(self).__name__}(sharding_mesh_dim={self._sharding_mesh_dim!r}, mesh={self._mesh})"

    def _axis(self, mesh):
        """The sharding mesh dim's index in ``mesh`` (None when ``mesh`` has no such dim)."""
        dim = self._sharding_mesh_dim
        if dim is None:
            return 0
        if isinstance(dim, str):
            return mesh.dim_names.index(dim) if dim in mesh.dim_names else None
        return dim if -mesh.ndim <= dim < mesh.ndim else None


class ShardingStage1(_ShardingStageBase):
    """Optimizer states sharded on ``sharding_mesh_dim``."""
    _level = 1


class ShardingStage2(_ShardingStageBase):
    """Optimizer states and gradients sharded on ``sharding_mesh_dim``."""
    _level = 2


class ShardingStage3(_ShardingStageBase):
    """Optimizer states, gradients and parameters sharded on ``sharding_mesh_dim``."""
    _level = 3


def _sharded_placements(t, axis):
    """``t``'s torch placements with mesh dim ``axis`` Shard(first tensor dim no other mesh dim shards)."""
    current = list(t.placements)
    if axis is None or not isinstance(current[axis], _tp.Replicate) or t.dim() == 0 or t.shape[0] == 1:
        return tuple(current)
    taken = {p.dim for p in current if isinstance(p, _tp.Shard)}
    for dim in range(t.dim()):
        if dim not in taken:
            current[axis] = _tp.Shard(dim)
            break
    return tuple(current)


def _no_partial(placements):
    return tuple(_tp.Replicate() if isinstance(p, _tp.Partial) else p for p in placements)


def _grad_hook(target):
    """Stage 2/3: reduce a gradient into the states' layout as soon as backward makes it."""
    def hook(grad):
        if isinstance(grad, DTensor) and tuple(grad.placements) != target:
            return redistribute(grad, target)
        return grad
    return hook


_OWN = frozenset({"_inner_opt", "_shard_fn", "gradient_accumulation_steps", "_layouts", "_parameters", "_plan",
                   "_mesh_of", "_add_accumulator", "_proxy", "_step_params", "step", "minimize", "state_dict",
                   "set_state_dict", "clear_grad"})


class _ShardOptimizer(Optimizer):
    """The optimizer returned by ``shard_optimizer``: an Optimizer (as Paddle's) whose every attribute not
    defined here is the inner optimizer's (its lr, groups, states, static-graph methods)."""

    def __getattribute__(self, name):
        if name in _OWN or name.startswith("__"):
            return object.__getattribute__(self, name)
        return getattr(object.__getattribute__(self, "__dict__")["_inner_opt"], name)

    def __init__(self, optimizer, shard_fn=None, gradient_accumulation_steps=1):
        # NOTE: Paddle checks both with assert; PaddleAssertionError is an AssertionError (and a ValueError)
        if not isinstance(optimizer, Optimizer):
            raise PaddleAssertionError(f"shard_optimizer: optimizer must be a paddle.optimizer.Optimizer, got "
                                       f"{type(optimizer).__name__}")
        if shard_fn is not None and not isinstance(shard_fn, _ShardingStageBase):
            raise PaddleAssertionError(f"shard_optimizer: shard_fn must be ShardingStage1, ShardingStage2 or "
                                       f"ShardingStage3, got {type(shard_fn).__name__}")
        if isinstance(gradient_accumulation_steps, bool) or not isinstance(gradient_accumulation_steps, int) \
                or gradient_accumulation_steps < 1:
            raise ValueError(f"shard_optimizer: gradient_accumulation_steps must be an int >= 1, got "
                             f"{gradient_accumulation_steps!r}")
        self.__dict__["_inner_opt"] = optimizer
        self._shard_fn = shard_fn
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self._layouts = {}      # parameter name -> torch placements of its states
        if shard_fn is not None and shard_fn._level and shard_fn._mesh is None and get_mesh() is None:
            raise ValueError("shard_optimizer: the global mesh (dist.auto_parallel.set_mesh) or the mesh of the "
                             f"{type(shard_fn).__name__} should be set for the sharding strategy")
        original = optimizer._add_accumulator
        optimizer._add_accumulator = lambda *a, **k: self._add_accumulator(original, *a, **k)
        for p in self._parameters():
            self._plan(p)

    def __setattr__(self, name, value):
        if name in ("_shard_fn", "gradient_accumulation_steps", "_layouts"):
            self.__dict__[name] = value
        else:
            setattr(self._inner_opt, name, value)

    def _parameters(self):
        groups = self._inner_opt._param_groups
        if groups and isinstance(groups[0], dict):
            return [p for group in groups for p in group["params"]]
        return list(groups or [])

    # -- layouts ----------------------------------------------------------------------------------------
    def _plan(self, param):
        fn = self._shard_fn
        if not isinstance(param._t, DTensor) and fn is not None and fn._level == 3 and fn._mesh is not None:
            # as Paddle: Stage 3 first replicates a dense parameter on the stage's mesh
            from .intermediate.plans import shard_param_inplace
            shard_param_inplace(param, fn._mesh, [], "ShardingStage3")
        t = param._t
        if not isinstance(t, DTensor):
            return
        if fn is None or not fn._level:
            layout = _no_partial(t.placements)
        else:
            layout = _sharded_placements(t, fn._axis(self._mesh_of(param)))
        if fn is not None and fn._level == 3 and layout != tuple(t.placements):
            # the parameter object stays the same (layers and the optimizer hold it); its value is resharded
            param._t = _leaf(redistribute(t.detach(), layout), param.stop_gradient)
        if fn is not None and fn._level >= 2 and not param.stop_gradient:
            param._t.register_hook(_grad_hook(layout))
        self._layouts[param.name] = layout

    def _mesh_of(self, param):
        """The parameter's mesh, named as the stage's (or the global) mesh when they are the same processes."""
        mesh = param.process_mesh
        for named in (self._shard_fn._mesh, get_mesh()):
            if named is not None and named == mesh:
                return named
        return mesh

    def _add_accumulator(self, original, name, param, dtype=None, fill_value=0.0, shape=None, device=None):
        """The inner optimizer's accumulators, created as DTensors in their parameter's state layout."""
        t = param._t
        if shape is not None or not isinstance(t, DTensor):
            return original(name, param, dtype=dtype, fill_value=fill_value, shape=shape, device=device)
        inner = self._inner_opt
        key = inner._name + "_" + name if inner._name is not None else name
        existing = inner._accumulators[key].get(param.name)
        if existing is not None:
            return existing._t
        if inner._accumulators_holder:
            # a state being loaded: the whole value, cut to this process's part
            whole = original(name, param, dtype=dtype, fill_value=fill_value, device=device)
            var = inner._accumulators[key][param.name]
            replicated = [_tp.Replicate()] * t.device_mesh.ndim
            var._t = redistribute(DTensor.from_local(whole, t.device_mesh, replicated, run_check=False),
                                  tuple(t.placements))
            return var._t
        # only this process's part is ever allocated
        made = original(name, param, dtype=dtype, fill_value=fill_value, shape=[0], device=device)
        var = inner._accumulators[key][param.name]
        var._t = _dtensor_full(tuple(t.shape), float(fill_value), dtype=made.dtype, device_mesh=t.device_mesh,
                               placements=t.placements)
        return var._t

    # -- one step ---------------------------------------------------------------------------------------
    def _proxy(self, param, grad):
        """(a Parameter holding the value in the states' layout, the gradient there, whether to write back)."""
        t = param._t
        layout = self._layouts.get(param.name)
        if layout is None:
            self._plan(param)
            layout = self._layouts.get(param.name)
        if layout is None:
            return param, grad, False
        if isinstance(grad, DTensor) and tuple(grad.placements) != layout:
            grad = redistribute(grad, layout)
        if tuple(t.placements) == layout:
            return param, grad, False
        proxy = Parameter.__new__(type(param))
        proxy.__dict__.update(param.__dict__)
        proxy._t = redistribute(t.detach(), layout)
        proxy._name = param.name
        proxy._sg_false = not param.stop_gradient
        return proxy, grad, True

    def _step_params(self, params, group):
        inner = self._inner_opt
        pairs, back = [], []
        k = self.gradient_accumulation_steps
        for p, g in inner._collect(params):
            proxy, grad, write = self._proxy(p, g._t)
            if k > 1:
                grad = grad / k
            pairs.append((proxy, wrap(grad)))
            if write:
                back.append((p, proxy))
        inner._apply_optimize(pairs, group)
        for p, proxy in back:
            whole = redistribute(proxy._t, tuple(p._t.placements))
            p._t.to_local().copy_(whole.to_local())

    def step(self):
        """Update the parameters once from their current gradients, on their dist layouts."""
        with torch.no_grad():
            groups = self._inner_opt._param_groups
            if groups and isinstance(groups[0], dict):
                for group in groups:
                    self._step_params(group["params"], group)
            else:
                self._step_params(groups, None)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        if not in_dynamic_mode():
            return self._inner_opt.minimize(loss, startup_program, parameters, no_grad_set)
        if not isinstance(loss, Tensor):
            raise TypeError(f"minimize: the loss should be a Tensor, got {type(loss).__name__}")
        params_grads = self._inner_opt.backward(loss, startup_program, parameters, no_grad_set)
        self.step()
        return [], params_grads

    def state_dict(self):
        """The inner optimizer's state; as Paddle, the scalar states of dist parameters (beta powers) are
        replicated dist tensors too."""
        inner = self._inner_opt
        state = inner.state_dict()
        meshes = {p.name: p._t.device_mesh for p in self._parameters() if isinstance(p._t, DTensor)}
        for per_param in inner._accumulators.values():
            for name, var in per_param.items():
                mesh = meshes.get(name)
                if mesh is not None and not isinstance(var._t, DTensor) and state.get(var.name) is var:
                    whole = DTensor.from_local(var._t, mesh, [_tp.Replicate()] * mesh.ndim, run_check=False)
                    state[var.name] = wrap(whole)
                    state[var.name].name = var.name
        return state

    def set_state_dict(self, state_dict):
        """Load a state_dict() (dist values are read whole, then cut to this process's layout)."""
        def whole(value):
            if isinstance(value, dict):
                return {k: whole(v) for k, v in value.items()}
            if isinstance(value, Tensor) and isinstance(value._t, DTensor):
                out = wrap(value._t.full_tensor())
                out.name = value.name
                return out
            return value
        return self._inner_opt.set_state_dict(whole(state_dict) if isinstance(state_dict, dict) else state_dict)

    def clear_grad(self, set_to_zero=True):
        return self._inner_opt.clear_grad(set_to_zero)


def shard_optimizer(optimizer, shard_fn=None, gradient_accumulation_steps=1):
    """Wrap ``optimizer`` so its states are dist tensors laid out by ``shard_fn`` (see the module docstring)."""
    return _ShardOptimizer(optimizer, shard_fn, gradient_accumulation_steps)


def shard_scaler(scaler):
    """Make ``scaler`` agree on "found inf" across every process (each sees only its shards of the gradients)."""
    from ...amp import GradScaler
    if not isinstance(scaler, GradScaler):
        raise TypeError(f"shard_scaler: scaler must be a paddle.amp.GradScaler, got {type(scaler).__name__}")
    unscale = scaler._unscale

    def unscale_everywhere(optimizer):
        unscale(optimizer)
        found = scaler._found_inf._t
        if isinstance(found, DTensor):
            found = found.full_tensor()
        found = found.to(torch.int32).reshape(1).clone()
        if _dist.is_initialized() and _dist.get_world_size() > 1:
            _dist.all_reduce(found, op=_dist.ReduceOp.MAX)
        scaler._found_inf = wrap(found.to(torch.bool))

    scaler._unscale = unscale_everywhere
    return scaler
