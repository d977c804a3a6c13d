"""paddle.set_flags / paddle.get_flags: Paddle's global FLAGS_* settings, with their defaults.

The table lists every public flag of PaddlePaddle 3.3.1 (CPU build) with its default, plus a few that
only its GPU builds define. Most flags are only recorded; those with a torch counterpart also set it
(see ``_EFFECTS``). ``FLAGS_<name>`` environment variables are read at import, as Paddle does.
"""
import os
import re

import torch

__all__ = ["set_flags", "get_flags"]

# name (without "FLAGS_") -> default; the default's type is the flag's type.
_DEFAULTS = {
    "accuracy_check_atol_bf16": 0.001, "accuracy_check_atol_fp16": 0.001, "accuracy_check_atol_fp32": 1e-06,
    "accuracy_check_rtol_bf16": 0.001, "accuracy_check_rtol_fp16": 0.001, "accuracy_check_rtol_fp32": 1e-06,
    "add_dependency_for_communication_op": True, "alignment_size": 256, "all_blocks_convert_trt": False,
    "alloc_fill_value": -1, "allocator_strategy": "auto_growth", "allreduce_record_one_event": False,
    "ap_enable_classic_gemm_epilogue": False, "apply_pass_to_program": False,
    "async_fast_eager_deletion_mode": False, "async_trace_count": 5,
    "auto_free_cudagraph_allocations_on_launch": True, "auto_growth_chunk_size_in_mb": 0, "benchmark": False,
    "blha_use_fp32_qk_sum": False, "cache_inference_while_scope": False, "call_stack_level": 1,
    "check_cuda_error": False, "check_infer_symbolic": False, "check_nan_inf": False, "check_nan_inf_level": 0,
    "cinn_kernel_cache_save_path": "/tmp/cinn/", "communicator_is_sgd_optimizer": True,
    "communicator_max_merge_var_num": 20, "communicator_send_queue_size": 20, "comp_skip_default_ops": True,
    "convert_all_blocks": True, "cse_max_count": -1, "cublas_dir": "", "cublaslt_device_best_config": "",
    "cuda_cccl_dir": "", "cuda_core_int8_gemm": False, "cuda_dir": "", "cuda_graph_blacklist": "",
    "cuda_malloc_async_pool_memory_throttle_ratio": 0.8, "cudnn_dir": "", "cupti_dir": "",
    "cur_allocated_threshold_in_gb": 55, "curand_dir": "", "cusolver_dir": "", "cusparse_dir": "",
    "cusparselt_dir": "", "dataloader_use_file_descriptor": False, "deep_ep_comm_prealloc_in_mb": 0,
    "disable_dyshape_in_train": False, "disable_logging_op_attr_list": "", "dist_threadpool_size": 0,
    "dump_api_and_gradnode_python_stack_dir": "", "dump_api_python_stack_path": "",
    "dump_grad_node_forward_stack_path": "", "dump_vmm_allocation_info": False, "dygraph_debug": 0,
    "eager_communication_connection": False, "eager_delete_scope": True, "eager_delete_tensor_gb": 0.0,
    "einsum_opt": False, "enable_adjust_op_order": 0, "enable_all2all_use_fp16": False, "enable_ap": False,
    "enable_api_kernel_fallback": True, "enable_async_trace": False, "enable_auto_detect_gpu_topo": True,
    "enable_auto_growth_allocator_add_lock": False, "enable_auto_layout_pass": True,
    "enable_auto_layout_pass_in_inference": False, "enable_auto_parallel_align_mode": False,
    "enable_auto_rdma_trans": True, "enable_blaslt_global_search": False, "enable_cinn_accuracy_check": False,
    "enable_cinn_kernel_cache": False, "enable_collect_shape": False, "enable_compact_mem": False,
    "enable_cse_in_dy2st": True, "enable_custom_engine": "", "enable_dependency_builder_debug_info": False,
    "enable_dump_main_program": False, "enable_exit_when_partial_worker": False,
    "enable_fuse_parallel_matmul_pass": True, "enable_fusion_fallback": False, "enable_fusion_result_check": False,
    "enable_graph_multi_node_sampling": False, "enable_neighbor_list_use_uva": False,
    "enable_opt_get_features": False, "enable_pir_api": True, "enable_pir_in_executor": True,
    "enable_pir_in_executor_trace_run": False, "enable_pir_with_pt_in_dy2st": True, "enable_record_memory": False,
    "enable_sparse_inner_gather": False, "enable_tracker_all2all": False, "enable_unique_name": False,
    "executor_log_deps_every_microseconds": 0, "fast_eager_deletion_mode": True,
    "force_stride_compute_contig_out": False, "force_sync_ops": "", "fraction_of_cpu_memory_to_use": 1.0,
    "fraction_of_cuda_pinned_memory_to_use": 0.5, "fraction_of_gpu_memory_to_use": 0.9200000166893005,
    "fuse_parameter_groups_size": 1, "fuse_parameter_memory_size": -1.0,
    "fused_multi_transformer_op_use_mbfmha": False, "get_host_by_name_time": 120,
    "gpu_allocator_retry_time": 10000, "gpu_memory_limit_mb": 0, "gpugraph_debug_gpu_memory": False,
    "gpugraph_dedup_pull_push_mode": 0, "gpugraph_enable_gpu_direct_access": False,
    "gpugraph_enable_hbm_table_collision_stat": False, "gpugraph_enable_print_op_debug": False,
    "gpugraph_enable_segment_merge_grads": False, "gpugraph_force_device_batch_num_equal": False,
    "gpugraph_hbm_table_load_factor": 0.75, "gpugraph_load_node_list_into_hbm": True,
    "gpugraph_merge_grads_segment_size": 128, "gpugraph_offload_gather_copy_maxsize": 16,
    "gpugraph_offload_param_extends": ".w_0_moment,.b_0_moment", "gpugraph_offload_param_stat": 0,
    "gpugraph_parallel_copyer_split_maxsize": 64, "gpugraph_parallel_stream_num": 8,
    "gpugraph_slot_feasign_max_num": 5, "gpugraph_sparse_table_storage_mode": 0, "gpugraph_storage_mode": 1,
    "graph_embedding_split_infer_mode": True, "graph_get_neighbor_id": False, "graph_load_in_parallel": False,
    "graph_metapath_split_opt": False, "graph_neighbor_size_percent": 1.0, "hml_dir": "", "host_trace_level": 1,
    "init_allocated_mem": False, "initial_cpu_memory_in_mb": 500, "initial_gpu_memory_in_mb": 0,
    "inner_op_parallelism": 0, "ir_inplace_kernel_blacklist": "", "jit_engine_type": "Predictor", "lapack_dir": "",
    "large_pool_auto_growth_chunk_size_in_mb": 0, "large_pool_pre_alloc_in_mb": 0,
    "local_exe_sub_scope_limit": 256.0, "log_memory_stats": False, "logging_pir_py_code_dir": "",
    "logging_pir_py_code_dump_symbolic_dims": False, "logging_pir_py_code_int_tensor_element_limit": 2048,
    "logging_trunc_pir_py_code": True, "low_precision_op_list": 0, "manually_trans_conv_filter": False,
    "max_inplace_grad_add": 0, "max_reserved_threshold_in_gb": 70, "memory_fraction_of_eager_deletion": 1.0,
    "merge_all_horizontal_groups": False, "mkl_dir": "", "mklml_dir": "",
    "multi_block_attention_min_partition_size": 1024, "multi_node_sample_use_gpu_table": True,
    "multiple_of_cupti_buffer_size": 1, "native_compact": False, "nccl_dir": "",
    "new_executor_sequential_run": False, "new_executor_serial_run": False, "new_executor_static_build": False,
    "new_executor_use_cuda_graph": False, "new_executor_use_inplace": False, "new_executor_use_local_scope": True,
    "npu_storage_format": False, "nvidia_package_dir": "", "offload_inplace_tensor": True,
    "offload_retry_times": -1, "op_dir": "", "paddle_num_threads": 1, "parameters_persistent_mode_in_dy2st": False,
    "pinned_memory_as_cpu_backend": False, "pir_apply_inplace_pass": True, "pir_broadcast_tree_limit": 32,
    "pir_interpreter_record_stream_for_gc_cache": False, "prim_backward": False, "prim_check_ops": False,
    "prim_enable_dynamic": False, "prim_forward": False, "prim_forward_blacklist": "", "prim_skip_dynamic": True,
    "print_ir": False, "print_kernel_run_info": False, "print_offload_info": False, "print_sub_graph_dir": "",
    "query_dest_rank_by_multi_node": False, "reader_queue_speed_test_mode": False,
    "reallocate_gpu_memory_in_mb": 0, "record_alloc_event": False, "run_kp_kernel": False,
    "save_cf_stack_op": False, "save_static_runtime_data": False, "search_cache_max_number": 1000000,
    "set_to_1d": False, "share_tensor_for_grad_tensor_holder": False, "small_pool_auto_growth_chunk_size_in_mb": 0,
    "small_pool_pre_alloc_in_mb": 0, "small_pool_size_in_mb": 0, "sort_sum_gradient": False,
    "specialize_device_in_dy2st": False, "static_executor_perfstat_filepath": "",
    "static_runtime_data_save_path": "./", "sync_after_alloc": False, "tcp_max_syn_backlog": 2048,
    "tcp_store_using_libuv": True, "tensor_md5_checksum_output_path": "", "tensor_md5_checksum_precision": 3,
    "tensor_md5_checksum_use_binary_format": False, "tensor_operants_mode": "eager", "tensorrt_dir": "",
    "tracer_onednn_ops_off": "", "tracer_onednn_ops_on": "", "tracer_profile_fname": "xxgperf",
    "trt_engine_serialized_path": "./", "trt_ibuilder_cache": False, "trt_min_group_size": 3,
    "try_allocate": False, "use_accuracy_compatible_kernel": False, "use_auto_growth_pinned_allocator": False,
    "use_auto_growth_v2": False, "use_autotune": False, "use_cuda_malloc_async_allocator": False,
    "use_cuda_managed_memory": False, "use_default_stream": False, "use_legacy_gemm": False,
    "use_legacy_linear": False, "use_mkldnn": False, "use_onednn": False, "use_pinned_memory": True,
    "use_shm_cache": False, "use_stream_safe_cuda_allocator": True, "use_stride_compute_kernel": True,
    "use_stride_kernel": True, "use_system_allocator": False, "use_virtual_memory_auto_growth": False,
    "use_xqa_optim": False, "vmm_large_pool_min_growth_size_in_mb": 0, "vmm_large_pool_pre_alloc_in_mb": 0,
    "vmm_pre_alloc_in_mb": 0, "vmm_small_pool_min_growth_size_in_mb": 0, "vmm_small_pool_pre_alloc_in_mb": 0,
    "vmm_small_pool_size_in_mb": 1, "win_cuda_bin_dir": "",
    # Defined by Paddle's GPU builds only (and FLAGS_cpu_deterministic by Paddle 2.x).
    "conv_workspace_size_limit": 512, "cpu_deterministic": False, "cublaslt_exhaustive_search_times": 0,
    "cudnn_batchnorm_spatial_persistent": False, "cudnn_deterministic": False, "cudnn_exhaustive_search": False,
    "embedding_deterministic": 0, "enable_cublas_tensor_op_math": False, "enable_gpu_memory_usage_log": False,
    "enable_parallel_graph": False, "enable_unused_var_check": False, "free_idle_chunk": False,
    "free_when_no_cache_hit": False, "gemm_use_half_precision_compute_type": False, "nccl_blocking_wait": False,
    "selected_gpus": "", "sync_nccl_allreduce": True, "tracer_mkldnn_ops_off": "", "tracer_mkldnn_ops_on": "",
}

