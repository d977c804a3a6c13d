"""DistModel probes that run on real PaddlePaddle 3.3.1 or on torchpaddle (``run(paddle)``), one process.

A 2-layer MLP with fixed weights, its parameters shard_tensor'ed (replicated) on a one-process mesh, as Paddle
3.3.1 requires; trained 5 steps through ``to_static`` with Adam and MSELoss, then evaluated; the state_dict keys,
shapes and the Strategy defaults. In the reference venv: ``python -m tests.distributed.auto_parallel.
dist_model_reference OUT.pkl``.
"""
import pickle
import sys

import numpy as np


def data():
    rng = np.random.RandomState(7)
    return rng.rand(4, 4, 6).astype("float32"), rng.rand(4, 4, 3).astype("float32")


def weights():
    rng = np.random.RandomState(3)
    return [rng.uniform(-0.5, 0.5, s).astype("float32") for s in ([6, 5], [5], [5, 3], [3])]


def make_model(paddle, shard=True):
    model = paddle.nn.Sequential(paddle.nn.Linear(6, 5), paddle.nn.Tanh(), paddle.nn.Linear(5, 3))
    for p, w in zip(model.parameters(), weights()):
        p.set_value(w)
    if shard:
        dist = paddle.distributed
        mesh = dist.ProcessMesh([0], dim_names=["x"])
        for sub in (model[0], model[2]):
            sub.weight = dist.shard_tensor(sub.weight, mesh, [dist.Replicate()])
            sub.bias = dist.shard_tensor(sub.bias, mesh, [dist.Replicate()])
    return model


def Loader(paddle):
    """A DataLoader of ``data()``: 4 batches (x, y) of 4 rows, in order."""
    xs, ys = data()

    class Data(paddle.io.Dataset):
        def __getitem__(self, i):
            return xs.reshape(16, 6)[i], ys.reshape(16, 3)[i]

        def __len__(self):
            return 16
    return paddle.io.DataLoader(Data(), batch_size=4, shuffle=False)


def run(paddle):
    out = {}
    model = make_model(paddle)
    opt = paddle.optimizer.Adam(0.05, parameters=model.parameters())
    loader = Loader(paddle)
    dm = paddle.distributed.to_static(model, loader, paddle.nn.MSELoss(), opt)
    dm.train()
    losses = []
    for _ in range(2):
        for x, y in loader:
            loss = dm(x, y)
            losses.append(np.asarray(loss))
    out["train_losses"] = [float(v) for v in losses[:5]]
    out["loss_shape"] = list(np.asarray(losses[0]).shape)
    out["loss_type"] = type(losses[0]).__name__
    state = dm.state_dict()
    out["state_keys"] = sorted(state)
    out["state_shapes"] = {k: list(v.shape) for k, v in state.items()}
    out["param_keys"] = sorted(dm.state_dict("param"))
    out["opt_keys"] = sorted(dm.state_dict("opt"))
    out["placements"] = {k: str(v.placements) for k, v in state.items()}
    dm.eval()
    x, y = next(iter(loader))
    out["eval_loss"] = float(np.asarray(dm(x, y)))
    strategy = paddle.distributed.Strategy()
    out["strategy"] = {name: getattr(strategy, name).to_dict()
                       for name in ("sharding", "gradient_merge", "pipeline", "amp")}
    out["strategy_top"] = {k: getattr(strategy, k) for k in ("auto_mode", "gradient_scale", "use_cache",
                                                             "return_numpy", "all_ranks", "split_data", "seed",
                                                             "reinit", "full_graph")}
    out["strategy_recompute"] = strategy._recompute.to_dict()
    fused = strategy.fused_passes
    out["fused_passes"] = (fused.enable, fused.gemm_epilogue, fused.dropout_add)
    out["strategy_repr"] = repr(strategy.gradient_merge)
    return out


if __name__ == "__main__":
    import paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(paddle)}, f)
