"""``optimizer.minimize(loss)`` in static mode: append the backward, then one ``optimizer_step`` op.

The op runs the optimizer's own eager update (clipping, weight decay, the update rule, all as in dygraph)
over every parameter at once, on the parameter and accumulator tensors of the scope. The accumulators are
persistable variables of the program with Paddle's names (``linear_0.w_0_moment1_0``), created by the
startup program, so ``static.save``/``Program.state_dict`` carry them. The learning rate is the persistable
``learning_rate_N`` variable; with an LRScheduler the Executor refreshes it before every run, as Paddle does.
"""
import itertools
import weakref

import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.parameter import create_parameter_from
from ..framework.program import OpRole, Variable, _role_guard, default_startup_program
from ..ops.registry import op
from ..static.backward import append_backward
from ..utils import unique_name
from . import optimizer as _optimizer_module
from .lr import LRScheduler

__all__ = ["static_minimize"]

# key -> _Binding; the Program holds its bindings (so ``SGD(0.1).minimize(loss)`` keeps the optimizer alive
# as long as the program), this table only finds them
_BINDINGS = weakref.WeakValueDictionary()
_KEYS = itertools.count(1)


class _Binding:
    """What the optimizer_step kernel needs beyond tensors: the optimizer and each parameter's state layout."""

    def __init__(self, optimizer, params, layouts):
        self.optimizer = optimizer
        self.params = params          # [(name, {attrs for the eager Parameter wrapper})]
        self.layouts = layouts        # per parameter: [("t", i) | ("np", i) | (None, None)] over State[]
        self.wrappers = {}


@op("optimizer_step", inputs=["Param[]", "Grad[]", "LearningRate", "State[]"], outputs=["ParamOut[]", "StateOut[]"],
    attrs={"binding": 0, "optimizer_type": ""}, differentiable=False)
def optimizer_step(Param, Grad, LearningRate, State, *, binding, optimizer_type):
    bound = _BINDINGS.get(binding)
    optimizer = bound.optimizer if bound is not None else None
    if optimizer is None:
        raise RuntimeError(f"optimizer_step: the {optimizer_type or 'optimizer'} that built this program no longer "
                           "exists (a loaded training program needs optimizer.minimize called again)")
    pairs = []
    for (name, attrs), p, g, layout in zip(bound.params, Param, Grad, bound.layouts):
        wrapper = bound.wrappers.get(name)
        if wrapper is None:
            wrapper = bound.wrappers[name] = create_parameter_from(p.detach(), name=name, **attrs)
        # a trainable wrapper's tensor requires grad (stop_gradient is derived from it); the update is in place
        wrapper._t = p if p.requires_grad else p.detach().requires_grad_(True)
        optimizer._param_states[name] = tuple(
            None if kind is None else State[i] if kind == "t" else State[i].numpy() for kind, i in layout)
        pairs.append((wrapper, _wrap(g)))
    with torch.no_grad():
        optimizer._apply_optimize(pairs, None)
    return [w._t for w, _ in pairs], list(State)


def _wrap(t):
    from ..framework.tensor import wrap
    return wrap(t)


def _shadow(param):
    """An eager Parameter shaped like static ``param``, to let the optimizer create its accumulators."""
    t = torch.zeros(param.shape, dtype=param.dtype.torch)
    return create_parameter_from(t, name=param.name, trainable=param.trainable,
                                 optimize_attr=param.optimize_attr, regularizer=param.regularizer,
                                 need_clip=param.need_clip)


def _init_op(block, name, value):
    """Startup op giving ``name`` the value of torch tensor ``value``."""
    d = _dtype.from_torch_dtype(value.dtype)
    flat = value.reshape(-1)
    on_cpu = value.device.type == "cpu" and value.numel() == 1
    if flat.numel() and bool((flat == flat[0]).all()):
        block.append_op("fill_constant", {}, {"Out": [name]},
                        {"shape": list(value.shape), "value": float(flat[0]), "str_value": "", "dtype": d.proto,
                         "force_cpu": on_cpu, "place_type": 0 if on_cpu else -1})
    else:
        block.append_op("assign_value", {}, {"Out": [name]},
                        {"shape": list(value.shape), "dtype": d.proto, "values": value.cpu().numpy()})


