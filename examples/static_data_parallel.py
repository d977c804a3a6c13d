"""Static-graph data-parallel training of a small regression MLP, in plain PaddlePaddle code.

    python -m torchpaddle.distributed.launch --nproc_per_node 2 examples/static_data_parallel.py
    python -m torchpaddle examples/static_data_parallel.py --batch_size 16          # one process
Every step each rank trains on its --batch_size rows of a global batch of (ranks x --batch_size) rows; the
ranks average their gradients, so N ranks with --batch_size B train exactly like one process with N*B.
Three ways to average (--mode):
  compiled           CompiledProgram(main).with_data_parallel(...) with BuildStrategy.num_trainers/trainer_id;
  parallel_executor  ParallelExecutor(..., num_trainers=N, trainer_id=rank);
  allreduce          the program all-reduces itself: a c_allreduce_sum and a scale op per gradient before the
                     optimizer, as fleet's collective mode writes it.
Before training, a program of c_broadcast ops (paddle.distributed.broadcast on the parameters) gives every
rank rank 0's initial parameters. Rank 0 saves them with paddle.static.save to --save when given. Exits 0
when the last epoch's loss is below the first's.
"""
import argparse
import os
import sys

import numpy as np

import paddle
import paddle.distributed as dist

OPTIMIZE_ROLE = 0x0002   # the Optimize bit of an op's op_role attribute (Paddle's OpRole.Optimize)


def build(features, hidden, lr):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, features], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        h = paddle.static.nn.fc(x, hidden, activation="tanh")
        pred = paddle.static.nn.fc(h, 1)
        loss = paddle.mean((pred - y) ** 2)
        paddle.optimizer.Momentum(learning_rate=lr, momentum=0.9).minimize(loss)
    return main, startup, loss


def all_reduce_gradients(main, nranks):
    """Insert, before the first optimizer op, a c_allreduce_sum and a 1/nranks scale for every gradient."""
    block = main.global_block()
    index = next(i for i, op in enumerate(block.ops) if op.attr("op_role") & OPTIMIZE_ROLE)
    grads = [p.name + "@GRAD" for p in main.all_parameters()]
    for grad in grads:
        block._insert_op(index, type="c_allreduce_sum", inputs={"X": grad}, outputs={"Out": grad},
                         attrs={"ring_id": 0, "use_calc_stream": True})
        block._insert_op(index + 1, type="scale", inputs={"X": grad}, outputs={"Out": grad},
                         attrs={"scale": 1.0 / nranks})
        index += 2


def broadcast_parameters(exe, main):
    """Run a program that copies rank 0's parameters to every rank."""
    sync, unused = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(sync, unused):
        block = sync.global_block()
        for p in main.all_parameters():
            var = block.create_var(name=p.name, shape=p.shape, dtype=p.dtype, persistable=True)
            dist.broadcast(var, src=0)
    exe.run(sync)


def make_step(mode, exe, main_program, loss, nranks, rank):
    """A function running one training step on a feed dict, averaging the gradients over the ranks."""
    if nranks > 1 and mode == "compiled":
        strategy = paddle.static.BuildStrategy()
        strategy.num_trainers, strategy.trainer_id = nranks, rank
        compiled = paddle.static.CompiledProgram(main_program).with_data_parallel(
            loss_name=loss.name, build_strategy=strategy, places=paddle.static.cpu_places(1))
        return lambda feed: exe.run(compiled, feed=feed, fetch_list=[loss])
    if nranks > 1 and mode == "parallel_executor":
        os.environ["CPU_NUM"] = "1"   # one place per trainer
        pe = paddle.static.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main_program,
                                            num_trainers=nranks, trainer_id=rank)
        return lambda feed: pe.run(fetch_list=[loss.name], feed=feed)
    if nranks > 1:
        all_reduce_gradients(main_program, nranks)
    return lambda feed: exe.run(main_program, feed=feed, fetch_list=[loss])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["compiled", "parallel_executor", "allreduce"], default="compiled")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch_size", type=int, default=8, help="per rank")
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--features", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--save", default=None, help="path prefix of paddle.static.save")
    args = parser.parse_args()

    paddle.enable_static()
    nranks = dist.get_world_size()
    if nranks > 1:
        dist.init_parallel_env()
    rank = dist.get_rank()
    paddle.seed(2024 + rank)   # different initial values on purpose: the broadcast makes them equal
    main_program, startup, loss = build(args.features, args.hidden, args.lr)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    if nranks > 1:
        broadcast_parameters(exe, main_program)

    step = make_step(args.mode, exe, main_program, loss, nranks, rank)

    rng = np.random.RandomState(7)
    xs = rng.standard_normal((args.samples, args.features)).astype("float32")
    w = rng.standard_normal((args.features, 1)).astype("float32")
    ys = (np.sin(xs @ w) + 0.01 * rng.standard_normal((args.samples, 1))).astype("float32")
    step_rows = args.batch_size * nranks
    first = last = None
    for epoch in range(args.epochs):
        order = np.random.RandomState(epoch).permutation(args.samples)   # the same on every rank
        losses = []
        for start in range(0, args.samples - step_rows + 1, step_rows):
            mine = order[start + rank * args.batch_size:start + (rank + 1) * args.batch_size]
            out, = step({"x": xs[mine], "y": ys[mine]})
            losses.append(float(np.mean(out)))
        last = float(np.mean(losses))
        first = last if first is None else first
        print(f"rank {rank}/{nranks} epoch {epoch}: local loss {last:.6f}", flush=True)
    if rank == 0 and args.save:
        paddle.static.save(main_program, args.save)
    return 0 if last < first else 1


if __name__ == "__main__":
    sys.exit(main())
