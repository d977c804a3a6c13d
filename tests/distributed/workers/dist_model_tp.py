"""One rank of DistModel tensor parallel on an "mp" mesh of all ranks: the column-then-row-parallel MLP of
test_dist_model_tp.py (first weight Shard(1) and bias Shard(0), second weight Shard(0), second bias replicated),
trained through to_static; and a model whose only Linear is column parallel (its output and the label sharded).
Pickles per rank: losses, global parameters, the printed programs, the Executor's run of the dist program, eval
and predict values."""
import pickle
import sys

import numpy as np

import torchpaddle as paddle
import torchpaddle.distributed as dist
from auto_parallel.test_dist_model_tp import batches, column_model, mlp

out_path = sys.argv[1]
dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
mesh = dist.ProcessMesh(list(range(n)), dim_names=["mp"])


def shard_mlp(model):
    model[0].weight = dist.shard_tensor(model[0].weight, mesh, [dist.Shard(1)])
    model[0].bias = dist.shard_tensor(model[0].bias, mesh, [dist.Shard(0)])
    model[2].weight = dist.shard_tensor(model[2].weight, mesh, [dist.Shard(0)])
    model[2].bias = dist.shard_tensor(model[2].bias, mesh, [dist.Replicate()])
    return model


result = {"rank": rank}
data = [(paddle.to_tensor(x), paddle.to_tensor(y)) for x, y in batches()]

# 1. train 5 steps, then eval and predict on the sharded model
model = shard_mlp(mlp(paddle))
opt = paddle.optimizer.Adam(0.05, parameters=model.parameters())
dm = dist.to_static(model, data, paddle.nn.MSELoss(), opt)
result["losses"] = [float(dm(x, y)) for x, y in data]
result["params"] = [p.numpy() for p in model.parameters()]
result["names"] = [p.name for p in model.parameters()]
result["local_shapes"] = [list(p._local_value().shape) for p in model.parameters()]
result["main_text"] = str(dm.dist_main_program())
result["startup_text"] = str(dm.dist_startup_program())
result["types"] = [op.type for op in dm.dist_main_program().global_block().ops]
dm.eval()
result["eval"] = float(dm(*data[0]))
dm.predict()
result["predict"] = np.asarray(dm(data[0][0]))
result["state_shapes"] = {k: list(v._local_value().shape) for k, v in dm.state_dict("opt").items()}

# 2. the printed per-rank program, run by the Executor, gives the losses of __call__
third = shard_mlp(mlp(paddle))
dm3 = dist.to_static(third, data, paddle.nn.MSELoss(), paddle.optimizer.Adam(0.05, parameters=third.parameters()))
scope, exe = paddle.static.Scope(), paddle.static.Executor()
paddle.enable_static()
with paddle.static.scope_guard(scope):
    exe.run(dm3.dist_startup_program())
    for p in third.parameters():
        scope.var(p.name).get_tensor().set(p._local_value().numpy(), paddle.CPUPlace())
    loss_name = dm3._program("train").loss_name
    result["executor_losses"] = [float(exe.run(dm3.dist_main_program(), feed={"input0": x.numpy(),
                                                                               "label0": y.numpy()},
                                               fetch_list=[loss_name])[0]) for x, y in data]
paddle.disable_static()

# 3. a column-parallel Linear alone: the label is sliced, the loss a mean of the ranks' parts, the output gathered
column = column_model(paddle)
column.weight = dist.shard_tensor(column.weight, mesh, [dist.Shard(1)])
column.bias = dist.shard_tensor(column.bias, mesh, [dist.Shard(0)])
dm4 = dist.to_static(column, data, paddle.nn.MSELoss(), paddle.optimizer.SGD(0.1, parameters=column.parameters()))
result["column_losses"] = [float(dm4(x, y)) for x, y in data]
result["column_params"] = [p.numpy() for p in column.parameters()]
result["column_types"] = [op.type for op in dm4.dist_main_program().global_block().ops]
dm4.predict()
result["column_predict"] = np.asarray(dm4(data[0][0]))
result["column_predict_types"] = [op.type for op in dm4.dist_main_program("predict").global_block().ops]

# 4. each reshard lowering alone, on a [4, 6] float64 value: this rank's part before and after
from torchpaddle.distributed.auto_parallel.static.reshard_pass import Resharder  # noqa: E402
from torchpaddle.framework.dist_attr import ReduceType, TensorDistAttr  # noqa: E402

GLOBAL = np.arange(24, dtype="float64").reshape(4, 6) - 7.5


def layout(spec):
    """"R", "S0", "S1", "P", "Pavg", "Pmax" -> a dist attr on the mesh."""
    attr = TensorDistAttr()
    attr.process_mesh = mesh
    attr.dims_mapping = [0 if spec == "S0" else -1, 0 if spec == "S1" else -1]
    if spec.startswith("P"):
        attr._set_partial_dims([0], {"P": ReduceType.kRedSum, "Pavg": ReduceType.kRedAvg,
                                     "Pmax": ReduceType.kRedMax}[spec])
    return attr


def part(spec):
    if spec == "S0":
        return np.split(GLOBAL, n, axis=0)[rank]
    if spec == "S1":
        return np.split(GLOBAL, n, axis=1)[rank]
    if spec == "P":   # parts summing to GLOBAL
        return GLOBAL * (rank + 1) / (n * (n + 1) / 2)
    if spec == "Pavg":
        return GLOBAL * (rank + 1) * 2 / (n + 1)
    if spec == "Pmax":
        return GLOBAL - 100.0 * (rank != 1)
    return GLOBAL


reshards = {}
paddle.enable_static()
for have, need, batch in [("S0", "R", 4), ("S1", "R", 4), ("P", "R", 4), ("Pavg", "R", 4), ("Pmax", "R", 4),
                          ("P", "S0", 4), ("P", "S1", 4), ("R", "S0", 4), ("R", "S1", 4), ("S0", "S1", 4),
                          ("S1", "S0", 4), ("R", "P", 4), ("R", "S0", -1), ("S1", "R", -1)]:
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [batch, 6], "float64")
    x.dist_attr = layout(have)
    block = main.global_block()
    out, _ = Resharder(block, mesh, [rank]).lower(0, "x", layout(have), layout(need))
    from torchpaddle.distributed.auto_parallel.static.partitioner import _localize  # noqa: E402
    _localize(block)
    value = paddle.static.Executor().run(main, feed={"x": part(have)}, fetch_list=[out])[0]
    reshards[(have, need, batch)] = (np.asarray(value), [op.type for op in block.ops],
                                     list(block.var(out).shape))
paddle.disable_static()
result["reshards"] = reshards

with open(out_path.format(rank), "wb") as f:
    pickle.dump(result, f)
