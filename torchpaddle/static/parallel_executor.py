"""``ParallelExecutor``: Paddle 2.x's data-parallel executor, a CompiledProgram.with_data_parallel plus an
Executor (as Paddle 2.x itself built it)."""
from ..framework.place import CPUPlace, CUDAPlace
from ..framework.program import Program, default_main_program
from .compiler import CompiledProgram
from .executor import Executor
from .input import cpu_places, cuda_places
from .scope import Scope, global_scope
from .strategy import BuildStrategy, ExecutionStrategy

__all__ = ["ParallelExecutor"]


class ParallelExecutor:
    """``paddle.static.ParallelExecutor(use_cuda, loss_name=None, main_program=None, share_vars_from=None,
    exec_strategy=None, build_strategy=None, num_trainers=1, trainer_id=0, scope=None)``.

    CPU places: $CPU_NUM of them (the number of cores when unset); CUDA places: every visible GPU.
    """

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None, exec_strategy=None,
                 build_strategy=None, num_trainers=1, trainer_id=0, scope=None):
        if share_vars_from is not None and not isinstance(share_vars_from, ParallelExecutor):
            raise TypeError(f"ParallelExecutor: share_vars_from must be a ParallelExecutor, got "
                            f"{type(share_vars_from).__name__}")
        if main_program is not None and not isinstance(main_program, Program):
            raise TypeError(f"ParallelExecutor: main_program must be a Program, got {type(main_program).__name__}")
        if scope is not None and not isinstance(scope, Scope):
            raise TypeError(f"ParallelExecutor: scope must be a Scope, got {type(scope).__name__}")
        for name, value in (("num_trainers", num_trainers), ("trainer_id", trainer_id)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"ParallelExecutor: {name} must be an int, got {type(value).__name__}")
        if num_trainers < 1 or not 0 <= trainer_id < num_trainers:
            raise ValueError(f"ParallelExecutor: need num_trainers >= 1 and 0 <= trainer_id < num_trainers, got "
                             f"num_trainers={num_trainers}, trainer_id={trainer_id}")
        self._places = cuda_places() if use_cuda else cpu_places()
        self._scope = scope if scope is not None else global_scope()
        program = main_program if main_program is not None else default_main_program()
        build_strategy = build_strategy if build_strategy is not None else BuildStrategy()
        if num_trainers != 1 or trainer_id != 0:
            build_strategy.num_trainers = num_trainers
            build_strategy.trainer_id = trainer_id
        self._compiled_program = CompiledProgram(program).with_data_parallel(
            loss_name=loss_name, build_strategy=build_strategy,
            exec_strategy=exec_strategy if exec_strategy is not None else ExecutionStrategy(),
            share_vars_from=share_vars_from._compiled_program if share_vars_from is not None else None,
            places=self._places)
        self._exe = Executor(CUDAPlace(0) if use_cuda else CPUPlace())

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        """Run once: a dict feed is split over the places, a list feed gives one dict per place; fetched
        values come back concatenated on axis 0."""
        if feed is None and feed_dict is not None:
            feed = feed_dict
        return self._exe.run(self._compiled_program, feed=feed, fetch_list=fetch_list, scope=self._scope,
                             return_numpy=return_numpy)

    @property
    def device_count(self):
        return len(self._places)

    def drop_local_exe_scopes(self):
        """Free the places' temporaries now. Temporaries never outlive their run here, so once the program
        has run there is nothing left to free; before its first run this raises TypeError, as Paddle's."""
        self._compiled_program._drop_local_exe_scopes()

    def _need_create_local_exe_scopes(self):
        return False
