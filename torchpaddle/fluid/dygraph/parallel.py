"""fluid.dygraph's data parallelism: ``prepare_context``, ``ParallelEnv``, ``DataParallel`` with fluid's
``scale_loss`` / ``apply_collective_grads``. torchpaddle's DataParallel already averages gradients over the
ranks during backward, so scaling the loss by 1/nranks and summing afterwards (fluid's two steps, which
together average) become the identity and a no-op."""
from ...distributed import DataParallel as _DataParallel
from ...distributed import ParallelEnv, init_parallel_env

__all__ = ["prepare_context", "ParallelEnv", "DataParallel", "ParallelStrategy"]


class ParallelStrategy:
    """What fluid's prepare_context returns: the trainer count, this trainer's rank and the endpoints."""

    def __init__(self, env=None):
        env = env or ParallelEnv()
        self.nranks = env.nranks
        self.local_rank = env.local_rank
        self.trainer_endpoints = env.trainer_endpoints
        self.current_endpoint = env.current_endpoint


def prepare_context(strategy=None):
    """Initialise the collective environment when there is more than one trainer; -> the ParallelStrategy."""
    strategy = strategy or ParallelStrategy()
    if strategy.nranks > 1:
        init_parallel_env()
    return strategy


class DataParallel(_DataParallel):
    """``DataParallel(layers, strategy)``, fluid's signature over torchpaddle.distributed.DataParallel."""

    def __init__(self, layers, strategy=None):
        super().__init__(layers)
        self._strategy = strategy

    def scale_loss(self, loss):
        return loss

    def apply_collective_grads(self):
        """Gradients were averaged over the ranks during backward already."""
