"""paddle.base.executor."""
from ..static.executor import Executor  # noqa: F401
from ..static.scope import Scope, global_scope, scope_guard  # noqa: F401

__all__ = ["Executor", "global_scope", "scope_guard"]
