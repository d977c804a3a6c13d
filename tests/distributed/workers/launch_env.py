"""Records what a launched Paddle script sees: its environment and paddle.distributed's view of it."""
import json
import os
import sys

import paddle
import paddle.distributed as dist

group = dist.init_parallel_env()
env = dist.ParallelEnv()
x = paddle.to_tensor([float(dist.get_rank())])
dist.all_reduce(x)
record = {"env": {k: v for k, v in os.environ.items() if k.startswith(("PADDLE_", "FLAGS_selected", "POD_"))},
          "rank": dist.get_rank(), "world_size": dist.get_world_size(), "sum": x.item(),
          "parallel_env": [env.rank, env.world_size, env.device_id, env.current_endpoint, env.trainer_endpoints,
                           env.nrings], "paddle_module": paddle.__name__, "argv": sys.argv[1:]}
with open(os.path.join(sys.argv[1], f"env.{dist.get_rank()}.json"), "w") as f:
    json.dump(record, f)
