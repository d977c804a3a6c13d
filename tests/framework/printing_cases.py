"""Printing cases run on real PaddlePaddle 3.3.1 (``python -m tests.framework.printing_cases OUT.pkl``) and on
torchpaddle by tests/framework/test_printing.py, compared as strings: Tensor and Parameter reprs over dtypes,
ranks, special values and summarized sizes; set_printoptions; dtype, place and type reprs; Layer reprs.
Only NumPy is imported at module level; every case gets the ``paddle`` module to print with."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump, stable_seed

DEFAULTS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "sci_mode": False, "linewidth": 80}
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
SHAPES = [(), (1,), (5,), (2, 3), (2, 3, 4), (2, 1, 2, 3)]


def sample(shape, dtype, seed, scale=3.0):
    """Deterministic values of ``dtype`` (a name) with negatives where the dtype has them."""
    rng = np.random.RandomState(stable_seed(seed))
    if dtype == "bool":
        return rng.rand(*shape) > 0.5
    if dtype == "uint8":
        return rng.randint(0, 256, shape).astype(np.uint8)
    if dtype.startswith("int"):
        return rng.randint(-100, 100, shape).astype(dtype)
    values = rng.standard_normal(shape) * scale
    if dtype.startswith("complex"):
        return (values + 1j * rng.standard_normal(shape) * scale).astype(dtype)
    return values.astype("float32" if dtype in ("bfloat16", "float8_e4m3fn") else dtype)


def tensor(paddle, array, dtype=None, stop_gradient=True):
    """``paddle.to_tensor`` of a NumPy array; dtypes NumPy lacks are reached by a cast from float32."""
    if dtype in ("bfloat16", "float8_e4m3fn"):
        return paddle.to_tensor(array, stop_gradient=stop_gradient).astype(dtype)
    return paddle.to_tensor(np.asarray(array, dtype=dtype), stop_gradient=stop_gradient)


def printed(paddle, array, dtype=None, **options):
    """str() of a tensor, under ``options`` for set_printoptions (then back to the defaults)."""
    paddle.set_printoptions(**options)
    try:
        return str(tensor(paddle, array, dtype))
    finally:
        paddle.set_printoptions(**DEFAULTS)


CASES = {}

# -- every dtype over every rank -------------------------------------------------------------------------------
for _d in DTYPES:
    for _s in SHAPES:
        CASES[f"{_d}_{'x'.join(map(str, _s)) or 'scalar'}"] = (
            lambda paddle, d=_d, s=_s: printed(paddle, sample(s, d, f"{d}{s}"), d))

F = np.float32
INF, NAN = float("inf"), float("nan")
VALUES = {
    # integral floats print as "3.", so inf prints "inf." and nan keeps no dot
    "float_integral": ([1.0, 2.0, -3.0], "float32"),
    "float_scalar_integral": (3.0, "float32"),
    "float_scalar_fraction": (2.5, "float32"),
    "float_scalar_negative": (-0.125, "float64"),
    "float_scalar_inf": (INF, "float32"),
    "float_scalar_neg_inf": (-INF, "float32"),
    "float_scalar_nan": (NAN, "float32"),
    "float_scalar_neg_zero": (-0.0, "float32"),
    "float_inf_nan": ([1.0, INF, -INF, NAN], "float32"),
    "float_inf_fraction": ([1.5, INF, -2.25], "float32"),
    "float_nan_fraction": ([[NAN, 0.5], [-1.0, 2.0]], "float64"),
    "float_only_nan": ([NAN, NAN], "float32"),
    "float_very_small": ([1e-10, 1.0, -3e-9], "float32"),
    "float_small_fraction": ([1.5e-5, 0.25], "float64"),
    "float_very_large": ([1e10, 1.0, -2.5e12], "float32"),
    "float_huge": ([1e20, -1.5], "float32"),
    "float32_max": ([np.finfo(F).max, np.finfo(F).tiny], "float32"),
    "float64_extremes": ([1e300, 1e-300, -1e200], "float64"),
    "float16_limits": ([65504.0, 0.1, 6e-5, -INF], "float16"),
    "bfloat16_values": ([0.1, 3.0, -1e30, 255.5], "bfloat16"),
    "float8_values": ([0.5, 3.0, -1.25], "float8_e4m3fn"),
    "float_neg_zero": ([-0.0, 0.0, 1.0], "float32"),
    # widths and the sign column come from the edges only, even when all items are printed
    "width_from_edges": ([1, 2, 3, 4, 5.5, 6, 7, 8], "float32"),
    "sign_from_edges": ([1, 2, 3, -4, 5, 6, 7], "int64"),
    "int_negative": ([[5, -120], [7, 0]], "int8"),
    "int64_large": ([2 ** 62, -(2 ** 40), 3], "int64"),
    "uint8_full": ([0, 255, 17], "uint8"),
    "bool_mixed": ([[True, False, True], [False, False, True]], "bool"),
    "bool_scalar": (False, "bool"),
    "complex_signs": ([1 + 2j, 3 - 4j, -1 - 1j, 0j, -0.5j], "complex64"),
    "complex_integral": ([1 + 1j, 2 - 2j], "complex128"),
    "complex_scalar": (1.5 - 2j, "complex64"),
    "complex_special": ([complex(INF, 1), complex(1, -INF), complex(NAN, 0)], "complex128"),
    "complex_small_large": ([1e-9 + 1e9j, -2.5 + 0j], "complex64"),
    "empty_1d": (np.zeros((0,)), "float32"),
    "empty_2d": (np.zeros((2, 0)), "float32"),
    "empty_leading": (np.zeros((0, 3)), "int32"),
    "empty_3d": (np.zeros((2, 0, 3)), "int64"),
    "wraps_1d": (np.arange(30) * 1.5, "float32"),
    "wraps_2d": (np.arange(48).reshape(2, 24) * 1.25, "float64"),
}
for _name, (_v, _d) in VALUES.items():
    CASES[_name] = lambda paddle, v=_v, d=_d: printed(paddle, v, d)

# -- sizes over the threshold are summarized with '...' ----------------------------------------------------------
LARGE = {
    "large_1d": ((2000,), "float32"),
    "large_1d_over_by_one": ((1001,), "float64"),
    "at_threshold": ((10, 100), "float32"),
    "large_2d": ((40, 50), "float32"),
    "large_3d": ((10, 10, 20), "float32"),
    "large_4d": ((4, 8, 8, 8), "float64"),
    "large_short_rows": ((3, 400), "float32"),
    "large_column": ((2000, 1), "float32"),
    "large_row": ((1, 2000), "int64"),
    "large_int": ((30, 100), "int32"),
    "large_bool": ((50, 30), "bool"),
    "large_uint8": ((1200,), "uint8"),
    "large_complex": ((1001,), "complex64"),
    "large_bfloat16": ((40, 30), "bfloat16"),
    "large_float16": ((2000,), "float16"),
}
for _name, (_s, _d) in LARGE.items():
    CASES[_name] = lambda paddle, s=_s, d=_d, n=_name: printed(paddle, sample(s, d, n), d)
CASES["large_arange"] = lambda paddle: printed(paddle, np.arange(2000), "float32")
CASES["large_inf_nan_inside"] = lambda paddle: printed(
    paddle, np.concatenate([[INF], np.arange(1500) / 7.0, [NAN]]), "float32")

# -- set_printoptions ---------------------------------------------------------------------------------------------
OPTIONS = {
    "opt_precision_4": ((4, 5), "float32", dict(precision=4)),
    "opt_precision_2_f64": ((3, 3), "float64", dict(precision=2)),
    "opt_precision_0": ((5,), "float32", dict(precision=0)),
    "opt_precision_complex": ((4,), "complex128", dict(precision=3)),
    "opt_precision_scalar": ((), "float32", dict(precision=3)),
    "opt_threshold_small": ((4, 5), "float32", dict(threshold=10)),
    "opt_threshold_equal": ((2, 5), "int64", dict(threshold=10)),
    "opt_threshold_edge_1": ((5, 6), "float32", dict(threshold=10, edgeitems=1)),
    "opt_edgeitems_2_3d": ((6, 5, 7), "float32", dict(edgeitems=2, threshold=20)),
    "opt_edgeitems_large": ((20, 20), "int32", dict(edgeitems=5, threshold=100)),
    "opt_edgeitems_0": ((10,), "float32", dict(edgeitems=0, threshold=5)),
    "opt_edgeitems_0_2d": ((4, 4), "float32", dict(edgeitems=0, threshold=5)),
    "opt_edgeitems_only": ((8,), "float32", dict(edgeitems=1)),
    "opt_sci_mode": ((2, 3), "float32", dict(sci_mode=True)),
    "opt_sci_precision": ((2, 3), "float64", dict(sci_mode=True, precision=3)),
    "opt_sci_scalar": ((), "float64", dict(sci_mode=True)),
    "opt_sci_int": ((3,), "int64", dict(sci_mode=True)),
    "opt_sci_complex": ((3,), "complex64", dict(sci_mode=True, precision=2)),
    "opt_sci_summary": ((50, 50), "float32", dict(sci_mode=True, precision=2)),
    "opt_linewidth_40": ((30,), "float32", dict(linewidth=40)),
    "opt_linewidth_20_2d": ((3, 8), "float64", dict(linewidth=20)),
    "opt_linewidth_1": ((4,), "int32", dict(linewidth=1)),
    "opt_linewidth_wide": ((60,), "float32", dict(linewidth=200)),
    "opt_paddle_doc_example": ((10, 20), "float32", dict(precision=4, threshold=100, edgeitems=3)),
}
for _name, (_s, _d, _o) in OPTIONS.items():
    CASES[_name] = lambda paddle, s=_s, d=_d, o=_o, n=_name: printed(paddle, sample(s, d, n), d, **o)
CASES["opt_sci_special"] = lambda paddle: printed(paddle, [INF, -INF, NAN, 1e-20, 12345.0], "float32",
                                                  sci_mode=True)


def c_options_persist_and_none_keeps(paddle):
    """Options stay set between prints; an argument left None keeps its current value."""
    x = tensor(paddle, sample((3, 4), "float32", "persist"), "float32")
    paddle.set_printoptions(precision=3)
    try:
        first = str(x)
        paddle.set_printoptions(linewidth=30)
        return [first, str(x), str(x[0])]
    finally:
        paddle.set_printoptions(**DEFAULTS)


# -- stop_gradient, Parameters, places, dtypes, types -----------------------------------------------------------
def c_stop_gradient(paddle):
    x = tensor(paddle, [1.0, -2.0], "float32", stop_gradient=False)
    y = x * 2
    z = tensor(paddle, [3, 4], "int64", stop_gradient=False)
    return [str(x), repr(y), str(y.detach()), str(z)]


def c_parameters(paddle):
    assign = paddle.nn.initializer.Assign
    with paddle.utils.unique_name.guard():
        owner = paddle.nn.Layer()
        p = owner.create_parameter([2, 3], "float32", default_initializer=assign(sample((2, 3), "float32", "param")))
        frozen = owner.create_parameter([2], "float64", default_initializer=paddle.nn.initializer.Constant(1.5))
        frozen.stop_gradient = True
        linear = paddle.nn.Linear(2, 3)
        linear.weight.set_value(sample((2, 3), "float32", "linear"))
        linear.bias.set_value(np.zeros(3, "float32"))
        big = owner.create_parameter([40, 40], "float32",
                                     default_initializer=assign(sample((40, 40), "float32", "big")))
        return [str(p), repr(p), str(frozen), str(linear.weight), repr(linear.bias), str(big)]


def c_places(paddle):
    x = paddle.to_tensor([1.0], place=paddle.CPUPlace())
    return [str(paddle.CPUPlace()), repr(paddle.CPUPlace()), str(x.place), repr(x.place),
            str(paddle.to_tensor(1, place="cpu")), str(paddle.to_tensor(1).cpu())]


def c_dtypes(paddle):
    out = []
    for name in DTYPES + ["float8_e4m3fn", "float8_e5m2"]:
        d = getattr(paddle, name)
        out.append([str(d), repr(d), f"{d}", str([d]), str({"dtype": d})])
    x = paddle.to_tensor([1.0])
    out.append([str(x.dtype), repr(x.dtype), str(x.astype("int8").dtype), repr(x.astype("bfloat16").dtype)])
    return out


def c_types(paddle):
    x = paddle.to_tensor([1.0])
    return [str(type(x)), repr(paddle.Tensor), str(type(paddle.float32)), repr(paddle.dtype),
            type(x).__name__, type(x).__module__]


# -- Layer reprs ------------------------------------------------------------------------------------------------
def _custom_layers(paddle):
    nn = paddle.nn

    class WithDtype(nn.Layer):
        def __init__(self, dtype):
            super().__init__(dtype=dtype)

        def extra_repr(self):
            return f"dtype={self._dtype}"

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.ReLU()
            self.inner = WithDtype(paddle.int8)

    return WithDtype, Block


def c_layer_reprs(paddle):
    nn = paddle.nn
    WithDtype, Block = _custom_layers(paddle)
    with paddle.utils.unique_name.guard():
        layers = [
            nn.Linear(2, 3), nn.Linear(4, 5, name="fc"), nn.Conv2D(3, 4, 3), nn.Conv2D(3, 8, [3, 5], stride=2,
                                                                                      padding=1, groups=1),
            nn.Conv1D(2, 4, 3, padding="same"), nn.Conv2DTranspose(4, 2, 3), nn.BatchNorm2D(3), nn.BatchNorm1D(5),
            nn.BatchNorm(4), nn.LayerNorm([4, 5]), nn.Embedding(10, 3), nn.Embedding(10, 3, padding_idx=0),
            nn.LSTM(3, 4), nn.LSTM(3, 4, num_layers=2, direction="bidirect"), nn.GRU(2, 3), nn.SimpleRNN(2, 3),
            nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)),
            nn.Sequential(nn.Sequential(nn.Conv2D(1, 2, 3), nn.MaxPool2D(2)), nn.Flatten()),
            nn.LayerList([nn.Linear(2, 2), nn.Dropout(0.5)]), nn.Dropout(), nn.MaxPool2D(2, 2),
            nn.AdaptiveAvgPool2D(1), nn.PReLU(), nn.RReLU(), nn.Bilinear(2, 3, 4), nn.MultiHeadAttention(8, 2),
            WithDtype(paddle.int8), WithDtype("float64"), Block(),
        ]
        return [repr(layer) for layer in layers]


def c_layer_dtype_reprs(paddle):
    """What the dtype shown by Linear/PReLU/Bilinear reads after the casts: the argument as given."""
    nn = paddle.nn
    out = []
    with paddle.utils.unique_name.guard():
        for cast in (lambda m: m.astype("int8"), lambda m: m.astype(np.dtype("float64")),
                     lambda m: m.to(dtype=paddle.float16), lambda m: m.to(dtype="float64"),
                     lambda m: m.to(dtype=np.dtype("float64")), lambda m: m.to("cpu"), lambda m: m.double(),
                     lambda m: m.half(), lambda m: m.float(), lambda m: m.bfloat16(),
                     lambda m: m.type("float64"), lambda m: m.type(paddle.float64)):
            out.append(str(cast(nn.Linear(2, 3))))
            out.append(str(cast(nn.Sequential(nn.Linear(2, 3), nn.PReLU(), nn.Bilinear(2, 2, 1)))))
    return out


for _fn in (c_options_persist_and_none_keeps, c_stop_gradient, c_parameters, c_places, c_dtypes, c_types,
            c_layer_reprs, c_layer_dtype_reprs):
    CASES[_fn.__name__[2:]] = _fn


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
