"""Small nn pieces run on real Paddle 3.3.1 and on torchpaddle, then compared: nn.BatchNorm's ``act`` strings
(activation op types with their default attributes), F.channel_shuffle / nn.ChannelShuffle in NCHW and NHWC with
gradients, and what a dygraph Parameter's ``block`` prints. Run inside the reference virtualenv:
``python -m tests.nn.nn_misc_cases OUT.pkl``.
"""
import pickle
import sys

import numpy as np

# every act string nn.BatchNorm accepts in Paddle 3.3.1 (a legacy activation op type, in-place names included)
ACTS = """relu relu6 sigmoid tanh hard_swish hard_sigmoid hard_shrink softshrink elu selu celu gelu softmax
log_softmax swish silu mish softsign logsigmoid tanh_shrink thresholded_relu brelu stanh exp abs sqrt square rsqrt
reciprocal log sin cos floor ceil round sign erf expm1 log1p atan asin acos sinh cosh trunc relu_ sigmoid_ tanh_
softmax_""".split()
# names Paddle refuses (nn.functional spellings are not op types)
BAD_ACTS = ["hardswish", "hardsigmoid", "tanhshrink", "hardtanh", "linear"]


def _values(t):
    return [round(float(v), 4) for v in np.asarray(t.numpy(), dtype="float64").reshape(-1)]


def batchnorm_acts(paddle):
    x = paddle.to_tensor(np.linspace(-2, 2, 2 * 3 * 2 * 2).reshape(2, 3, 2, 2).astype("float32"))
    out = {}
    for act in ACTS + BAD_ACTS:
        try:
            layer = paddle.nn.BatchNorm(3, act=act)
            layer.eval()
            out[act] = _values(layer(x))
        except Exception as exc:  # noqa: BLE001 - the error class is the outcome
            out[act] = "ERR:" + type(exc).__name__
    return out


def channel_shuffle(paddle):
    F = paddle.nn.functional
    data = np.arange(2 * 6 * 2 * 3).reshape(2, 6, 2, 3).astype("float32")
    nhwc = data.transpose(0, 2, 3, 1)
    weights = paddle.arange(72, dtype="float32").reshape([2, 6, 2, 3])
    x = paddle.to_tensor(data, stop_gradient=False)
    (F.channel_shuffle(x, 3) * weights).sum().backward()
    return {
        "nchw_3": _values(F.channel_shuffle(paddle.to_tensor(data), 3)),
        "nchw_2": _values(F.channel_shuffle(paddle.to_tensor(data), 2)),
        "nhwc_3": _values(F.channel_shuffle(paddle.to_tensor(nhwc), 3, "NHWC")),
        "layer_nhwc_2": _values(paddle.nn.ChannelShuffle(2, "NHWC")(paddle.to_tensor(nhwc))),
        "layer_nchw_6": _values(paddle.nn.ChannelShuffle(6)(paddle.to_tensor(data))),
        "float64": _values(F.channel_shuffle(paddle.to_tensor(data.astype("float64")), 3)),
        "grad": _values(x.grad),
        "repr": [repr(paddle.nn.ChannelShuffle(3)), repr(paddle.nn.ChannelShuffle(2, "NHWC"))],
    }


def parameter_block(paddle):
    layer = paddle.nn.Linear(2, 3)
    block = layer.weight.block
    return {"repr": repr(block), "idx": (block.idx, block.parent_idx), "shared": layer.bias.block is block,
            "tensor": repr(paddle.to_tensor([1.0]).block)}


def run(paddle):
    return {"batchnorm_acts": batchnorm_acts(paddle), "channel_shuffle": channel_shuffle(paddle),
            "parameter_block": parameter_block(paddle)}


if __name__ == "__main__":
    import warnings
    warnings.filterwarnings("ignore")
    import paddle as _paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run(_paddle)}, f)
