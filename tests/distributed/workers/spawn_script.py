"""A Paddle script (``import paddle``) that spawns its own training function."""
import sys

import paddle
import paddle.distributed as dist


def train(out):
    dist.init_parallel_env()
    layer = paddle.DataParallel(paddle.nn.Linear(2, 1))
    loss = layer(paddle.ones([4, 2]) * (dist.get_rank() + 1)).sum()
    loss.backward()
    with open(f"{out}.{dist.get_rank()}", "w") as f:
        f.write(repr(layer._layers.weight.grad.numpy().ravel().tolist()))


if __name__ == "__main__":
    dist.spawn(train, args=(sys.argv[1],), nprocs=2)
    print("spawned ok")
