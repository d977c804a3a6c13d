"""Sharded checkpoints in Paddle's layout (``paddle.distributed.flex_checkpoint.dcp``): ``<id>.metadata`` +
``<rank>_<id>.distcp`` files that real Paddle reads and writes.

Modules: ``metadata`` (Paddle's record classes, safe reading), ``sharded_weight`` (ShardedWeight,
build_sharded_state_dict), ``chunks`` (flattening, the chunk a process holds), ``save`` (save_state_dict),
``load`` (load_state_dict with resharding, load_merged_state_dict).
"""
from .sharded_weight import (ShardedWeight, ShardedWeightDesc, ShardedStateDict, shard_weight,  # noqa: F401
                             build_sharded_state_dict)
from .metadata import LocalTensorIndex, LocalTensorMetadata, Metadata  # noqa: F401
from .save import save_state_dict  # noqa: F401
from .load import load_state_dict, load_merged_state_dict  # noqa: F401

__all__ = ["save_state_dict", "load_state_dict", "load_merged_state_dict", "ShardedWeight",
           "ShardedStateDict", "shard_weight", "build_sharded_state_dict"]
