"""One rank of DistModel with Strategy.sharding (stages 1-3) and Strategy.pipeline, run by
auto_parallel/test_dist_model_strategy.py; pickles per rank what each scenario trained and how its program looks.
argv: OUT (with {} for the rank), SCENARIO ("sharding", "pipeline" or "dp_mp")."""
import pickle
import sys

import numpy as np

import torchpaddle as paddle
import torchpaddle.distributed as dist
from auto_parallel.test_dist_model_tp import batches, mlp

out_path, scenario = sys.argv[1], sys.argv[2]
dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
result = {"rank": rank}


def optimizer(kind, params):
    if kind == "sgd":
        return paddle.optimizer.SGD(0.1, parameters=params)
    return paddle.optimizer.AdamW(0.05, parameters=params, weight_decay=0.1)


def sharded_batches(mesh, dim_names):
    """Each global batch's rows Shard(0) on the "dp" dim, replicated elsewhere."""
    placements = [dist.Shard(0) if d == "dp" else dist.Replicate() for d in dim_names]
    return [[dist.shard_tensor(paddle.to_tensor(x), mesh, placements),
             dist.shard_tensor(paddle.to_tensor(y), mesh, placements)] for x, y in batches()]


def train(model, opt, data, strategy=None):
    dm = dist.to_static(model, data[:1], paddle.nn.MSELoss(), opt, strategy)
    losses = [float(dm(x, y)) for x, y in data]
    return dm, losses


if scenario == "sharding":
    mesh = dist.ProcessMesh(list(range(n)), dim_names=["dp"])
    data = sharded_batches(mesh, ["dp"])
    for kind in ("sgd", "adamw"):
        plain = mlp(paddle)
        plain_dm, losses = train(plain, optimizer(kind, plain.parameters()), data)
        result[(kind, 0)] = {"losses": losses, "params": [p.numpy() for p in plain.parameters()]}
        plain_state = {k: v.numpy() for k, v in plain_dm.state_dict("opt").items()}
        for stage in (1, 2, 3):
            model = mlp(paddle)
            strategy = dist.Strategy({"sharding": {"enable": True, "stage": stage, "degree": n}})
            dm, losses = train(model, optimizer(kind, model.parameters()), data, strategy)
            main = dm.dist_main_program()
            startup = dm.dist_startup_program().global_block()
            moments = {v.name: list(v.shape) for v in startup.vars.values() if "moment1" in v.name}
            # the optimizer state, whole, by the unsharded model's names (the parameters' names differ)
            state = dm.state_dict("opt")
            rename = dict(zip([p.name for p in model.parameters()], [p.name for p in plain.parameters()]))

            def renamed(key):
                owner = max((n for n in rename if key.startswith(n + "_")), key=len, default=None)
                return key if owner is None else rename[owner] + key[len(owner):]
            state_diff = max((float(np.max(np.abs(v.numpy() - plain_state[renamed(k)]))) for k, v in state.items()),
                             default=None)
            # set_state_dict takes the whole state back, each rank keeping its rows
            dm.set_state_dict({k: paddle.to_tensor(v.numpy() * 2) for k, v in state.items()})
            again = dm.state_dict("opt")
            round_trip = all(np.allclose(again[k].numpy(), v.numpy() * 2) for k, v in state.items())
            result[(kind, stage)] = {"losses": losses, "params": [p.numpy() for p in model.parameters()],
                                     "types": [op.type for op in main.global_block().ops], "moments": moments,
                                     "state_keys": len(state), "state_diff": state_diff, "round_trip": round_trip}
    # a parameter whose rows do not divide over the ranks is kept whole; the degree must be the dp size
    odd = paddle.nn.Linear(6, 3)
    odd.weight.set_value(np.full([6, 3], 0.1, "float32"))
    strategy = dist.Strategy({"sharding": {"enable": True, "stage": 2, "degree": n}})
    dm, result["odd_losses"] = train(odd, optimizer("adamw", odd.parameters()), [
        [x, dist.shard_tensor(paddle.to_tensor(y.numpy()[:, :3]), mesh, [dist.Shard(0)])] for x, y in data])
    result["odd_params"] = [p.numpy() for p in odd.parameters()]
    try:
        model = mlp(paddle)
        train(model, optimizer("sgd", model.parameters()), data,
              dist.Strategy({"sharding": {"enable": True, "degree": 3}}))
        result["bad_degree"] = None
    except ValueError as e:
        result["bad_degree"] = str(e)

if scenario == "pipeline":
    # Linear(6, 8) + Tanh on stage 0 (rank 0), Linear(8, 4) + the loss on stage 1 (rank 1); whole batches
    meshes = [dist.ProcessMesh([0], dim_names=["pp0"]), dist.ProcessMesh([1], dim_names=["pp1"])]
    data = [[paddle.to_tensor(x), paddle.to_tensor(y)] for x, y in batches()]

    def staged():
        model = mlp(paddle)
        for layer, mesh in ((model[0], meshes[0]), (model[2], meshes[1])):
            layer.weight = dist.shard_tensor(layer.weight, mesh, [dist.Replicate()])
            layer.bias = dist.shard_tensor(layer.bias, mesh, [dist.Replicate()])
        return model

    for kind in ("sgd", "adamw"):
        model = staged()
        strategy = dist.Strategy({"pipeline": {"enable": True, "schedule_mode": "FThenB", "accumulate_steps": 2}})
        dm, losses = train(model, optimizer(kind, model.parameters()), data, strategy)
        own = [0, 1] if rank == 0 else [2, 3]
        result[kind] = {"losses": losses, "params": {i: p._local_value().numpy()
                                                      for i, p in enumerate(model.parameters()) if i in own},
                        "types": [op.type for op in dm.dist_main_program().global_block().ops]}
    try:
        dist.to_static(staged(), data[:1], paddle.nn.MSELoss(), None, dist.Strategy({"pipeline": {"enable": True}}))
        result["default_schedule"] = None
    except NotImplementedError as e:
        result["default_schedule"] = str(e)

if scenario == "dp_mp":
    # a 2 x 2 mesh: batches Shard(0) on "dp", the MLP column-then-row parallel on "mp" (as dist_model_tp.py)
    mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["dp", "mp"])
    data = sharded_batches(mesh, ["dp", "mp"])

    def shard_mlp(model):
        R = dist.Replicate()
        model[0].weight = dist.shard_tensor(model[0].weight, mesh, [R, dist.Shard(1)])
        model[0].bias = dist.shard_tensor(model[0].bias, mesh, [R, dist.Shard(0)])
        model[2].weight = dist.shard_tensor(model[2].weight, mesh, [R, dist.Shard(0)])
        model[2].bias = dist.shard_tensor(model[2].bias, mesh, [R, R])
        return model

    for name, strategy in (("plain", None), ("sharding2", {"sharding": {"enable": True, "stage": 2}})):
        model = shard_mlp(mlp(paddle))
        dm, losses = train(model, optimizer("adamw", model.parameters()), data,
                           dist.Strategy(strategy) if strategy else None)
        result[name] = {"losses": losses, "params": [p.numpy() for p in model.parameters()],
                        "local_shapes": [list(p._local_value().shape) for p in model.parameters()],
                        "types": [op.type for op in dm.dist_main_program().global_block().ops]}

with open(out_path.format(rank), "wb") as f:
    pickle.dump(result, f)
