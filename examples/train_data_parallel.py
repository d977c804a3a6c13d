"""Data-parallel training of a small regression MLP, in plain PaddlePaddle code.

Runs unchanged on PaddlePaddle and on torchpaddle, on one process or several:
    python -m paddle.distributed.launch --nproc_per_node 2 examples/train_data_parallel.py           # Paddle
    python -m torchpaddle.distributed.launch --nproc_per_node 2 examples/train_data_parallel.py      # torchpaddle
    python -m torchpaddle examples/train_data_parallel.py --batch_size 16                            # one process
Each rank trains on its share of every batch (DistributedBatchSampler); DataParallel averages the gradients,
so N ranks with --batch_size B train exactly like one process with --batch_size N*B. Rank 0 saves the model
to --save when given. Exits 0 when the last epoch's loss is below the first's.
"""
import argparse
import sys
import time

import numpy as np

import paddle
import paddle.distributed as dist
import paddle.nn as nn


class RegressionDataset(paddle.io.Dataset):
    """y = sin(x @ w) plus noise, from a fixed seed (every rank sees the same data)."""

    def __init__(self, samples, features):
        rng = np.random.RandomState(7)
        self.x = rng.standard_normal((samples, features)).astype("float32")
        w = rng.standard_normal((features, 1)).astype("float32")
        self.y = (np.sin(self.x @ w) + 0.01 * rng.standard_normal((samples, 1))).astype("float32")

    def __getitem__(self, index):
        return self.x[index], self.y[index]

    def __len__(self):
        return len(self.x)


class MLP(nn.Layer):
    def __init__(self, features, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=8, help="per rank")
    parser.add_argument("--samples", type=int, default=256)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--save", default=None)
    args = parser.parse_args()

    dist.init_parallel_env()
    rank, world_size = dist.get_rank(), dist.get_world_size()
    paddle.seed(2024)
    model = paddle.DataParallel(MLP(args.features, args.hidden))
    optimizer = paddle.optimizer.Momentum(learning_rate=args.lr, momentum=0.9, parameters=model.parameters())
    dataset = RegressionDataset(args.samples, args.features)
    sampler = paddle.io.DistributedBatchSampler(dataset, batch_size=args.batch_size, shuffle=True)
    loader = paddle.io.DataLoader(dataset, batch_sampler=sampler)
    loss_fn = nn.MSELoss()

    first = last = None
    start = time.time()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        total, steps = 0.0, 0
        for x, y in loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            total, steps = total + float(loss), steps + 1
        # every rank's mean loss, averaged over the ranks (SUM: Paddle's CPU build lacks ReduceOp.AVG)
        mean = paddle.to_tensor([total / steps])
        if world_size > 1:
            dist.all_reduce(mean)
        last = mean.item() / world_size
        first = last if first is None else first
        print(f"rank {rank}/{world_size} epoch {epoch}: local loss {total / steps:.6f}, global loss {last:.6f}",
              flush=True)
    if rank == 0:
        samples = args.epochs * len(sampler) * args.batch_size * world_size
        print(f"trained {samples} samples in {time.time() - start:.2f}s on {world_size} ranks", flush=True)
        if args.save:
            paddle.save(model.state_dict(), args.save)
    return 0 if last < first else 1


if __name__ == "__main__":
    sys.exit(main())
