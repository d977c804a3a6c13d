"""fluid.executor: Executor (Paddle 1.x's run signature), global_scope, scope_guard."""
from ..static.executor import Executor as _StaticExecutor
from ..static.scope import global_scope, scope_guard  # noqa: F401
from ..framework.program import default_main_program
from ..static.scope import LoDTensor
from .framework import enter_static_mode
from .lod_tensor import _LOD_MESSAGE
from .reader import reader_feed

__all__ = ["Executor", "global_scope", "scope_guard"]


class Executor(_StaticExecutor):
    """``fluid.Executor(place)``; creating one puts a process that never chose a mode into static mode."""

    def __init__(self, place=None):
        enter_static_mode()
        super().__init__(place)

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed", fetch_var_name="fetch",
            scope=None, return_numpy=True, use_program_cache=False, return_merged=True, use_prune=False):
        # return_merged only matters for multi-device runs, whose fetches are always merged here
        target = default_main_program() if program is None else getattr(program, "_program", program)
        if isinstance(feed, dict) or feed is None:
            feed = reader_feed(target, feed)
            for name, value in (feed or {}).items():
                if isinstance(value, LoDTensor) and value.lod():
                    raise NotImplementedError(f"Executor.run: the value fed to {name!r} has a level of detail; "
                                              f"{_LOD_MESSAGE}")
        return super().run(program, feed, fetch_list, feed_var_name, fetch_var_name, scope, return_numpy,
                           use_program_cache, use_prune)
