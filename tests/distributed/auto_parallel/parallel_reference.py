"""shard_layer / shard_optimizer / parallelize / local_map probes in one process, for real PaddlePaddle 3.3.1 and
for torchpaddle alike: the placements each API gives parameters, optimizer states and outputs, and the types of
the errors for bad input. ``python -m tests.distributed.auto_parallel.parallel_reference OUT.pkl [--ours]``."""
import pickle
import sys


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return ("E", type(e).__name__)


def probe(paddle):
    dist = paddle.distributed
    nn = paddle.nn
    res = {}
    mesh = dist.ProcessMesh([0], dim_names=["dp"])

    def model():
        paddle.seed(1)
        return nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))

    def train_once(net, opt):
        loss = net(paddle.rand([3, 4])).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()

    def states(opt):
        out = {}
        for key, value in opt.state_dict().items():
            for kind in ("moment1", "beta1_pow"):
                if kind in key and hasattr(value, "is_dist"):
                    out.setdefault(kind, set()).add(str(value.placements) if value.is_dist() else "dense")
        return {k: sorted(v) for k, v in out.items()}

    for level in (0, 1, 2, 3):
        net = dist.shard_layer(model(), mesh)
        stage = {1: dist.ShardingStage1, 2: dist.ShardingStage2, 3: dist.ShardingStage3}.get(level)
        opt = paddle.optimizer.AdamW(parameters=net.parameters())
        opt = dist.shard_optimizer(opt, stage("dp", mesh) if stage else None)
        train_once(net, opt)
        res[f"stage {level}"] = {"params": [str(p.placements) for p in net.parameters()],
                                 "states": {k: [s for s in v if s != "dense"] for k, v in states(opt).items()}}

    def shard_fn(name, layer, m):
        if name == "0":
            layer.weight = dist.shard_tensor(layer.weight, m, [dist.Shard(1)])
    net = dist.shard_layer(model(), mesh, shard_fn)
    res["shard_layer"] = [(name, str(p.placements), p.name.endswith(".dist")) for name, p in net.named_parameters()]
    opt = dist.shard_optimizer(paddle.optimizer.SGD(parameters=net.parameters()))
    res["is_optimizer"] = isinstance(opt, paddle.optimizer.Optimizer)

    tp_mesh = dist.ProcessMesh([[0]], dim_names=["dp", "mp"])
    net, _ = dist.parallelize(model(), None, tp_mesh, {"mp_config": {"parallelize_plan": {
        "0": dist.ColWiseParallel(), "2": dist.RowWiseParallel()}}})
    res["parallelize"] = [(name, str(p.placements)) for name, p in net.named_parameters()]
    dist.auto_parallel.set_mesh(None)

    x = dist.shard_tensor(paddle.rand([4, 3]), mesh, [dist.Shard(0)])
    out = dist.local_map(lambda t: t.sum(), [[dist.Partial()]], in_placements=[[dist.Shard(0)]],
                         process_mesh=mesh)(x)
    res["local_map"] = str(out.placements)

    res["errors"] = {
        "shard_layer no mesh": _try(lambda: dist.shard_layer(model(), None)),
        "shard_optimizer bad shard_fn": _try(lambda: dist.shard_optimizer(
            paddle.optimizer.SGD(parameters=model().parameters()), shard_fn="stage1")),
        "local_map wrong placements": _try(lambda: dist.local_map(lambda t: t, [[dist.Shard(0)]],
                                                                  in_placements=[[dist.Replicate()]])(x)),
        "shard_dataloader no meshes": _try(lambda: dist.shard_dataloader(
            paddle.io.DataLoader(paddle.io.TensorDataset([paddle.rand([4, 2])]), batch_size=2), meshes=[])),
        "shard_dataloader splitted": _try(lambda: dist.shard_dataloader(
            paddle.io.DataLoader(paddle.io.TensorDataset([paddle.rand([4, 2])]), batch_size=2), meshes=[mesh],
            is_dataset_splitted=True)),
    }
    return res


if __name__ == "__main__":
    if "--ours" in sys.argv:
        import torchpaddle as paddle
    else:
        import paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": probe(paddle)}, f)
