"""fleet.DistributedStrategy: the knobs of distributed training, with Paddle's names and defaults.

Here it is configuration: collective data-parallel training reads find_unused_parameters,
fuse_grad_size_in_MB, last_comm_group_size_MB and hybrid_configs; the static-graph meta-optimizer switches
(amp, recompute, sharding, pipeline, gradient_merge, lars, lamb, dgc, localsgd...) are stored and printed.
"""
import copy
import warnings

from ...framework.tensor import PaddleAssertionError

__all__ = ["DistributedStrategy"]

# name -> default; a value of another type warns and keeps the old value, as in Paddle.
_FLAGS = {
    "a_sync": True, "adam_d2sum": False, "adaptive_localsgd": False, "amp": False, "asp": False, "auto": False,
    "auto_search": False, "conv_workspace_size_limit": 512, "cudnn_batchnorm_spatial_persistent": False,
    "cudnn_exhaustive_search": False, "dgc": False, "elastic": False, "find_unused_parameters": False,
    "fp16_allreduce": False, "fuse_all_reduce_ops": True, "fuse_grad_merge": False, "fuse_grad_size_in_MB": 32,
    "fuse_grad_size_in_num": 8, "gradient_merge": False, "heter_ccl_mode": False,
    "hierarchical_allreduce_inter_nranks": 1, "is_fl_ps_mode": False, "is_with_coordinator": False,
    "lamb": False, "lars": False, "last_comm_group_size_MB": 1.0, "localsgd": False, "nccl_comm_num": 1,
    "pipeline": False, "qat": False, "recompute": False, "semi_auto": False, "sharding": False,
    "split_data": True, "sync_batch_norm": False, "sync_nccl_allreduce": True, "tensor_parallel": False,
    "use_hierarchical_allreduce": False, "without_graph_optimization": True,
}

# name -> default dict; setting one merges the given keys, and an unknown key is an error.
_CONFIGS = {
    "a_sync_configs": {"k_steps": -1, "max_merge_var_num": 1, "send_queue_size": 16,
                       "independent_recv_thread": False, "min_send_grad_num_before_recv": 1,
                       "thread_pool_size": 1, "send_wait_times": 1, "runtime_split_send_recv": False,
                       "launch_barrier": True, "heter_worker_device_guard": "cpu", "lr_decay_steps": 10,
                       "use_ps_gpu": 0, "use_gpu_graph": 0},
    "adaptive_localsgd_configs": {"init_k_steps": 1, "begin_step": 1},
    "amp_configs": {"init_loss_scaling": 32768.0, "incr_every_n_steps": 1000, "decr_every_n_nan_or_inf": 2,
                    "incr_ratio": 2.0, "decr_ratio": 0.8, "use_dynamic_loss_scaling": True,
                    "custom_white_list": [], "custom_black_list": [], "custom_black_varnames": [],
                    "use_pure_fp16": False, "use_fp16_guard": True, "use_optimizer_fp16": False,
                    "use_pure_bf16": False},
    "dgc_configs": {"rampup_begin_step": 0, "rampup_step": 1, "sparsity": []},
    "gradient_merge_configs": {"k_steps": 1, "avg": True},
    "gradient_scale_configs": {"scale_strategy": "avg", "scale_gradient": False},
    "hybrid_configs": {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1, "sep_degree": 1,
                       "ep_degree": 1, "moe_sharding_degree": 1, "cp_degree": 1, "cp_sharding_degree": 1,
                       "mp_configs": {}, "pp_configs": {}, "sharding_configs": {}, "dp_configs": {},
                       "sep_configs": {}, "enable_optimizer_timer": False, "split_norm_comm": False,
                       "order": ["dp", "pp", "sharding", "sep", "cp", "mp"]},
    "lamb_configs": {"lamb_weight_decay": 0.01, "exclude_from_weight_decay": []},
    "lars_configs": {"lars_coeff": 0.001, "lars_weight_decay": 0.0005, "epsilon": 0.0,
                     "exclude_from_weight_decay": []},
    "localsgd_configs": {"k_steps": 1, "begin_step": 1},
    "pipeline_configs": {"micro_batch_size": 1, "accumulate_steps": 1, "schedule_mode": "1F1B",
                         "p2p_cache_shape": True, "enable_partial_send_recv": True},
    "qat_configs": {"channel_wise_abs_max": True, "weight_bits": 8, "activation_bits": 8,
                    "not_quant_pattern": [], "algo": ""},
    "recompute_configs": {"checkpoints": [], "enable_offload": False, "checkpoint_shape": [],
                          "enable_tuning": False, "refined_ops_patterns": []},
    "sharding_configs": {"sharding_segment_strategy": "segment_broadcast_MB", "segment_broadcast_MB": 32.0,
                         "segment_anchors": [], "sharding_degree": 8, "mp_degree": 1, "dp_degree": 1,
                         "hybrid_dp": False, "gradient_merge_acc_step": 1, "optimize_offload": False,
                         "pp_allreduce_in_optimize": False, "pp_degree": 1, "optimize_cast": False,
                         "_dp_as_optimizer_sharding": False, "stage": 1, "enable_tuning": False,
                         "use_calc_stream": False},
    "tensor_parallel_configs": {"tensor_parallel_degree": 1, "tensor_init_seed": -1},
}


