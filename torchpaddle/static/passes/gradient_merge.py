"""Gradient merge: k micro-steps add their gradients up; the optimizer runs on every k-th step only.

The rewrite is Paddle's static gradient merge (``GradientMergeOptimizer``, the legacy auto-parallel pass), on a
program whose optimizer ops are appended:

- persistable int32 ``gradient_merge_step`` / ``gradient_merge_k`` / ``gradient_merge_zero``; after the backward
  ``step = (step + 1) % k`` and the bool ``gradient_merge_cond = step == 0``;
- per parameter a persistable ``<param>@GRAD@GradientMerge`` (zero in the startup program) and
  ``merged = grad + merged`` after the backward;
- the optimize-role ops move into a ``conditional_block`` run when the condition holds, reading the merged
  gradients (``avg``: scaled by 1/k first), which are zeroed after the update.
"""
from ...framework import dtype as _dtype
from ...framework.program import GRAD_SUFFIX, OpRole
from ..nn.control_flow import _block_io, _scope_var

__all__ = ["apply_gradient_merge"]

_MERGED = GRAD_SUFFIX + "@GradientMerge"
_INT32 = _dtype.convert_dtype("int32")


def _persistable(main, startup, name, shape, dtype, value):
    """A persistable variable of ``main`` that ``startup`` fills with ``value``."""
    for block in (main, startup):
        if block.has_var(name):
            raise ValueError(f"gradient_merge: the program already has a variable {name!r}; apply the pass once")
        block.create_var(name=name, shape=shape, dtype=dtype, persistable=True, stop_gradient=True)
    startup.append_op("fill_constant", {}, {"Out": [name]},
                      {"shape": list(shape), "value": float(value), "str_value": "", "dtype": dtype.proto,
                       "force_cpu": False, "place_type": -1})
    return name


def _params_grads(block, given):
    if given is not None:
        pairs = [(p if isinstance(p, str) else p.name, g if isinstance(g, str) else g.name)
                 for p, g in given if g is not None]
    else:
        # append_backward tags the op writing each parameter's gradient with op_role_var [param, grad]
        pairs = []
        for op in block.ops:
            pair = op.attrs.get("op_role_var")
            if op.attrs.get("op_role", 0) & OpRole.Backward and pair and len(pair) == 2 and \
                    tuple(pair) not in pairs:
                pairs.append(tuple(pair))
    if not pairs:
        raise ValueError("gradient_merge: no (parameter, gradient) pairs: give config['params_grads'] or apply "
                         "the pass to a program built by optimizer.minimize")
    return pairs


def _rename(op, old, new):
    for slots in (op.inputs, op.outputs):
        for names in slots.values():
            names[:] = [new if n == old else n for n in names]


def apply_gradient_merge(main_program, startup_program, config=None):
    """The gradient merge pass on ``main_program`` (with its optimizer ops) and ``startup_program``. ``config``:

    - ``k_steps`` (int): the optimizer runs every k-th run; below 1 the pass does nothing (as Paddle's);
    - ``avg`` (bool, default True): update with the mean of the k gradients instead of their sum;
    - ``params_grads``: [(parameter, gradient)] to merge; default: the pairs append_backward tagged.

    Returns {"params_grads": [(parameter name, merged gradient name)], "cond": the condition's name} ({} when
    not applied)."""
    config = dict(config or {})
    k_steps = config.get("k_steps", 1)
    if isinstance(k_steps, bool) or not isinstance(k_steps, int):
        raise TypeError(f"gradient_merge: k_steps must be an int, got {type(k_steps).__name__}")
    if k_steps < 1:
        return {}
    avg = bool(config.get("avg", True))
    block, startup = main_program.global_block(), startup_program.global_block()
    optimize = [op for op in block.ops if op.attrs.get("op_role", 0) & OpRole.Optimize]
    if not optimize:
        raise ValueError("gradient_merge: the program has no optimizer ops; apply the pass after "
                         "optimizer.minimize (or apply_gradients)")
    pairs = _params_grads(block, config.get("params_grads"))
    at = block.ops.index(optimize[0])
    for op in optimize:
        block.ops.remove(op)

    k_var = _persistable(block, startup, "gradient_merge_k", [1], _INT32, k_steps)
    zero = _persistable(block, startup, "gradient_merge_zero", [1], _INT32, 0)
    step = _persistable(block, startup, "gradient_merge_step", [1], _INT32, 0)
    cond = block.create_var(name="gradient_merge_cond", shape=[1], dtype="bool", stop_gradient=True).name
    ops = [("increment", {"X": [step]}, {"Out": [step]}, {"step": 1.0}),
           ("elementwise_mod", {"X": [step], "Y": [k_var]}, {"Out": [step]}, {"axis": -1}),
           ("equal", {"X": [step], "Y": [zero]}, {"Out": [cond]}, {"axis": -1})]
    merged = []
    for param, grad in pairs:
        g = block._find_var_recursive(grad)
        name = _persistable(block, startup, param + _MERGED, list(g.desc_shape), g.dtype, 0.0)
        merged.append((param, grad, name))
        ops.append(("elementwise_add", {"X": [grad], "Y": [name]}, {"Out": [name]},
                    {"axis": -1, "op_role": OpRole.Backward, "op_role_var": [param, grad]}))
    for k, (op_type, inputs, outputs, attrs) in enumerate(ops):
        attrs.setdefault("op_role", OpRole.Forward)
        block._insert_op(at + k, op_type, inputs, outputs, attrs)

    sub = main_program._create_block(parent_idx=0)
    try:
        if avg:
            for _, _, name in merged:
                sub.append_op("scale", {"X": [name]}, {"Out": [name]},
                              {"scale": 1.0 / k_steps, "bias": 0.0, "bias_after_scale": False,
                               "op_role": OpRole.Backward})
        for op in optimize:
            for _, grad, name in merged:
                _rename(op, grad, name)
            sub.append_op(op.type, op.inputs, op.outputs, op.attrs)
        for _, _, name in merged:
            var = block.var(name)
            sub.append_op("fill_constant", {}, {"Out": [name]},
                          {"shape": list(var.desc_shape), "value": 0.0, "str_value": "", "dtype": var.dtype.proto,
                           "force_cpu": False, "place_type": -1, "op_role": OpRole.Optimize})
    finally:
        main_program._rollback()
    _adopt_temporaries(block, sub)
    reads, writes = _block_io(sub)
    block.append_op("conditional_block", {"Cond": [cond], "Input": reads},
                    {"Out": writes, "Scope": [_scope_var(block).name]},
                    {"sub_block": sub, "is_scalar_condition": True, "op_role": OpRole.Forward})
    main_program._invalidate()
    return {"params_grads": [(p, name) for p, _, name in merged], "cond": cond}


def _adopt_temporaries(block, sub):
    """Move the non-persistable variables only the moved ops use into the sub-block, as Paddle declares them."""
    outside = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    for op in sub.ops:
        for n in op.output_arg_names:
            var = block.vars.get(n)
            if var is not None and not var.persistable and n not in outside:
                del block.vars[n]
                var.block = sub
                sub.vars[n] = var
