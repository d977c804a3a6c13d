"""Initializer cases, run on real PaddlePaddle 3.3.1 (``python -m tests.nn.initializer_cases OUT.pkl``) and on
torchpaddle by tests/nn/test_initializers.py. Deterministic initializers must give Paddle's exact values;
random ones are summarised as ("S", [mean, std, 0.5% quantile, 99.5% quantile] / scale), with ``scale`` the
distribution's expected std, so that the loose statistical comparison is relative (fan rules, gains and bounds
must agree).

Left out on purpose (Paddle 3.3.1 quirks; torchpaddle's behaviour is tested in test_initializers.py): Assign
with a value of another shape (Paddle reshapes the parameter to it), Bilinear on float64 (Paddle turns the
parameter into float32), random initializers on integer parameters (Paddle: missing-kernel RuntimeError)."""
import math
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump


def _param(paddle, shape, init, dtype="float32"):
    with paddle.utils.unique_name.guard():
        return paddle.nn.Layer().create_parameter(shape, dtype=dtype, default_initializer=init)


def _stats(paddle, shape, make, scale, dtype="float32", seed=11):
    paddle.seed(seed)
    a = np.array(_param(paddle, shape, make(paddle.nn.initializer), dtype).numpy(), dtype=np.float64)
    return ("S", np.array([a.mean(), a.std(), np.quantile(a, 0.005), np.quantile(a, 0.995)]) / scale)


# -- random initializers: name -> (shape, constructor over paddle.nn.initializer, expected std) -------------------
def _u(limit):
    return limit / math.sqrt(3.0)


RANDOM = {
    "normal": ([200, 300], lambda I: I.Normal(), 1.0),
    "normal_mean_std": ([200, 300], lambda I: I.Normal(mean=2.0, std=0.5), 0.5),
    "normal_f64": ([200, 300], lambda I: I.Normal(0.0, 3.0), 3.0),
    "uniform": ([200, 300], lambda I: I.Uniform(), _u(1.0)),
    "uniform_range": ([200, 300], lambda I: I.Uniform(-0.5, 2.5), _u(1.5)),
    "truncated_normal": ([200, 300], lambda I: I.TruncatedNormal(), 1.0),
    "truncated_normal_std3": ([200, 300], lambda I: I.TruncatedNormal(std=3.0), 3.0),
    "truncated_normal_shifted": ([200, 300], lambda I: I.TruncatedNormal(mean=1.0, std=2.0, a=-1.0, b=5.0), 2.0),
    "xavier_uniform_2d": ([300, 200], lambda I: I.XavierUniform(), _u(math.sqrt(6 / 500))),
    "xavier_normal_2d": ([300, 200], lambda I: I.XavierNormal(), math.sqrt(2 / 500)),
    "xavier_uniform_conv": ([64, 32, 3, 3], lambda I: I.XavierUniform(), _u(math.sqrt(6 / (96 * 9)))),
    "xavier_normal_conv_gain": ([64, 32, 3, 3], lambda I: I.XavierNormal(gain=2.0), 2 * math.sqrt(2 / (96 * 9))),
    "xavier_uniform_fans": ([300, 200], lambda I: I.XavierUniform(fan_in=10, fan_out=20), _u(math.sqrt(6 / 30))),
    "xavier_uniform_1d": ([60000], lambda I: I.XavierUniform(), _u(math.sqrt(6 / 120000))),
    "kaiming_normal_2d": ([300, 200], lambda I: I.KaimingNormal(), math.sqrt(2 / 300)),
    "kaiming_uniform_2d": ([300, 200], lambda I: I.KaimingUniform(), _u(math.sqrt(6 / 300))),
    "kaiming_normal_conv": ([64, 32, 3, 3], lambda I: I.KaimingNormal(), math.sqrt(2 / (32 * 9))),
    "kaiming_uniform_fan_out": ([64, 32, 3, 3], lambda I: I.KaimingUniform(mode="fan_out"),
                                _u(math.sqrt(6 / (64 * 9)))),
    "kaiming_normal_leaky": ([300, 200], lambda I: I.KaimingNormal(negative_slope=0.2, nonlinearity="leaky_relu"),
                             math.sqrt(2 / 1.04 / 300)),
    "kaiming_uniform_tanh_fan_in": ([300, 200], lambda I: I.KaimingUniform(fan_in=50, nonlinearity="tanh"),
                                    _u(5 / 3 * math.sqrt(3 / 50))),
    "kaiming_normal_linear": ([300, 200], lambda I: I.KaimingNormal(nonlinearity="linear"), math.sqrt(1 / 300)),
}
RANDOM_DTYPES = {"normal_f64": "float64"}


def c_orthogonal(paddle):
    I = paddle.nn.initializer
    out = {}
    for key, shape, gain in (("square", [6, 6], 1.0), ("wide", [4, 10], 1.0), ("tall", [10, 4], 2.0),
                             ("conv", [8, 2, 3, 3], 1.0)):
        paddle.seed(5)
        w = np.array(_param(paddle, shape, I.Orthogonal(gain=gain)).numpy(), dtype=np.float64).reshape(shape[0], -1)
        gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
        out[key] = ("A", np.round(gram, 4))
    out["vector"] = catch(lambda: _param(paddle, [5], I.Orthogonal()))
    return out


