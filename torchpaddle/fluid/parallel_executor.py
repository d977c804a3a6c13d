"""fluid.parallel_executor: ParallelExecutor."""
from ..static.parallel_executor import ParallelExecutor  # noqa: F401

__all__ = ["ParallelExecutor"]
