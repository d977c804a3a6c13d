"""``optimizer.minimize(loss)`` in static mode, built the way Paddle 3.3.1's legacy static graph builds it.

After the backward, ``apply_gradients`` appends (op_role Optimize, parameters in name order):
1. gradient clipping: ``clip`` (ClipGradByValue), ``clip_by_norm`` (ClipGradByNorm), or for
   ClipGradByGlobalNorm ``squared_l2_norm`` per gradient, ``sum``, ``sqrt``, ``fill_constant``,
   ``elementwise_max``, ``elementwise_div`` and an in-place ``elementwise_mul`` per gradient;
2. weight decay: ``scale`` of the parameter (after ``sign`` for L1Decay) and a ``sum`` into its gradient;
3. the persistable ``learning_rate_N`` variable and each parameter's accumulators (``linear_0.w_0_moment1_0``),
   which the startup program fills;
4. one optimizer op per parameter (``sgd``, ``momentum``, ``adam``... see ops/defs/optimizer.py), behind a
   ``scale`` of the learning rate for a parameter with its own rate; the optimizer's ``_static_op`` says which.
The ops compute what the eager optimizer computes, and a saved program trains on in a fresh process or in
real Paddle. With an LRScheduler the Executor writes its value into the learning-rate variable before each run.
NOTE: Paddle 3.3.1 cannot build ClipGradByGlobalNorm in a legacy program (its clip code calls a PIR-only
sqrt); the ops here are what that code appends otherwise.
"""
import contextlib
import weakref

import numpy as np
import torch

from .. import ops as _ops
from ..framework import dtype as _dtype
from ..framework.parameter import create_parameter_from
from ..framework.program import OpRole, Variable, _role_guard, default_startup_program, program_guard
from ..nn.clip import ClipGradBase, ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from ..ops.registry import REGISTRY
from ..regularizer import L1Decay, L2Decay
from ..ops import paddle_op_protos as _protos
from ..static.backward import append_backward
from ..utils import unique_name
from . import optimizer as _optimizer_module
from .lr import LRScheduler

__all__ = ["static_minimize", "static_backward", "static_apply_gradients"]

_LOW_PRECISION = ("float16", "bfloat16")
_FLOAT, _FLOATS = 1, 4   # Paddle's AttrType codes


def _check_loss(optimizer, loss, what):
    if not isinstance(loss, Variable):
        raise TypeError(f"{type(optimizer).__name__}.{what}: in static mode loss must be a static Variable, got "
                        f"{type(loss).__name__}")


def static_backward(optimizer, loss, startup_program=None, parameters=None, no_grad_set=None):
    """``optimizer.backward(loss)`` in static mode: append the backward; -> [(parameter, gradient)]."""
    _check_loss(optimizer, loss, "backward")
    if optimizer._param_groups and isinstance(optimizer._param_groups[0], dict):
        raise NotImplementedError("minimize: parameter groups are not supported in static mode")
    if optimizer._dtype is None:
        optimizer._dtype = loss.dtype
    if parameters is None and optimizer._parameter_list:
        parameters = [p.name for p in optimizer._parameter_list]
    return append_backward(loss, parameters, no_grad_set)


def static_minimize(optimizer, loss, startup_program=None, parameters=None, no_grad_set=None):
    """-> (optimize ops, [(parameter, gradient)]) as Paddle's minimize returns them."""
    _check_loss(optimizer, loss, "minimize")
    params_grads = static_backward(optimizer, loss, startup_program, parameters, no_grad_set)
    ops, _ = static_apply_gradients(optimizer, params_grads, loss.block.program, startup_program)
    return ops, params_grads


def static_apply_gradients(optimizer, params_grads, program=None, startup_program=None):
    """Append clipping, weight decay and the optimizer ops for ``params_grads``; -> (optimize ops, the
    [(parameter, gradient)] pairs the optimizer ops read)."""
    pairs = sorted(((p, g) for p, g in params_grads if g is not None), key=lambda pg: pg[0].name)
    if not pairs:
        return [], []
    program = program or pairs[0][0].block.program
    startup = startup_program or default_startup_program()
    if optimizer._dtype is None:
        optimizer._dtype = pairs[0][0].dtype
    emit = _Emitter(program, startup)
    with program_guard(program, startup):
        if optimizer._grad_clip is not None:
            pairs = _clip(emit, optimizer._grad_clip, pairs)
        pairs = [(p, _regularize(emit, optimizer, p, g)) for p, g in pairs]
        return _optimize(emit, optimizer, [(p, g) for p, g in pairs if p.trainable]), pairs


