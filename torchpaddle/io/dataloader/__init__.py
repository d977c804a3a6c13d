"""Datasets, samplers, collation and worker info (Paddle's ``paddle.io.dataloader`` package layout)."""
from .batch_sampler import BatchSampler, DistributedBatchSampler  # noqa: F401
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset, Subset,  # noqa: F401
                      TensorDataset, random_split)
from .sampler import RandomSampler, Sampler, SequenceSampler, SubsetRandomSampler, WeightedRandomSampler  # noqa: F401
from .worker import get_worker_info  # noqa: F401
from . import collate  # noqa: F401
