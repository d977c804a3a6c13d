"""One rank of the DataParallel checks: several ways of training, results pickled for the test."""
import pickle
import sys

import torchpaddle as paddle
import torchpaddle.distributed as dist
from torchpaddle.distributed import fleet
from _dp_model import GLOBAL_BATCH, STEPS, build, dataset, optimizer, params

scenario_filter = sys.argv[2:] or None
dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
x, y = dataset()
loader = paddle.io.DataLoader(paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)]),
                              batch_sampler=paddle.io.DistributedBatchSampler(
                                  paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)]),
                                  batch_size=GLOBAL_BATCH // n))
res = {}


def train(model, opt, micro=1):
    losses = []
    for step, (bx, by) in enumerate(loader):
        if step == STEPS:
            break
        size = bx.shape[0] // micro
        for i in range(micro):
            xs, ys = bx[i * size:(i + 1) * size], by[i * size:(i + 1) * size]
            if i < micro - 1:
                with model.no_sync():
                    loss = paddle.nn.functional.mse_loss(model(xs), ys) / micro
                    loss.backward()
            else:
                loss = paddle.nn.functional.mse_loss(model(xs), ys) / micro
                loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses


def run(name, opt_name="sgd", micro=1, unused=False, **kwargs):
    if scenario_filter and name not in scenario_filter:
        return
    layer = build(paddle, seed=rank, unused=unused)      # every rank starts different...
    model = paddle.DataParallel(layer, **kwargs)         # ...and wrapping broadcasts rank 0's weights
    res[f"{name}/after_wrap"] = params(model)
    opt = optimizer(paddle, opt_name, model.parameters())
    res[f"{name}/losses"] = train(model, opt, micro)
    res[f"{name}/params"] = params(model)
    res[f"{name}/state_dict_keys"] = list(model.state_dict().keys())
    res[f"{name}/buckets"] = [len(model._reducer._buckets), model._reducer.launched_in_backward]


run("dp")
run("small_buckets", comm_buffer_size=0.0002, last_comm_buffer_size=0.0001)
run("no_sync", micro=2)
run("unused", unused=True, find_unused_parameters=True)

if not scenario_filter or "fleet" in scenario_filter:
    strategy = fleet.DistributedStrategy()
    strategy.fuse_grad_size_in_MB = 1
    fleet.init(is_collective=True, strategy=strategy)
    res["fleet/worker"] = [fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()]
    fleet.barrier_worker()
    model = fleet.distributed_model(build(paddle, seed=rank))
    opt = fleet.distributed_optimizer(optimizer(paddle, "adam", model.parameters()))
    res["fleet/model_type"] = type(model).__name__
    res["fleet/losses"] = train(model, opt)
    res["fleet/params"] = params(model)

with open(sys.argv[1].format(rank), "wb") as f:
    pickle.dump(res, f)
