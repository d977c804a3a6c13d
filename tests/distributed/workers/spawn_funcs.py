"""Functions that paddle.distributed.spawn runs in the spawn tests (importable, so they pickle)."""
import json
import os

import torchpaddle as paddle
import torchpaddle.distributed as dist


def all_reduce_rank(out_dir, scale):
    dist.init_parallel_env()
    x = paddle.to_tensor([float(dist.get_rank() + 1) * scale])
    dist.all_reduce(x)
    with open(os.path.join(out_dir, f"spawn.{dist.get_rank()}.json"), "w") as f:
        json.dump({"rank": dist.get_rank(), "world": dist.get_world_size(), "sum": x.item(),
                   "endpoint": os.environ["PADDLE_CURRENT_ENDPOINT"]}, f)


def fail_on_rank_1():
    dist.init_parallel_env()
    if dist.get_rank() == 1:
        raise ValueError("spawned rank 1 fails")
    dist.barrier()