def static_minimize(optimizer, loss, startup_program=None, parameters=None, no_grad_set=None):
    if not isinstance(loss, Variable):
        raise TypeError(f"{type(optimizer).__name__}.minimize: in static mode loss must be a static Variable, got "
                        f"{type(loss).__name__}")
    if optimizer._param_groups and isinstance(optimizer._param_groups[0], dict):
        raise NotImplementedError("minimize: parameter groups are not supported in static mode")
    if parameters is None and optimizer._parameter_list:
        parameters = [p.name for p in optimizer._parameter_list]
    params_grads = append_backward(loss, parameters, no_grad_set)
    program = loss.block.program
    block = program.global_block()
    startup = (startup_program or default_startup_program()).global_block()
    if optimizer._dtype is None:
        optimizer._dtype = loss.dtype

    lr_name = unique_name.generate("learning_rate")
    lr_value = float(optimizer.get_lr())
    lr_dtype = _dtype.DTYPES["float64" if loss.dtype.name == "float64" else "float32"]
    for b in (block, startup):
        # 0-D, as Paddle 3.x creates it (checkpoints hold it with shape [])
        b.create_var(name=lr_name, shape=[], dtype=lr_dtype, persistable=True, stop_gradient=True)
    startup.append_op("fill_constant", {}, {"Out": [lr_name]},
                      {"shape": [], "value": lr_value, "str_value": "", "dtype": lr_dtype.proto, "force_cpu": False,
                       "place_type": -1})
    if isinstance(optimizer._learning_rate, LRScheduler):
        program.lr_scheduler = optimizer._learning_rate
        program._lr_var_name = lr_name

    options = optimizer._group_options(None)
    state_names, layouts, params = [], [], []
    for param, _ in params_grads:
        shadow = _shadow(param)
        state = optimizer._create_state(shadow, options)
        optimizer._param_states.pop(param.name, None)
        layout = []
        by_id = {}
        for accs in optimizer._accumulators.values():
            var = accs.get(param.name)
            if var is not None:
                by_id[id(var._t)] = var
        for element in state:
            if element is None:
                layout.append((None, None))
                continue
            if isinstance(element, np.ndarray):
                var = next(v for v in by_id.values() if v._t.numpy() is element or
                           np.shares_memory(v._t.numpy(), element))
                kind = "np"
            else:
                var = by_id[id(element)]
                kind = "t"
            for b in (block, startup):
                b.create_var(name=var.name, shape=list(var.shape), dtype=var.dtype, persistable=True,
                             stop_gradient=True)
            _init_op(startup, var.name, var._t)
            layout.append((kind, len(state_names)))
            state_names.append(var.name)
        layouts.append(layout)
        params.append((param.name, dict(trainable=param.trainable, optimize_attr=param.optimize_attr,
                                        regularizer=param.regularizer, need_clip=param.need_clip)))
    key = next(_KEYS)
    bound = _Binding(optimizer, params, layouts)
    _BINDINGS[key] = bound
    program._keepalive.append(bound)
    names = [p.name for p, _ in params_grads]
    grads = [g.name for _, g in params_grads]
    with _role_guard(program, OpRole.Optimize):
        step = block.append_op("optimizer_step",
                               {"Param": names, "Grad": grads, "LearningRate": [lr_name], "State": state_names},
                               {"ParamOut": names, "StateOut": state_names},
                               {"binding": key, "optimizer_type": getattr(optimizer, "type", "")})
    return [step], params_grads


def install():
    _optimizer_module.STATIC_MINIMIZE[0] = static_minimize
