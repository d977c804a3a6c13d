"""The data-parallel MLP workload of distributed_bench.py, in Paddle's API (runs on torchpaddle and Paddle).

    <launcher> mlp_dp.py --steps N --batch B        # B samples per rank per step
Prints ``RESULT {json}`` on rank 0: samples per second over all ranks, after warm-up steps.
With ``--torch`` it runs the same model on plain torch (DistributedDataParallel under torchrun).
"""
import argparse
import json
import time

import numpy as np

_SIZES = (784, 512, 512, 10)


def _data(batch, steps, rank):
    rng = np.random.RandomState(rank)
    return (rng.standard_normal((batch, _SIZES[0])).astype("float32"),
            rng.randint(0, _SIZES[-1], (batch,)).astype("int64"))


def paddle_main(args):
    import paddle
    import paddle.distributed as dist
    nn = paddle.nn
    parallel = dist.get_world_size() > 1
    if parallel:
        dist.init_parallel_env()
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    if parallel:
        model = paddle.DataParallel(model)
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    x, y = _data(args.batch, args.steps, dist.get_rank())
    x, y = paddle.to_tensor(x), paddle.to_tensor(y)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return _time(step, args, dist.get_rank(), dist.get_world_size(), dist.barrier if parallel else None)


def torch_main(args):
    import os
    import torch
    import torch.distributed as dist
    nn = torch.nn
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        dist.init_process_group("gloo")
    rank = dist.get_rank() if world > 1 else 0
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    if world > 1:
        model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = (torch.from_numpy(a) for a in _data(args.batch, args.steps, rank))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return _time(step, args, rank, world, dist.barrier if world > 1 else None)


def _time(step, args, rank, world, barrier):
    for _ in range(args.warmup):
        step()
    if barrier:
        barrier()
    start = time.perf_counter()
    for _ in range(args.steps):
        loss = step()
    float(loss)
    if barrier:
        barrier()
    seconds = time.perf_counter() - start
    if rank == 0:
        print("RESULT " + json.dumps({"samples_per_s": args.steps * args.batch * world / seconds,
                                      "step_ms": 1000 * seconds / args.steps, "ranks": world}), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--torch", action="store_true")
    cli = parser.parse_args()
    torch_main(cli) if cli.torch else paddle_main(cli)
