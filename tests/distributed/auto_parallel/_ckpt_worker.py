"""One rank of the sharded-checkpoint tests. argv: OUT (with {} for the rank), then actions run in order:
``save:DIR:M`` saves ckpt_cases' state dict laid out as SAVE on a mesh of the first M ranks (every rank calls
save_state_dict; ranks outside the mesh hold only the dense tensors); ``load:DIR`` loads DIR into zero tensors
laid out as LOAD on a mesh of all ranks and records global values, placements and local shapes."""
import pickle
import sys
import traceback

import numpy as np

import torchpaddle as paddle
import torchpaddle.distributed as dist
from ckpt_cases import LOAD, SAVE, global_values

PLACE = {"S0": dist.Shard(0), "S1": dist.Shard(1), "R": dist.Replicate(), "P": dist.Partial()}
rank, n = dist.get_rank(), dist.get_world_size()
values = global_values()


def build(layout, m, zeros):
    """The state dict (nested as "model"/"opt"/"step") on a mesh of ranks 0..m-1."""
    mesh = dist.ProcessMesh(list(range(m)), dim_names=["x"])
    out = {}
    for key, kind in layout.items():
        array = np.zeros_like(values[key]) if zeros else values[key]
        if kind == "plain":
            value = paddle.to_tensor(array)
        elif kind == "sw":
            if rank >= m:
                continue
            rows = array.shape[0] // m
            block = paddle.to_tensor(array[rank * rows:(rank + 1) * rows])
            value = dist.ShardedWeight(key, block, block.shape, array.shape, (rank * rows, 0))
        elif kind.startswith("2d:"):
            places = [PLACE[p] for p in kind[3:].split(",")]
            if m == 4:
                value = dist.shard_tensor(paddle.to_tensor(array), dist.ProcessMesh([[0, 1], [2, 3]],
                                          dim_names=["a", "b"]), places)
            else:
                value = dist.shard_tensor(paddle.to_tensor(array), mesh, places[:1])
        else:
            value = dist.shard_tensor(paddle.to_tensor(array), mesh, [PLACE[kind]])
        head, _, tail = key.rpartition(".")
        (out.setdefault(head, {}) if head else out)[tail] = value
    return out


def record(state):
    res = {}
    for head, group in state.items():
        for tail, value in (group.items() if isinstance(group, dict) else [(None, group)]):
            key = f"{head}.{tail}" if tail else head
            if isinstance(value, dist.ShardedWeight):
                res[key] = {"offset": value.global_offset, "local": value.local_tensor.numpy()}
            else:
                res[key] = {"value": value.numpy(), "placements": str(value.placements),
                            "local_shape": list(value._local_shape), "dtype": str(value.dtype)}
    return res


result = {}
try:
    for action in sys.argv[2:]:
        kind, _, rest = action.partition(":")
        if kind == "save":
            folder, m = rest.rsplit(":", 1)
            dist.save_state_dict(build(SAVE, int(m), zeros=False), folder)
        else:
            state = build(LOAD, n, zeros=True)
            dist.load_state_dict(state, rest)
            result[rest] = record(state)
except Exception:  # noqa: BLE001 - reported to the test
    result["error"] = traceback.format_exc()
with open(sys.argv[1].format(rank), "wb") as f:
    pickle.dump(result, f)
