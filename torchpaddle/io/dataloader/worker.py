"""What a DataLoader worker process knows about itself (``get_worker_info()``), and its seeding."""
import random

import numpy as np
import torch
# The SeedSequence-style hash that Paddle also uses to seed NumPy in worker ``id`` from the base seed.
from torch.utils.data._utils.worker import _generate_state

from ...framework.place import set_device

__all__ = ["get_worker_info", "WorkerInfo"]

_worker_info = None


class WorkerInfo:
    """Read-only facts about the current worker: ``id``, ``num_workers``, ``seed`` and ``dataset``.

    As in Paddle, ``seed`` is the loader's base seed, the same in every worker; worker ``id`` seeds
    ``random``, NumPy and Paddle's generator from ``seed + id``.
    """
    __initialized = False

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.__initialized = True

    def __setattr__(self, key, value):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        super().__setattr__(key, value)

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


def get_worker_info():
    """The WorkerInfo of this DataLoader worker process; None in the main process."""
    return _worker_info


class WorkerInit:
    """``worker_init_fn`` handed to torch: seed as Paddle does from the base seed the main process drew
    from NumPy (so ``np.random.seed`` before the loop repeats Paddle's per-worker NumPy streams), publish
    our WorkerInfo (naming the user's dataset), then call the user's function."""
    __slots__ = ("dataset", "user_fn", "base_seed")

    def __init__(self, dataset, user_fn, base_seed):
        self.dataset, self.user_fn, self.base_seed = dataset, user_fn, base_seed

    def __call__(self, worker_id):
        global _worker_info
        # Workers build their samples on the CPU, as Paddle's do (the main process moves batches to the place);
        # a worker forked after CUDA started cannot use the GPU anyway.
        set_device("cpu")
        seed = self.base_seed + worker_id
        random.seed(seed)
        torch.manual_seed(seed)
        np.random.seed(_generate_state(self.base_seed, worker_id))
        num_workers = torch.utils.data.get_worker_info().num_workers
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=self.base_seed, dataset=self.dataset)
        if self.user_fn is not None:
            self.user_fn(worker_id)
