"""DistributeTranspilerConfig (accepted) and DistributeTranspiler (raises until parameter-server support)."""

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig"]


class DistributeTranspilerConfig:
    """The transpiler's settings, with fluid 1.8's defaults."""

    def __init__(self):
        self.slice_var_up = True
        self.split_method = None
        self.min_block_size = 8192
        self.enable_dc_asgd = False
        self.mode = "pserver"
        self.print_log = False
        self.wait_port = True
        self.runtime_split_send_recv = False
        self.sync_mode = True
        self.half_async = False
        self.completely_not_async = False
        self.geo_sgd_mode = False
        self.geo_sgd_need_push_nums = 100
        self.nccl_comm_num = 1
        self.use_hierarchical_allreduce = False
        self.hierarchical_allreduce_inter_nranks = 0
        self.collective_mode = None


class DistributeTranspiler:
    """fluid's parameter-server transpiler."""

    def __init__(self, config=None):
        if config is not None and not isinstance(config, DistributeTranspilerConfig):
            raise TypeError(f"DistributeTranspiler: config must be a DistributeTranspilerConfig, got "
                            f"{type(config).__name__}")
        raise NotImplementedError("fluid.transpiler.DistributeTranspiler: the parameter-server transpiler comes with "
                                  "the LoD issue (a later torchpaddle release); for collective training use "
                                  "paddle.distributed (fleet, DataParallel) or CompiledProgram.with_data_parallel")
