"""``BuildStrategy`` and ``ExecutionStrategy``: the options of a CompiledProgram / ParallelExecutor.

Every field Paddle has is accepted, type-checked as Paddle's pybind setters do, with Paddle 3.3.1's defaults
(2.x-only fields keep their 2.x defaults). What each one does here:

- ``memory_optimize``: None (default) and True free each temporary right after its last reader, as the
  Executor always does; False keeps every temporary until the run ends.
- ``reduce_strategy`` (AllReduce / Reduce) and ``fuse_all_reduce_ops``: in one process both reduce
  strategies give every place the same averaged gradient, so they compute the same thing.
- ``gradient_scale_strategy``: CoeffNumDevice averages the places' gradients (Paddle's default), One sums
  them, Customized sums them with the seed ``<loss>@GRAD`` fed by the user for each place.
- ``num_trainers``/``trainer_id``: more than one trainer all-reduces the gradients over torch.distributed.
- ``enable_inplace`` (default True): in a plan without backward (inference, test programs), an activation
  (relu, sigmoid, tanh, exp) or elementwise add/sub/mul whose input X dies at that op writes its result into
  X's buffer. Plans with a backward keep their tensors (autograd saved them); reshape-like ops are views in
  torch already.
- ``fuse_elewise_add_act_ops``, ``fuse_bn_act_ops``, ``fuse_all_optimizer_ops``, ``build_cinn_pass``,
  ``enable_auto_fusion``: a single-place plan runs through torch.compile (static/compiled_plan.py).
- Accepted, no effect on this backend: the other ``fuse_*``/``fused_*`` options, ``sync_batch_norm``,
  ``debug_graphviz_path``,
  ``enable_sequential_execution``/``sequential_run`` (plans always run ops in program order),
  ``remove_unnecessary_lock`` and the NCCL/BKCL communicator options.
"""
import enum

__all__ = ["BuildStrategy", "ExecutionStrategy"]


class _ReduceStrategy(enum.IntEnum):
    AllReduce = 0
    Reduce = 1
    _NoReduce = 2


class _GradientScaleStrategy(enum.IntEnum):
    CoeffNumDevice = 0
    One = 1
    Customized = 2


def _as_bool(owner, field, value):
    # NOTE: pybind's bool caster takes None (False) and anything with a truth value but not str/bytes
    if isinstance(value, (str, bytes)) or not (value is None or isinstance(value, (bool, int, float)) or
                                               hasattr(type(value), "__bool__")):
        raise TypeError(f"{owner}.{field} must be a bool, got {type(value).__name__}")
    return bool(value)


def _as_int(owner, field, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{owner}.{field} must be an int, got {type(value).__name__}")
    return value


def _as_str(owner, field, value):
    if not isinstance(value, str):
        raise TypeError(f"{owner}.{field} must be a str, got {type(value).__name__}")
    return value


def _as_enum(kind):
    def check(owner, field, value):
        if not isinstance(value, kind):
            raise TypeError(f"{owner}.{field} must be a {owner}.{kind.__name__.lstrip('_')} member, got "
                            f"{type(value).__name__}")
        return value
    return check


def _as_optional_bool(owner, field, value):
    if value is not None and not isinstance(value, bool):
        raise ValueError(f"{owner}.{field} must be set to None, False or True")
    return value


def _as_str_list(owner, field, value):
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{owner}.{field} must be a list of str")
    return list(value)


def _as_str_set(owner, field, value):
    if not isinstance(value, (set, list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{owner}.{field} must be a set of str")
    return set(value)


class _Options:
    """Typed fields from ``_FIELDS`` (name -> (checker, default)); a finalized object refuses changes, as
    Paddle's strategies do once a program was compiled with them."""
    _FIELDS = {}

    def __init__(self):
        values = {name: default for name, (_, default) in self._FIELDS.items()}
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_finalized", False)

    def __getattr__(self, name):
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no field {name!r}")

    def __setattr__(self, name, value):
        spec = self._FIELDS.get(name)
        if spec is None:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        if self._finalized:
            raise RuntimeError(f"{type(self).__name__} has been finalized (a program was compiled with it); "
                               f"{name} cannot be configured again")
        self._values[name] = spec[0](type(self).__name__, name, value)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._FIELDS))

    def _finalize(self):
        object.__setattr__(self, "_finalized", True)

    def _clear_finalized(self):
        object.__setattr__(self, "_finalized", False)

    def _copy(self):
        new = type(self)()
        new._values.update(self._values)
        return new

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in sorted(self._values.items()))})"


_B, _I, _S = _as_bool, _as_int, _as_str


class BuildStrategy(_Options):
    """``paddle.static.BuildStrategy()``: how a CompiledProgram is built (see the module docstring)."""
    ReduceStrategy = _ReduceStrategy
    GradientScaleStrategy = _GradientScaleStrategy

    _FIELDS = {
        "reduce_strategy": (_as_enum(_ReduceStrategy), _ReduceStrategy.AllReduce),
        "gradient_scale_strategy": (_as_enum(_GradientScaleStrategy), _GradientScaleStrategy.CoeffNumDevice),
        "memory_optimize": (_as_optional_bool, None),
        "enable_inplace": (_B, True),
        "enable_addto": (_B, False),
        "fuse_all_reduce_ops": (_B, True),
        "fuse_all_optimizer_ops": (_B, False),
        "fuse_elewise_add_act_ops": (_B, False),
        "fuse_bn_act_ops": (_B, False),
        "fuse_bn_add_act_ops": (_B, True),
        "fuse_broadcast_ops": (_B, True),
        "fuse_relu_depthwise_conv": (_B, False),
        "fuse_gemm_epilogue": (_B, False),
        "fuse_adamw": (_B, False),
        "fuse_dot_product_attention": (_B, False),
        "fuse_resunit": (_B, False),
        "fused_attention": (_B, False),
        "fused_feedforward": (_B, False),
        "build_cinn_pass": (_B, False),
        "enable_auto_fusion": (_B, False),
        "sync_batch_norm": (_B, False),
        "sequential_run": (_B, False),
        "enable_sequential_execution": (_B, False),
        "remove_unnecessary_lock": (_B, True),
        "enable_backward_optimizer_op_deps": (_B, True),
        "cache_runtime_context": (_B, False),
        "allow_cuda_graph_capture": (_B, False),
        "async_mode": (_B, False),
        "is_distribution": (_B, False),
        "debug_graphviz_path": (_S, ""),
        "num_trainers": (_I, 1),
        "trainer_id": (_I, 0),
        "trainers_endpoints": (_as_str_list, []),
        "nccl_comm_num": (_I, 1),
        "bkcl_comm_num": (_I, 1),
        "use_hierarchical_allreduce": (_B, False),
        "hierarchical_allreduce_inter_nranks": (_I, 0),
        "mkldnn_enabled_op_types": (_as_str_set, set()),
        "onednn_enabled_op_types": (_as_str_set, set()),
    }


class ExecutionStrategy(_Options):
    """``paddle.static.ExecutionStrategy()``: how a data-parallel program runs.

    ``num_threads`` sizes the pool running the places' replicas (0: one thread per place);
    ``num_iteration_per_run`` runs the program that many times per ``exe.run`` (same feed, last fetch);
    ``num_iteration_per_drop_scope`` is accepted: temporaries never outlive the run that made them here.
    """
    _FIELDS = {
        "num_threads": (_I, 0),
        "num_iteration_per_drop_scope": (_I, 100),
        "num_iteration_per_run": (_I, 1),
        "use_thread_barrier": (_B, False),
        "allow_op_delay": (_B, False),
        "use_experimental_executor": (_B, False),
    }
