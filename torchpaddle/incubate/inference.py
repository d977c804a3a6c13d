"""incubate.inference: Paddle's decorator that reroutes a function or Layer through Paddle Inference (TensorRT,
IR passes). Those are speed-ups only, so here the decorated callable runs as it is."""


def inference(function=None, cache_static_model=False, save_model_dir=None, memory_pool_init_size_mb=1000,
              precision_mode="float32", switch_ir_optim=True, switch_ir_debug=False, enable_cinn=False,
              with_trt=False, trt_precision_mode="float32", trt_use_static=False, collect_shape=False,
              enable_new_ir=False, exp_enable_use_cutlass=False, delete_pass_lists=None, skip_prune_program=False):
    """Return ``function`` unchanged (or a decorator doing so); the inference-engine options have no effect."""
    if precision_mode not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"inference: precision_mode should be 'float32', 'float16' or 'bfloat16', "
                         f"got {precision_mode!r}")
    if function is None:
        return lambda fn: fn
    if not callable(function):
        raise TypeError(f"inference: function should be a callable or a Layer, got {type(function).__name__}")
    return function