_VALUES = {"FLAGS_" + name: value for name, value in _DEFAULTS.items()}


class FlagTypeError(TypeError, RuntimeError):
    """A flag given a value of the wrong type (Paddle raises RuntimeError from its C++ binding)."""


def flag(name):
    """The current value of ``FLAGS_<name>`` (for torchpaddle's own modules)."""
    return _VALUES["FLAGS_" + name]


def _set_deterministic(value):
    # Paddle picks deterministic kernels where it has them; warn_only keeps the other ops running.
    if value:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(bool(value), warn_only=True)
    torch.backends.cudnn.deterministic = bool(value)
    if value:
        torch.backends.cudnn.benchmark = False


def _set_exhaustive_search(value):
    torch.backends.cudnn.benchmark = bool(value) and not _VALUES["FLAGS_cudnn_deterministic"]


def _set_num_threads(value):
    if value > 0:
        torch.set_num_threads(int(value))


def _set_tf32(value):
    torch.backends.cuda.matmul.allow_tf32 = bool(value)


# Applied only when a flag is set (by set_flags or the environment), never for the defaults.
_EFFECTS = {
    "FLAGS_cudnn_deterministic": _set_deterministic,
    "FLAGS_cudnn_exhaustive_search": _set_exhaustive_search,
    "FLAGS_paddle_num_threads": _set_num_threads,
    "FLAGS_enable_cublas_tensor_op_math": _set_tf32,
}