class _Emitter:
    """Appends the optimize-phase ops and persistable variables of one program (and its startup program)."""

    def __init__(self, program, startup):
        self.program, self.block = program, program.global_block()
        self.startup = startup.global_block()

    @contextlib.contextmanager
    def role(self, param=None, grad=None, role=OpRole.Optimize):
        """Ops appended inside get ``role`` and, as Paddle's ``_optimized_guard``, op_role_var [param, grad];
        their FLOAT attributes are rounded to float32 as Paddle's OpDesc stores them (a float64 program trains
        with beta2 = 0.9990000128746033, in Paddle and here, before and after a save)."""
        first = len(self.block.ops)
        with _role_guard(self.program, role):
            yield
        for op in self.block.ops[first:]:
            if param is not None:
                op.attrs["op_role_var"] = [param.name, grad.name]
            types = _protos.OPS.get(op.type, ({},))[0]
            for name, value in op.attrs.items():
                if types.get(name) == _FLOAT and isinstance(value, float):
                    op.attrs[name] = float(np.float32(value))
                elif types.get(name) == _FLOATS and isinstance(value, list):
                    op.attrs[name] = [float(np.float32(v)) for v in value]

    def temp(self, like, prefix="_generated_var"):
        """A new variable shaped like ``like`` (Paddle's unnamed ``block.create_var`` names it the same way)."""
        return self.block.create_var(name=unique_name.generate(prefix), shape=list(like.shape), dtype=like.dtype,
                                     stop_gradient=True)

    def persistable(self, name, value, fill=None):
        """A persistable variable of both programs that the startup program sets to torch tensor ``value``
        (``fill``: the Python number it was filled with, which Paddle writes as the fill's str_value)."""
        d = _dtype.from_torch_dtype(value.dtype)
        for b in (self.block, self.startup):
            b.create_var(name=name, shape=list(value.shape), dtype=d, persistable=True, stop_gradient=True)
        flat = value.detach().reshape(-1).cpu()
        if flat.numel() and bool((flat == flat[0]).all()):
            first = flat[0].item()
            if fill is None or torch.tensor(fill, dtype=flat.dtype).item() != first:
                fill = first
            self.startup.append_op("fill_constant", {}, {"Out": [name]},
                                   {"shape": list(value.shape), "value": float(fill), "str_value": str(float(fill)),
                                    "dtype": d.proto, "force_cpu": False, "place_type": -1})
        else:
            values = flat.double() if flat.dtype in (torch.float16, torch.bfloat16) else flat
            self.startup.append_op("assign_value", {}, {"Out": [name]},
                                   {"shape": list(value.shape), "dtype": d.proto, "values": values.numpy()})
        return self.block.var(name)


# -- clipping and weight decay ---------------------------------------------------------------------------
def _clip(emit, clip, pairs):
    if isinstance(clip, ClipGradByGlobalNorm):
        return _clip_global_norm(emit, clip, pairs)
    if isinstance(clip, (ClipGradByValue, ClipGradByNorm)):
        out = []
        for p, g in pairs:
            if getattr(p, "need_clip", True) is False:
                out.append((p, g))
                continue
            with emit.role(p, g):
                if isinstance(clip, ClipGradByValue):
                    new = _ops.clip(g, None, None, min=clip.min, max=clip.max)
                else:
                    new = _ops.clip_by_norm(g, max_norm=clip.clip_norm)
            emit.block.ops[-1].attrs["op_role_var"] = [p.name, new.name]
            out.append((p, new))
        return out
    if type(clip)._static_clip is not ClipGradBase._static_clip:
        with _role_guard(emit.program, OpRole.Optimize):
            return clip._static_clip(pairs)
    raise NotImplementedError(f"minimize: {type(clip).__name__} has no static-graph form (_static_clip)")


