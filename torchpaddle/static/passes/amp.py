"""AMP as a pass: the program rewrite of ``paddle.static.amp.decorate`` (static/amp/), applied to a built program.

O1: white-list ops compute in float16/bfloat16 behind ``cast`` ops, black-list ops in float32, gray ops follow
their inputs. O2: the model in half precision (but the black list), its parameters half-precision variables that
the startup program casts after initialising them; the optimizer keeps float32 master weights
(``multi_precision``). float16 scales the loss by ``loss_scaling`` (dynamic by default) and appends
``check_finite_and_unscale`` / ``update_loss_scaling`` for the optimizer ops to come.

As in Paddle's order (backward, AMP, optimizer), the program may hold the loss's backward but no optimizer ops
yet: the backward is appended again after the rewrite, from the scaled loss.
"""
from ...framework.program import GRAD_SUFFIX, OpRole, Variable
from ..amp.decorator import OptimizerWithMixedPrecision, _set_multi_precision
from ..amp.fp16_lists import AutoMixedPrecisionLists

__all__ = ["apply_amp"]

_DEFAULTS = {"dtype": "float16", "level": "o1", "init_loss_scaling": 32768.0, "incr_every_n_steps": 1000,
             "decr_every_n_nan_or_inf": 2, "incr_ratio": 2.0, "decr_ratio": 0.8, "use_dynamic_loss_scaling": True,
             "custom_white_list": [], "custom_black_list": [], "custom_black_varnames": [],
             "use_fp16_guard": False, "use_bf16_guard": False, "use_master_grad": False, "use_promote": True}


def _strip_backward(block):
    """Remove the backward ops and their gradient variables; -> the parameters that had a gradient, in order."""
    if any(op.attrs.get("op_role", 0) & OpRole.Optimize for op in block.ops):
        raise ValueError("amp: the program already holds optimizer ops; apply the AMP pass after the backward "
                         "and before the optimizer (optimizer.apply_gradients)")
    removed = [op for op in block.ops if op.attrs.get("op_role", 0) & OpRole.Backward]
    params = []
    for op in removed:
        pair = op.attrs.get("op_role_var")
        if pair and len(pair) == 2 and pair[0] not in params:
            params.append(pair[0])
    block.ops[:] = [op for op in block.ops if not op.attrs.get("op_role", 0) & OpRole.Backward]
    used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    for op in removed:
        for n in op.output_arg_names:
            if GRAD_SUFFIX in n and n not in used:
                block.vars.pop(n, None)
    block.program._invalidate()
    return params


def apply_amp(main_program, startup_program, config):
    """The AMP pass. ``config``: Paddle's ``strategy.amp`` keys (``dtype`` float16/bfloat16, ``level``
    o1/o2/o3, ``init_loss_scaling``, ``use_dynamic_loss_scaling``, ``incr_every_n_steps``,
    ``decr_every_n_nan_or_inf``, ``incr_ratio``, ``decr_ratio``, ``custom_white_list``, ``custom_black_list``,
    ``custom_black_varnames``, ``use_fp16_guard``/``use_bf16_guard``, ``use_promote``) and:

    - ``loss`` (required): the loss Variable;
    - ``params_grads``: the parameters to train (default: those the backward reached, else all trainable);
    - ``base_opt``: the optimizer that will update them: O2 turns its ``multi_precision`` on (o3: off), and
      with loss scaling it skips or zeroes the step when ``found_inf``.

    Returns {"loss": the (scaled) loss to fetch, "params_grads": the new [(parameter, gradient)],
    "loss_scaling": Variable or None, "found_inf": Variable or None}."""
    config = dict(_DEFAULTS, **(config or {}))
    loss = config.get("loss")
    if not isinstance(loss, Variable):
        raise TypeError(f"amp: config['loss'] must be the loss Variable, got {type(loss).__name__}")
    level = str(config["level"]).upper()
    if level not in ("O1", "O2", "O3"):
        raise ValueError(f"amp: level must be 'o1', 'o2' or 'o3', got {config['level']!r}")
    dtype = config["dtype"]
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"amp: dtype must be 'float16' or 'bfloat16', got {dtype!r}")
    lists = AutoMixedPrecisionLists(set(config["custom_white_list"]), set(config["custom_black_list"]),
                                    set(config["custom_black_varnames"]), dtype=dtype)
    guard = config["use_fp16_guard"] if dtype == "float16" else config["use_bf16_guard"]
    block = main_program.global_block()
    params = _strip_backward(block)
    given = config.get("params_grads")
    if given:
        params = [p if isinstance(p, str) else p.name for p, _ in given]
    base_opt = config.get("base_opt")
    amp = OptimizerWithMixedPrecision(
        # as Paddle's pass: bfloat16 has float32's range and is never scaled
        base_opt, lists, "O2" if level == "O3" else level, dtype,
        config["init_loss_scaling"] if dtype == "float16" else 1.0,
        config["use_dynamic_loss_scaling"] and dtype == "float16", config["incr_every_n_steps"],
        config["decr_every_n_nan_or_inf"], config["incr_ratio"], config["decr_ratio"], use_amp_guard=guard,
        use_master_grad=config["use_master_grad"], use_promote=config["use_promote"])
    params_grads = amp.backward(loss, startup_program, params or None)
    found_inf = amp._unscale(params_grads) if amp._scales() else None
    if base_opt is not None:
        if level in ("O2", "O3"):
            _set_multi_precision(base_opt, level == "O2")
        if found_inf is not None:
            base_opt._set_auxiliary_var("found_inf", found_inf)
    amp._cast_startup_parameters()
    return {"loss": amp.get_scaled_loss(), "params_grads": params_grads,
            "loss_scaling": amp._loss_scaling if amp._scales() else None, "found_inf": found_inf}