def _coerce(name, value):
    kind = type(_DEFAULTS[name[6:]])
    if kind is bool:
        ok = isinstance(value, (bool, int, float))
    elif kind is int:
        ok = isinstance(value, int)
    elif kind is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    else:
        ok = isinstance(value, str)
    if not ok:
        raise FlagTypeError(f"set_flags: {name} takes a {kind.__name__}, got {type(value).__name__} {value!r}")
    return kind(value)


def set_flags(flags):
    """Set flags from a dict ``{"FLAGS_name": value}``."""
    if not isinstance(flags, dict):
        raise TypeError(f"flags in set_flags should be a dict, got {type(flags).__name__}")
    coerced = {}
    for name, value in flags.items():
        if not isinstance(name, str):
            raise TypeError(f"set_flags: flag names must be str, got {type(name).__name__} {name!r}")
        if name not in _VALUES:
            raise ValueError(f"Flag {name} cannot set its value through this function.")
        coerced[name] = _coerce(name, value)
    for name, value in coerced.items():
        _VALUES[name] = value
        effect = _EFFECTS.get(name)
        if effect is not None:
            effect(value)


def get_flags(flags):
    """Current values, as a dict, of one flag name or a list/tuple of them."""
    if isinstance(flags, str):
        flags = [flags]
    elif not isinstance(flags, (list, tuple)):
        raise TypeError(f"Flags in get_flags should be a list, tuple or string, got {type(flags).__name__}")
    out = {}
    for name in flags:
        if not isinstance(name, str) or name not in _VALUES:
            raise ValueError(f"Flag {name} cannot get its value through this function.")
        out[name] = _VALUES[name]
    return out


