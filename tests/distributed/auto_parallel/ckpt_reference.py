"""Sharded checkpoints on any ``paddle`` (real PaddlePaddle 3.3.1 or torchpaddle), one process:
``write`` saves a Linear's parameters and its Adam states after one step, plus a dist tensor on a one-rank mesh;
``read`` loads any checkpoint with load_merged_state_dict and with load_state_dict into zero tensors.
Run in the reference venv: ``python -m tests.distributed.auto_parallel.ckpt_reference OUT.pkl write|read DIR``.
"""
import pickle
import sys

import numpy as np

_RNG = np.random.RandomState(3)
W, B = _RNG.uniform(-1, 1, (4, 3)).astype("float32"), _RNG.uniform(-1, 1, (3,)).astype("float32")
X = _RNG.uniform(-1, 1, (2, 4)).astype("float32")
D = np.arange(12, dtype="float64").reshape(4, 3)


def trained_state(paddle, scale=1.0):
    """{"model": weight/bias, "opt": Adam states keyed by the parameter's structured name} after one step."""
    lin = paddle.nn.Linear(4, 3)
    lin.weight.set_value(paddle.to_tensor(W * scale))
    lin.bias.set_value(paddle.to_tensor(B * scale))
    opt = paddle.optimizer.Adam(0.1, parameters=lin.parameters())
    (lin(paddle.to_tensor(X)) ** 2).mean().backward()
    opt.step()
    names = {p.name: n for n, p in lin.named_parameters()}
    states = {}
    for key, value in opt.state_dict().items():
        owner = next((p for p in names if key.startswith(p + "_")), None)
        if owner is not None:
            states[names[owner] + key[len(owner):]] = value
    return {"model": dict(lin.state_dict()), "opt": states}, lin, opt


def flat_numpy(state, prefix=""):
    out = {}
    for key, value in state.items():
        if isinstance(value, dict):
            out.update(flat_numpy(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value.numpy()
    return out


def write(paddle, path):
    dist = paddle.distributed
    state, _, _ = trained_state(paddle)
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    state["dist_w"] = dist.shard_tensor(paddle.to_tensor(D), mesh, [dist.Shard(0)])
    dist.save_state_dict(state, path)
    return flat_numpy(state)


def read(paddle, path):
    dist = paddle.distributed
    merged = {k: v.numpy() for k, v in dist.load_merged_state_dict(path).items()}
    # NOTE: flat keys: Paddle 3.3.1's load_state_dict fails on nested dicts (check_resumable_locally)
    targets = {k: paddle.zeros(list(v.shape), dtype=str(v.dtype)) for k, v in merged.items()}
    dist.load_state_dict(targets, path)
    return {"merged": merged, "loaded": {k: v.numpy() for k, v in targets.items()}}


if __name__ == "__main__":
    import paddle as _paddle
    out, mode, folder = sys.argv[1:4]
    found = {"write": write, "read": read}[mode](_paddle, folder)
    with open(out, "wb") as f:
        pickle.dump({"results": found}, f)
