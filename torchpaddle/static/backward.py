"""append_backward / gradients: append ``<type>_grad`` ops and ``X@GRAD`` variables to a Program.

The grad ops are real OpDescs (they serialize and print like Paddle's). A variable read by several forward ops
gets one gradient contribution per reader: as Paddle, each is written to ``x@GRAD@RENAME@block0@k`` and a ``sum``
op adds them into ``x@GRAD`` before its first reader (a program run by Paddle overwrites, never adds). The
Executor runs the grad ops one by one (static/grad_ops.py), or, while they are exactly as made here (the mark
``Operator._made_by``), as one autograd step over the forward graph of the same run (see executor.py).
"""
from ..framework.program import GRAD_SUFFIX, Block, OpRole, Variable, _role_guard, grad_var_name
from ..ops.registry import REGISTRY

__all__ = ["append_backward", "gradients", "as_made"]


def _as_names(values, what):
    if values is None:
        return set()
    if isinstance(values, (Variable, str)):
        values = [values]
    out = set()
    for v in values:
        if isinstance(v, Variable):
            out.add(v.name)
        elif isinstance(v, str):
            out.add(v)
        else:
            raise TypeError(f"{what} must hold Variables or names, got {type(v).__name__}")
    return out


def _differentiable(var):
    return var is not None and not var.stop_gradient and (var.dtype.is_floating_point or
                                                          var.dtype.name.startswith("complex"))


def _path_ops(block, target_names, no_grad):
    """Forward ops on a path from a differentiable input to a target, with the variables needing a gradient."""
    ops = [op for op in block.ops if not (op.attrs.get("op_role", 0) & (OpRole.Backward | OpRole.Optimize))]

    def wants(n):
        return n not in no_grad and _differentiable(block._find_var_recursive(n))

    # forward reachability: which variables depend on a differentiable leaf
    live, produced = set(), set()
    for op in ops:
        for n in op.input_arg_names:
            if n not in produced and wants(n):
                live.add(n)
        d = REGISTRY.get(op.type)
        if (d is None or d.differentiable) and any(n in live for n in op.input_arg_names):
            live.update(n for n in op.output_arg_names if wants(n))
        produced.update(op.output_arg_names)
    # backward reachability from the targets
    needed = set(target_names)
    chosen = []
    for op in reversed(ops):
        outs = [n for n in op.output_arg_names if n in needed and n in live]
        if not outs:
            continue
        ins = [n for n in op.input_arg_names if n in live]
        if not ins:
            continue
        chosen.append((op, outs, ins))
        needed.update(ins)
    return chosen


def _new_grad_var(block, fwd):
    """``<name>@GRAD`` for ``fwd``; a later backward of the same program numbers its own (``x@GRAD_1``), so that
    each pass's gradients can be fetched."""
    name = base = grad_var_name(fwd.name)
    k = 0
    while name in block.vars:
        k += 1
        name = f"{base}_{k}"
    return block.create_var(name=name, shape=fwd.shape, dtype=fwd.dtype, stop_gradient=False)


def _grad_op_spec(op, ins, grads, block):
    """(type, inputs, outputs, attrs) of the grad op of forward ``op``: it reads the forward's inputs and outputs
    and the gradients of its outputs, and writes the gradients of its inputs in ``ins``."""
    inputs = {slot: list(names) for slot, names in op.inputs.items()}
    inputs.update({slot: list(names) for slot, names in op.outputs.items()})
    for slot, names in op.outputs.items():
        have = [grads[n].name for n in names if n in grads]
        if have:
            inputs[slot + GRAD_SUFFIX] = have
    outputs = {}
    for slot, names in op.inputs.items():
        wanted = [n for n in names if n in ins]
        if not wanted:
            continue
        for n in wanted:
            if n not in grads:
                grads[n] = _new_grad_var(block, block._find_var_recursive(n))
        outputs[slot + GRAD_SUFFIX] = [grads[n].name for n in wanted]
    attrs = {k: v for k, v in op.attrs.items() if k not in ("op_role", "op_callstack")}
    attrs["op_role"] = OpRole.Backward
    return op.type + "_grad", inputs, outputs, attrs