def _clip_global_norm(emit, clip, pairs):
    clipped = [(p, g) for p, g in pairs if getattr(p, "need_clip", True) is not False]
    if not clipped:
        return pairs
    last = clipped[-1]
    with emit.role(*last):
        by_dtype = {}
        for _, g in clipped:
            by_dtype.setdefault(g.dtype.name, []).append(_ops.squared_l2_norm(g))
        # NOTE: as in Paddle, the sum is float64 when a gradient is float64, else float32
        sum_dtype = _dtype.convert_dtype("float64" if "float64" in by_dtype else "float32")
        parts = []
        for name in ("float16", "bfloat16", "float32", "float64"):
            squares = by_dtype.get(name)
            if squares:
                part = _ops.sum(squares)
                if part.dtype != sum_dtype:
                    part = _ops.cast(part, in_dtype=part.dtype.proto, out_dtype=sum_dtype.proto)
                parts.append(part)
        total = _ops.sum(parts) if len(parts) > 1 else parts[0]
        norm = _ops.sqrt(total)
        max_norm = _ops.fill_constant(None, shape=[1], value=float(clip.clip_norm), str_value=str(clip.clip_norm),
                                      dtype=sum_dtype.proto, force_cpu=False, place_type=-1)
        scale = _ops.elementwise_div(max_norm, _ops.elementwise_max(max_norm, norm, axis=-1), axis=-1)
        scales = {}
    for p, g in clipped:
        with emit.role(p, g):
            factor = scales.get(g.dtype.name)
            if factor is None:
                factor = scale if g.dtype == scale.dtype else _ops.cast(scale, in_dtype=scale.dtype.proto,
                                                                        out_dtype=g.dtype.proto)
                scales[g.dtype.name] = factor
            emit.block.append_op("elementwise_mul", {"X": [g.name], "Y": [factor.name]}, {"Out": [g.name]},
                                 {"axis": -1})
    return pairs


def _regularize(emit, optimizer, param, grad):
    """Append ``grad += decay term`` for the parameter's regularizer (else the optimizer's); -> grad."""
    reg = optimizer._regularizer_of(param, optimizer.regularization)
    if reg is None:
        return grad
    if type(reg) not in (L1Decay, L2Decay):
        raise NotImplementedError(f"minimize: the regularizer {type(reg).__name__} has no static-graph form "
                                  "(use paddle.regularizer.L1Decay or L2Decay)")
    with emit.role(param, grad):
        source = param.name
        if isinstance(reg, L1Decay):
            sign = emit.temp(param)
            emit.block.append_op("sign", {"X": [source]}, {"Out": [sign.name]}, {})
            source = sign.name
        term = emit.temp(param)
        emit.block.append_op("scale", {"X": [source]}, {"Out": [term.name]},
                             {"scale": reg._value(), "bias": 0.0, "bias_after_scale": True})
        emit.block.append_op("sum", {"X": [grad.name, term.name]}, {"Out": [grad.name]}, {})
    return grad


# -- learning rate, accumulators, optimizer ops ------------------------------------------------------------
def _learning_rate(emit, optimizer):
    """The program's persistable learning-rate variable of ``optimizer`` (created on first use)."""
    table = optimizer.__dict__.setdefault("_static_lr_vars", weakref.WeakKeyDictionary())
    var = table.get(emit.program)
    if var is not None:
        return var
    dtype = torch.float64 if optimizer._dtype is not None and optimizer._dtype.name == "float64" else torch.float32
    name = unique_name.generate("learning_rate")
    # 0-D, as Paddle 3.x creates it (checkpoints hold it with shape [])
    lr = float(optimizer.get_lr())
    var = table[emit.program] = emit.persistable(name, torch.tensor(lr, dtype=dtype), lr)
    if isinstance(optimizer._learning_rate, LRScheduler):
        emit.program.lr_scheduler = optimizer._learning_rate
        emit.program._lr_var_name = name
    return var


