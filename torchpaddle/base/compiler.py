"""paddle.base.compiler."""
from ..static.compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy"]
