"""Int arguments (axis, shape, starts/ends, k...) given as 1-element Tensors, 0-D and of shape [1], run on real
Paddle 3.3.1 and on torchpaddle: every call Paddle's dygraph accepts must work here with the same result.
Run inside the reference virtualenv: ``python -m tests.tensor.tensor_arg_cases OUT.pkl``.
"""
import pickle
import sys

import numpy as np


def _cases(paddle):
    x = paddle.arange(24, dtype="float32").reshape([2, 3, 4])
    idx = paddle.zeros([2, 1, 4], "int64")
    F = paddle.nn.functional
    return {
        "concat": lambda A: paddle.concat([x, x], axis=A(1)),
        "split": lambda A: paddle.split(x, 3, axis=A(1))[0],
        "split_sections": lambda A: paddle.split(x, [A(1), A(2)], axis=1)[1],
        "split_num": lambda A: paddle.split(x, A(3), axis=1)[0],
        "tensor_split": lambda A: paddle.tensor_split(x, 3, axis=A(1))[0],
        "chunk": lambda A: paddle.chunk(x, 3, axis=A(1))[0],
        "stack": lambda A: paddle.stack([x, x], axis=A(1)),
        "unstack": lambda A: paddle.unstack(x, axis=A(1))[0],
        "unbind": lambda A: paddle.unbind(x, axis=A(1))[0],
        "unsqueeze": lambda A: paddle.unsqueeze(x, axis=A(1)),
        "unsqueeze_list": lambda A: paddle.unsqueeze(x, axis=[A(1)]),
        "squeeze": lambda A: paddle.squeeze(x[:, :1], axis=A(1)),
        "squeeze_list": lambda A: paddle.squeeze(x[:, :1], axis=[A(1)]),
        "flatten": lambda A: paddle.flatten(x, start_axis=A(1)),
        "sum": lambda A: paddle.sum(x, axis=A(1)),
        "sum_list": lambda A: paddle.sum(x, axis=[A(1), A(2)]),
        "mean": lambda A: paddle.mean(x, axis=A(1)),
        "max": lambda A: paddle.max(x, axis=A(1)),
        "argmax": lambda A: paddle.argmax(x, axis=A(1)),
        "cumsum": lambda A: paddle.cumsum(x, axis=A(1)),
        "softmax": lambda A: F.softmax(x, axis=A(1)),
        "log_softmax": lambda A: F.log_softmax(x, axis=A(1)),
        "normalize": lambda A: F.normalize(x, axis=A(1)),
        "gather": lambda A: paddle.gather(x, paddle.to_tensor([2, 0]), axis=A(1)),
        "index_select": lambda A: paddle.index_select(x, paddle.to_tensor([2]), axis=A(1)),
        "take_along_axis": lambda A: paddle.take_along_axis(x, idx, axis=A(1)),
        "put_along_axis": lambda A: paddle.put_along_axis(x, idx, 1.0, axis=A(1)),
        "flip": lambda A: paddle.flip(x, axis=A(1)),
        "flip_list": lambda A: paddle.flip(x, axis=[A(1)]),
        "roll": lambda A: paddle.roll(x, shifts=A(1), axis=A(1)),
        "rot90": lambda A: paddle.rot90(x, k=A(1), axes=[1, 2]),
        "transpose": lambda A: paddle.transpose(x, perm=[A(0), 2, 1]),
        "reshape": lambda A: paddle.reshape(x, shape=[A(6), 4]),
        "reshape_tensor": lambda A: paddle.reshape(x, shape=A(24)),
        "slice": lambda A: paddle.slice(x, axes=[A(1)], starts=[A(1)], ends=[A(3)]),
        "strided_slice": lambda A: paddle.strided_slice(x, axes=[1], starts=[A(0)], ends=[A(3)], strides=[A(2)]),
        "expand": lambda A: paddle.expand(x[:, :1], shape=[2, A(3), 4]),
        "broadcast_to": lambda A: paddle.broadcast_to(x[:, :1], shape=[2, A(3), 4]),
        "tile": lambda A: paddle.tile(x, repeat_times=[A(2), 1, 1]),
        "crop": lambda A: paddle.crop(x, shape=[A(1), 2, 2]),
        "full": lambda A: paddle.full([A(2), 3], 1.0),
        "zeros": lambda A: paddle.zeros([A(2), 3]),
        "ones_tensor": lambda A: paddle.ones(A(2)),
        "topk": lambda A: paddle.topk(x, k=A(2), axis=A(1))[0],
        "sort": lambda A: paddle.sort(x, axis=A(1)),
        "kthvalue": lambda A: paddle.kthvalue(x, 2, axis=A(1))[0],
        "unique": lambda A: paddle.unique(x, axis=A(1)),
        "repeat_interleave": lambda A: paddle.repeat_interleave(x, 2, axis=A(1)),
        "cross": lambda A: paddle.cross(x[:, :3], x[:, :3] * 2 + 1, axis=A(1)),
        "narrow": lambda A: paddle.narrow(x, A(1), A(1), A(2)),
        "diagonal": lambda A: paddle.diagonal(x, axis1=A(1), axis2=2),
        "index_add": lambda A: paddle.index_add(x, paddle.to_tensor([0]), A(1), paddle.ones([2, 1, 4])),
        "pad": lambda A: F.pad(x.unsqueeze(0), [A(1), 1, 1, 1]),
        "diff": lambda A: paddle.diff(x, axis=A(1)),
    }


def run(paddle):
    out = {}
    for name, fn in _cases(paddle).items():
        for kind, make in (("0d", lambda v: paddle.to_tensor(v)), ("1elem", lambda v: paddle.to_tensor([v]))):
            try:
                value = fn(make)
                out[f"{name}|{kind}"] = ("ok", list(value.shape), np.asarray(value.numpy()).tolist())
            except Exception as exc:  # noqa: BLE001 - the error class is the outcome
                out[f"{name}|{kind}"] = ("error", type(exc).__name__)
    return out


if __name__ == "__main__":
    import warnings
    warnings.filterwarnings("ignore")
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)
