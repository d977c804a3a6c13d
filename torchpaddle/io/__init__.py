"""paddle.io: datasets, samplers and the DataLoader, on torch.utils.data.

(``paddle.save``/``paddle.load`` live in torchpaddle.framework.io; this module is Paddle's ``paddle.io``.)
"""
from .dataloader import (BatchSampler, ChainDataset, ComposeDataset, ConcatDataset, Dataset,  # noqa: F401
                         DistributedBatchSampler, IterableDataset, RandomSampler, Sampler, SequenceSampler, Subset,
                         SubsetRandomSampler, TensorDataset, WeightedRandomSampler, get_worker_info, random_split)
from .reader import DataLoader  # noqa: F401

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "BatchSampler",
           "DistributedBatchSampler", "DataLoader", "get_worker_info", "Sampler", "SequenceSampler", "RandomSampler",
           "WeightedRandomSampler", "random_split", "Subset", "SubsetRandomSampler", "ConcatDataset"]