def _add_up_repeated_grads(specs, block_idx):
    """Paddle's accumulation of a gradient written by several grad ops: each write goes to a name of its own,
    ``<grad>@RENAME@block<idx>@<k>``, and a ``sum`` op adds them into ``<grad>`` right before its first reader
    (at the end when none reads it). Returns the new specs and {renamed: grad name}."""
    out, held, start, count, renamed = [], {}, {}, {}, {}

    def fresh(name):
        k = count.get(name, 0)
        count[name] = k + 1
        new = f"{name}@RENAME@block{block_idx}@{k}"
        renamed[new] = name
        return new

    def add_up(name):
        out.append(("sum", {"X": held[name]}, {"Out": [name]}, {"op_role": OpRole.Backward}))
        held[name], start[name] = [name], len(out) - 1

    for spec in specs:
        type_, inputs, outputs, attrs = spec
        reads = [n for names in inputs.values() for n in names]
        for n in reads:
            if len(held.get(n, ())) > 1:
                add_up(n)
        places = [(names, i) for names in outputs.values() for i in range(len(names))]
        for k, (names, i) in enumerate(places):
            n = names[i]
            if GRAD_SUFFIX not in n or n in reads:
                continue
            if not held.get(n):
                held[n], start[n] = [n], len(out)
                continue
            if len(held[n]) == 1:
                # the first write gets a name of its own too: in the ops already placed, or earlier in this one
                first = fresh(n)
                for _, ins, outs, _ in out[start[n]:]:
                    for group in list(ins.values()) + list(outs.values()):
                        group[:] = [first if x == n else x for x in group]
                for group, j in places[:k]:
                    if group[j] == n:
                        group[j] = first
                held[n][0] = first
            names[i] = fresh(n)
            held[n].append(names[i])
        out.append(spec)
    for n in list(held):
        if len(held[n]) > 1:
            add_up(n)
    return out, renamed


# attributes a pass or the user may change without changing what a grad op computes
_FREE_ATTRS = frozenset(["op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr"])


def _snapshot(op):
    """What a grad op computes from: its type, slots and attributes."""
    attrs = {k: list(v) if isinstance(v, list) else v.idx if isinstance(v, Block) else v
             for k, v in op.attrs.items() if k not in _FREE_ATTRS}
    return op.type, {k: list(v) for k, v in op.inputs.items()}, {k: list(v) for k, v in op.outputs.items()}, attrs


def _mark(ops):
    """Mark the ops of one backward pass, as made (see ``as_made``)."""
    token = object()
    for k, op in enumerate(ops):
        op._made_by = (token, k, len(ops), _snapshot(op))


def as_made(ops):
    """Whether ``ops``, a run of backward ops, are whole backward passes exactly as ``append_backward`` /
    ``gradients`` made them: none moved, dropped, duplicated, added or edited. Only then may the Executor
    run them as one autograd step."""
    i = 0
    while i < len(ops):
        mark = getattr(ops[i], "_made_by", None)
        if mark is None or mark[1] != 0 or i + mark[2] > len(ops):
            return False
        token, _, n, _ = mark
        for k, op in enumerate(ops[i:i + n]):
            mark = getattr(op, "_made_by", None)
            if mark is None or mark[0] is not token or mark[1] != k or mark[3] != _snapshot(op):
                return False
        i += n
    return True