def _same_kind(default, value):
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, type(default))


def _flag(name):
    def get(self):
        return self._values[name]

    def set(self, value):
        if not _same_kind(_FLAGS[name], value):
            warnings.warn(f"DistributedStrategy: {name} should have value of {type(_FLAGS[name]).__name__} type, "
                          f"got {value!r}; keeping {self._values[name]!r}")
            return
        self._values[name] = float(value) if isinstance(_FLAGS[name], float) else value
    return property(get, set)


def _config(name):
    def get(self):
        return self._values[name]

    def set(self, configs):
        if not isinstance(configs, dict):
            raise TypeError(f"DistributedStrategy: {name} must be a dict, got {type(configs).__name__}")
        current = self._values[name]
        for key, value in configs.items():
            if key not in current:
                raise PaddleAssertionError(f"key:{key} not in {name}")
            current[key] = value
    return property(get, set)


class DistributedStrategy:
    """Configuration of fleet's distributed training (Paddle's names and defaults)."""

    def __init__(self):
        self._values = copy.deepcopy({**_FLAGS, **_CONFIGS})
        self.build_strategy = None
        self.sync_param_name = ["embedding", "layer_norm", ".b_"]
        self.hybrid_parallel_order = ["dp", "pp", "sharding", "sep", "cp", "mp"]

    def __deepcopy__(self, memo):
        other = DistributedStrategy.__new__(DistributedStrategy)
        other.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return other

    def __repr__(self):
        lines = ["DistributedStrategy("]
        for name in sorted(self._values):
            if name in _FLAGS or self._values.get(name.replace("_configs", ""), True):
                lines.append(f"  {name}={self._values[name]!r},")
        return "\n".join(lines + [")"])

    def save_to_prototxt(self, output):
        """Write the strategy as ``name: value`` lines (a readable text, not Paddle's protobuf text format)."""
        with open(output, "w") as f:
            for name in sorted(self._values):
                f.write(f"{name}: {self._values[name]!r}\n")

    def load_from_prototxt(self, pb_file):
        """Read what ``save_to_prototxt`` wrote."""
        import ast
        with open(pb_file) as f:
            for line in f:
                name, _, text = line.partition(": ")
                if name in self._values:
                    setattr(self, name, ast.literal_eval(text.strip()))


for _name in _FLAGS:
    setattr(DistributedStrategy, _name, _flag(_name))
for _name in _CONFIGS:
    setattr(DistributedStrategy, _name, _config(_name))