def _shadow(param):
    """An eager Parameter shaped like static ``param``, for the optimizer to create its accumulators on."""
    t = torch.zeros(param.shape, dtype=param.dtype.torch)
    return create_parameter_from(t, name=param.name, trainable=param.trainable,
                                 optimize_attr=param.optimize_attr, regularizer=param.regularizer,
                                 need_clip=param.need_clip)


def _accumulators(emit, optimizer, param):
    """Create ``param``'s accumulators (and float32 master weight under multi_precision) as the eager
    optimizer does, as persistable variables; -> ({accumulator: variable name}, master name or None)."""
    prefix = optimizer._name + "_" if optimizer._name is not None else ""
    for per_param in optimizer._accumulators.values():
        per_param.pop(param.name, None)    # a program of its own gets accumulators of its own
    shadow = _shadow(param)
    target, master = shadow, None
    if optimizer._multi_precision and param.dtype.name in _LOW_PRECISION:
        optimizer._master_weights.pop(param.name, None)
        target = optimizer._create_master_weight(shadow)
        master = target.name
        # as Paddle's create_global_var: a zero fill, then the cast of the parameter
        emit.persistable(master, torch.zeros(param.shape, dtype=torch.float32), 0.0)
        emit.startup.append_op("cast", {"X": [param.name]}, {"Out": [master]},
                               {"in_dtype": param.dtype.proto, "out_dtype": _dtype.convert_dtype("float32").proto})
    fills = optimizer._static_fills = {}
    try:
        optimizer._create_state(target, optimizer._group_options(None))
    finally:
        optimizer._static_fills = None
    optimizer._param_states.pop(param.name, None)
    accs = {}
    for key, per_param in optimizer._accumulators.items():
        var = per_param.get(target.name)
        if var is not None:
            emit.persistable(var.name, var._t, fills.get(var.name))
            accs[key[len(prefix):]] = var.name
    return accs, master


def _param_lr(emit, param, lr):
    """The learning rate of ``param``: the global one, or a ``scale`` of it by the parameter's own rate."""
    scale = (getattr(param, "optimize_attr", None) or {}).get("learning_rate", 1.0)
    scale = float(scale._t) if hasattr(scale, "_t") else float(scale)
    if scale == 1.0:
        return lr, None
    out = emit.temp(lr, prefix="tmp")
    with emit.role(role=OpRole.Optimize | OpRole.LRSched):
        op = emit.block.append_op("scale", {"X": [lr.name]}, {"Out": [out.name]},
                                  {"scale": scale, "bias": 0.0, "bias_after_scale": True})
    return out, op


def _with_master(op_type, inputs, outputs, attrs, master):
    """Add the MasterParam slots (``master_param`` for the lower-case ops) and multi_precision."""
    if master is None:
        return
    slots = {s.name for s in REGISTRY[op_type].inputs}
    name = "MasterParam" if "MasterParam" in slots else "master_param"
    inputs[name] = [master]
    outputs["MasterParamOut" if name == "MasterParam" else "master_param_out"] = [master]
    attrs["multi_precision"] = True


def _optimize(emit, optimizer, pairs):
    lr = _learning_rate(emit, optimizer)
    prepared = [(p, g) + _accumulators(emit, optimizer, p) for p, g in pairs]
    found_inf = optimizer._get_auxiliary_var("found_inf")
    ops, entries = [], []
    for param, grad, accs, master in prepared:
        param_lr, scale_op = _param_lr(emit, param, lr)
        if scale_op is not None:
            ops.append(scale_op)
        with emit.role(param, grad):
            op_type, inputs, outputs, attrs = optimizer._static_op(emit.block, param, grad.name, param_lr.name, accs)
            _with_master(op_type, inputs, outputs, attrs, master)
            if isinstance(found_inf, Variable) and any(s.name == "SkipUpdate" for s in REGISTRY[op_type].inputs):
                inputs["SkipUpdate"] = [found_inf.name]
            ops.append(emit.block.append_op(op_type, inputs, outputs, attrs))
        entries.append((param, grad, accs))
    for param, grad, accs in entries:
        with emit.role(param, grad):
            optimizer._static_finish(emit.block, param, accs)
    return ops


def install():
    _optimizer_module.STATIC.update(minimize=static_minimize, backward=static_backward,
                                    apply_gradients=static_apply_gradients)