def c_constant(paddle):
    I = paddle.nn.initializer
    return {"f32": _param(paddle, [2, 3], I.Constant(1.5)), "f64": _param(paddle, [2], I.Constant(-2.0), "float64"),
            "f16": _param(paddle, [3], I.Constant(0.1), "float16"), "int": _param(paddle, [2], I.Constant(3), "int32"),
            "default": _param(paddle, [2], I.Constant()), "scalar": _param(paddle, [], I.Constant(4.0)),
            "none": catch(lambda: I.Constant(None))}


def c_assign(paddle):
    I = paddle.nn.initializer
    data = np.arange(6, dtype="float32").reshape(2, 3) / 7
    return {"ndarray": _param(paddle, [2, 3], I.Assign(data)),
            "list": _param(paddle, [2, 3], I.Assign([[1, 2, 3], [4, 5, 6]])),
            "tuple": _param(paddle, [2, 3], I.Assign(((1.0, 2.0, 3.0), (4.0, 5.0, 6.0)))),
            "tensor": _param(paddle, [2, 3], I.Assign(paddle.to_tensor(data * 2))),
            "f64": _param(paddle, [2, 3], I.Assign(data.astype("float64")), "float64"),
            "f16": _param(paddle, [2, 3], I.Assign(data), "float16"),
            "int32": _param(paddle, [2, 3], I.Assign(np.arange(6, dtype="int32").reshape(2, 3)), "int32")}


def c_dirac(paddle):
    I = paddle.nn.initializer
    return {"conv1d": _param(paddle, [2, 3, 3], I.Dirac()), "conv2d": _param(paddle, [3, 2, 3, 3], I.Dirac()),
            "conv3d": _param(paddle, [2, 2, 2, 3, 3], I.Dirac()), "groups": _param(paddle, [4, 2, 3], I.Dirac(2)),
            "even_kernel": _param(paddle, [2, 2, 4, 4], I.Dirac()),
            "f64": _param(paddle, [2, 2, 3], I.Dirac(), "float64"),
            "bad_rank": catch(lambda: _param(paddle, [2, 2], I.Dirac())),
            "bad_groups_split": catch(lambda: _param(paddle, [3, 2, 3], I.Dirac(2))),
            "bad_groups": catch(lambda: I.Dirac(0))}


def c_bilinear(paddle):
    I = paddle.nn.initializer
    return {"k3": _param(paddle, [1, 1, 3, 3], I.Bilinear()), "k4": _param(paddle, [2, 2, 4, 4], I.Bilinear()),
            "k5": _param(paddle, [1, 2, 5, 5], I.Bilinear()), "k1": _param(paddle, [1, 1, 1, 1], I.Bilinear()),
            "bad_rank": catch(lambda: _param(paddle, [2, 3, 3], I.Bilinear())),
            "not_square": catch(lambda: _param(paddle, [1, 1, 3, 4], I.Bilinear()))}


def c_calculate_gain(paddle):
    I = paddle.nn.initializer
    names = ["sigmoid", "linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv_transpose2d", "tanh",
             "relu", "leaky_relu", "selu"]
    out = {name: I.calculate_gain(name) for name in names}
    out["leaky_relu_0.2"] = I.calculate_gain("leaky_relu", 0.2)
    out["leaky_relu_int"] = I.calculate_gain("leaky_relu", 1)
    out["unknown"] = catch(lambda: I.calculate_gain("softmax"))
    out["bad_param"] = catch(lambda: I.calculate_gain("leaky_relu", "x"))
    return out


def c_constructor_errors(paddle):
    I = paddle.nn.initializer
    return {"uniform_low_high": catch(lambda: I.Uniform(2.0, 1.0)),
            "kaiming_mode": catch(lambda: I.KaimingNormal(mode="fan_avg")),
            "kaiming_fan_out_with_fan_in": catch(lambda: I.KaimingUniform(fan_in=3, mode="fan_out"))}


def c_layers_with_initializers(paddle):
    """weight_attr / bias_attr accept initializers directly; the values land in the layer."""
    I = paddle.nn.initializer
    with paddle.utils.unique_name.guard():
        lin = paddle.nn.Linear(2, 3, weight_attr=I.Assign(np.arange(6, dtype="float32").reshape(2, 3)),
                               bias_attr=I.Constant(0.5))
        attr = paddle.nn.Linear(3, 2, weight_attr=paddle.ParamAttr(name="w", initializer=I.Constant(0.25)))
        return {"weight": lin.weight, "bias": lin.bias, "attr": attr.weight, "attr_name": attr.weight.name}


CASES = {name: (lambda paddle, s=shape, m=make, sc=scale, d=RANDOM_DTYPES.get(name, "float32"):
                _stats(paddle, s, m, sc, d)) for name, (shape, make, scale) in RANDOM.items()}
CASES.update({name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")})


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