_INT_PREFIX = re.compile(r"\s*[+-]?\d+")
_FLOAT_PREFIX = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _parse_env(name, text):
    """Paddle's reading of an environment value: bools are "1"/"true"; numbers use their leading digits."""
    kind = type(_DEFAULTS[name[6:]])
    if kind is bool:
        return text.lower() in ("1", "true")
    if kind is str:
        return text
    match = (_INT_PREFIX if kind is int else _FLOAT_PREFIX).match(text)
    return kind(match.group(0)) if match else None


def _read_environment():
    for name, text in os.environ.items():
        if name.startswith("FLAGS_") and name in _VALUES:
            value = _parse_env(name, text)
            if value is not None:
                _VALUES[name] = value
                effect = _EFFECTS.get(name)
                if effect is not None:
                    effect(value)



def _default_threads():
    # NOTE: torch starts one intra-op thread per core, and its OpenMP workers spin while they wait. With one
    # busy neighbour process on the machine a small training step then runs several times slower (0.65 ms ->
    # 2.7 ms for an MLP step on 2 cores). Paddle's own default is FLAGS_paddle_num_threads=1; we follow it
    # unless the user chose a count through OMP_NUM_THREADS or FLAGS_paddle_num_threads.
    if "OMP_NUM_THREADS" not in os.environ and "FLAGS_paddle_num_threads" not in os.environ:
        _set_num_threads(_DEFAULTS["paddle_num_threads"])


_default_threads()
_read_environment()
