"""fluid.transpiler: Paddle 1.x's program transpilers. The parameter-server DistributeTranspiler splits
programs into trainer/pserver programs with send/recv and LoD-aware ops; it comes with the LoD issue (a later
torchpaddle release). Its config and the pserver dispatchers are plain objects and work; memory_optimize and
release_memory are fluid's documented no-ops."""
from ..memory import memory_optimize, release_memory  # noqa: F401
from .distribute_transpiler import DistributeTranspiler, DistributeTranspilerConfig  # noqa: F401
from .ps_dispatcher import HashName, RoundRobin  # noqa: F401

__all__ = ["DistributeTranspiler", "memory_optimize", "release_memory", "HashName", "RoundRobin",
           "DistributeTranspilerConfig"]
