"""fleet for collective (data-parallel) training: init, the worker's place, distributed model/optimizer.

Parameter-server mode (``is_collective=False`` without a collective role maker) and tensor/pipeline/sharding
parallel degrees above 1 raise NotImplementedError.
"""
import copy

from ...framework.mode import in_dynamic_mode
from .. import collective as _collective
from .. import env as _env
from .. import group as _group
from ..parallel import DataParallel
from .strategy import DistributedStrategy

__all__ = ["Fleet", "PaddleCloudRoleMaker", "UserDefinedRoleMaker", "Role", "HybridCommunicateGroup"]


class Role:
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4
    COORDINATOR = 5


class PaddleCloudRoleMaker:
    """The role of this process, read from the launch environment."""

    def __init__(self, is_collective=False, **kwargs):
        self._is_collective = is_collective
        self._kwargs = kwargs

    def _worker_index(self):
        return _env.get_rank()

    def _worker_num(self):
        return _env.get_world_size()

    def _is_worker(self):
        return True


class UserDefinedRoleMaker(PaddleCloudRoleMaker):
    """A role given by the caller (current_id, role, worker_num, server_endpoints)."""

    def __init__(self, is_collective=False, init_gloo=False, **kwargs):
        super().__init__(is_collective, **kwargs)


class HybridCommunicateGroup:
    """The parallel groups of a job; with data parallelism only, every rank is in one data-parallel group."""

    def __init__(self):
        self._dp_group = _group._default_group("get_hybrid_communicate_group") if _group._is_initialized() \
            else None

    def get_data_parallel_rank(self):
        return _env.get_rank()

    def get_data_parallel_world_size(self):
        return _env.get_world_size()

    def get_data_parallel_group(self):
        return self._dp_group

    def get_data_parallel_group_src_rank(self):
        return 0

    def get_model_parallel_rank(self):
        return 0

    def get_model_parallel_world_size(self):
        return 1

    def get_stage_id(self):
        return 0

    def get_pipe_parallel_world_size(self):
        return 1

    def get_sharding_parallel_world_size(self):
        return 1

    def get_global_rank(self):
        return _env.get_rank()


class _DistributedOptimizer:
    """What ``distributed_optimizer`` returns: the user's optimizer, as is; gradients arrive already averaged
    by DataParallel."""

    def __init__(self, optimizer, strategy):
        self._inner_opt = optimizer
        self._strategy = strategy

    def __getattr__(self, name):
        return getattr(self.__dict__["_inner_opt"], name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        if not in_dynamic_mode() and _env.get_world_size() > 1:
            raise NotImplementedError("fleet.distributed_optimizer(...).minimize: static-graph collective "
                                      "training on several processes is not supported yet; use dygraph")
        return self._inner_opt.minimize(loss, startup_program, parameters, no_grad_set)

    def step(self):
        return self._inner_opt.step()

    def clear_grad(self, set_to_zero=True):
        return self._inner_opt.clear_grad(set_to_zero)


class Fleet:
    """The fleet singleton's class."""

    def __init__(self):
        self._initialized = False
        self._is_collective = False
        self._role_maker = None
        self._user_defined_strategy = DistributedStrategy()
        self._hcg = None

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        if strategy is not None and not isinstance(strategy, DistributedStrategy):
            raise TypeError(f"fleet.init: strategy must be a fleet.DistributedStrategy, got "
                            f"{type(strategy).__name__}")
        if role_maker is not None and not isinstance(role_maker, PaddleCloudRoleMaker):
            raise TypeError(f"fleet.init: role_maker must be a PaddleCloudRoleMaker or UserDefinedRoleMaker, got "
                            f"{type(role_maker).__name__}")
        collective = is_collective or (role_maker is not None and role_maker._is_collective)
        if not collective:
            raise NotImplementedError("fleet.init: parameter-server training (is_collective=False) is not "
                                      "supported; use fleet.init(is_collective=True)")
        strategy = copy.deepcopy(strategy) if strategy is not None else DistributedStrategy()
        hybrid = strategy.hybrid_configs
        for key in ("mp_degree", "pp_degree", "sharding_degree", "sep_degree", "cp_degree", "ep_degree"):
            if hybrid.get(key, 1) > 1:
                raise NotImplementedError(f"fleet.init: hybrid_configs {key}={hybrid[key]} is not supported; "
                                          "only data parallelism (dp_degree) is")
        world = _env.ParallelEnv().world_size
        if hybrid["dp_degree"] not in (-1, world):
            raise ValueError(f"fleet.init: hybrid_configs dp_degree={hybrid['dp_degree']} does not match the "
                             f"{world} processes of the job")
        self._role_maker = role_maker or PaddleCloudRoleMaker(is_collective=True)
        self._is_collective = True
        self._user_defined_strategy = strategy
        if world > 1 and in_dynamic_mode():
            _env.init_parallel_env()
        self._hcg = HybridCommunicateGroup()
        self._initialized = True
        return self

    def _check(self, api):
        if not self._initialized:
            raise RuntimeError(f"fleet.{api}: call fleet.init(is_collective=True) first")

    def is_first_worker(self):
        return self.worker_index() == 0

    def worker_index(self):
        return _env.get_rank()

    def worker_num(self):
        return _env.get_world_size()

    def is_worker(self):
        return True

    def is_server(self):
        return False

    def local_rank(self):
        return _env._local_rank()

    def node_num(self):
        return len({e.rpartition(":")[0] for e in self.worker_endpoints()}) or 1

    def worker_endpoints(self, to_string=False):
        endpoints = _env.ParallelEnv().trainer_endpoints
        return ",".join(endpoints) if to_string else endpoints

    def barrier_worker(self):
        """Wait for every worker (nothing to wait for in a one-process job)."""
        if _group._is_initialized():
            _collective.barrier()

    def get_hybrid_communicate_group(self):
        self._check("get_hybrid_communicate_group")
        return self._hcg

    def distributed_model(self, model):
        """``model`` wrapped in DataParallel with the strategy's bucket sizes and find_unused_parameters."""
        self._check("distributed_model")
        s = self._user_defined_strategy
        return DataParallel(model, comm_buffer_size=s.fuse_grad_size_in_MB,
                            last_comm_buffer_size=s.last_comm_group_size_MB,
                            find_unused_parameters=s.find_unused_parameters)

    def distributed_optimizer(self, optimizer, strategy=None):
        """``optimizer`` for the job (``strategy`` replaces fleet.init's when given)."""
        self._check("distributed_optimizer")
        if strategy is not None:
            if not isinstance(strategy, DistributedStrategy):
                raise TypeError(f"fleet.distributed_optimizer: strategy must be a fleet.DistributedStrategy, got "
                                f"{type(strategy).__name__}")
            self._user_defined_strategy = copy.deepcopy(strategy)
        return _DistributedOptimizer(optimizer, self._user_defined_strategy)

    def init_worker(self, scopes=None):
        pass

    def stop_worker(self):
        pass

    @property
    def user_defined_strategy(self):
        return self._user_defined_strategy
