"""fluid.compiler: CompiledProgram (``with_data_parallel``), BuildStrategy, ExecutionStrategy."""
from ..static.compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401

__all__ = ["CompiledProgram", "ExecutionStrategy", "BuildStrategy"]