def _append_grad_ops(block, targets, target_grads, no_grad):
    """Seed each target's gradient and append the grad ops; returns {forward name: grad Variable}."""
    program = block.program
    target_names = [t.name for t in targets]
    grads = {}
    with _role_guard(program, OpRole.Backward):
        for target, given in zip(targets, target_grads):
            gvar = _new_grad_var(block, target)
            gname = gvar.name
            if given is None:
                op = block.append_op("fill_constant", {}, {"Out": [gname]},
                                     {"shape": list(target.shape), "value": 1.0, "dtype": target.dtype.proto,
                                      "str_value": "", "force_cpu": False, "place_type": -1,
                                      "op_role": OpRole.Backward | OpRole.Loss})
                if any(d < 0 for d in target.shape):
                    # a batch-sized target seeds with ones of its runtime shape
                    op.type = "fill_any_like"
                    op.inputs = {"X": [target.name]}
                    op.attrs = {"value": 1.0, "dtype": -1, "op_role": OpRole.Backward | OpRole.Loss}
            else:
                block.append_op("assign", {"X": [given.name]}, {"Out": [gname]})
            grads[target.name] = gvar
        specs = [_grad_op_spec(op, ins, grads, block) for op, outs, ins in _path_ops(block, target_names, no_grad)]
        specs, renamed = _add_up_repeated_grads(specs, block.idx)
        for new, name in renamed.items():
            base = block.var(name)
            block.create_var(name=new, shape=base.shape, dtype=base.dtype, stop_gradient=False)
        _mark([block.append_op(*spec) for spec in specs])
    return grads


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None,
                    distop_context=None):
    """Append the backward of ``loss``; returns [(parameter, its @GRAD Variable)]."""
    if not isinstance(loss, Variable):
        raise TypeError(f"append_backward: loss must be a static Variable, got {type(loss).__name__}")
    if loss.stop_gradient:
        raise ValueError(f"append_backward: loss {loss.name} has stop_gradient=True; nothing depends on a "
                         "trainable input")
    if callbacks is not None and not isinstance(callbacks, (list, tuple)):
        raise TypeError("append_backward: callbacks must be a list")
    block = loss.block.program.global_block()
    no_grad = _as_names(no_grad_set, "append_backward: no_grad_set")
    no_grad |= {v.name for v in block.vars.values() if v.stop_gradient}
    grads = _append_grad_ops(block, [loss], [None], no_grad)
    if parameter_list is not None:
        names = [p.name if isinstance(p, Variable) else p for p in parameter_list]
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"append_backward: parameter_list must hold Parameters or names, got "
                                f"{type(n).__name__}")
        params = [block.var(n) for n in names]
    else:
        params = [p for p in block.program.all_parameters() if p.trainable]
    pairs = [(p, grads[p.name]) for p in params if p.name in grads]
    for p, g in pairs:
        for op in block.ops:
            if g.name in op.output_arg_names and op.attrs.get("op_role", 0) & OpRole.Backward:
                op.attrs["op_role_var"] = [p.name, g.name]
    if isinstance(checkpoints, (list, tuple)) and checkpoints:
        # Paddle's recompute: the segments between checkpoints re-run in the backward (static/passes/recompute.py)
        from .passes.recompute import recompute_backward
        recompute_backward(block, loss.name, checkpoints)
    if callbacks:
        for cb in callbacks:
            cb(block=block, context={})
    return pairs


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Append the backward of ``targets`` w.r.t. ``inputs``; returns their @GRAD Variables (None where an
    input does not reach any target)."""
    single = isinstance(inputs, Variable)
    targets = [targets] if isinstance(targets, Variable) else list(targets)
    inputs = [inputs] if single else list(inputs)
    for what, vs in (("targets", targets), ("inputs", inputs)):
        for v in vs:
            if not isinstance(v, Variable):
                raise TypeError(f"gradients: {what} must be static Variables, got {type(v).__name__}")
    if target_gradients is None:
        target_gradients = [None] * len(targets)
    else:
        if isinstance(target_gradients, Variable):
            target_gradients = [target_gradients]
        target_gradients = list(target_gradients)
        if len(target_gradients) != len(targets):
            raise ValueError(f"gradients: {len(target_gradients)} target_gradients for {len(targets)} targets")
        for t, g in zip(targets, target_gradients):
            if g is not None and list(g.shape) != list(t.shape):
                raise ValueError(f"gradients: target_gradient {g.name} has shape {g.shape}, target {t.name} has "
                                 f"{t.shape}")
    block = targets[0].block.program.global_block()
    no_grad = _as_names(no_grad_set, "gradients: no_grad_set")
    no_grad |= {v.name for v in block.vars.values() if v.stop_gradient}
    # like Paddle, an input with stop_gradient=True gets None
    grads = _append_grad_ops(block, targets, target_gradients, no_grad)
    return [grads.get(v.name) for v in inputs]

