"""The op table in static mode: each row's API called on ``static.data`` Variables appends ops whose inferred
shapes and dtypes match what the Executor computes, and whose values match eager mode."""
import numpy as np
import pytest

import torchpaddle as paddle
from tests.optable.core import T
from tests.optable.runner import call, flatten, load_rows, resolve, samples_of

ROWS = load_rows()

# Rows whose API has no static form here, with the reason.
_TENSOR_ARG = "a size/axis/shape argument given as a Tensor must be known while the program is built"
STATIC_UNSUPPORTED = {
    **{name: _TENSOR_ARG for name in (
        "concat_tensor_axis", "crop_tensor_args", "diagonal_tensor_args", "expand_tensor_shape", "eye",
        "full_like", "gather_axis_tensor", "narrow_tensor_start", "ones", "zeros",
        "slice_tensor_bounds", "split_tensor_args", "tensordot", "tile_tensor", "unflatten_tensor_shape",
        "unsqueeze_tensor_axis", "scatter_nd", "randperm", "repeat_interleave_tensor")},
    "lstsq": "the residuals' shape (even rank) depends on the solution's rank, a value",
    "assign_values": "assign(x, output=fed_var) keeps the fed variable's dtype in a program",
    "one_hot": "num_classes=-1 takes the class count from the label values",
    "adaptive_log_softmax_with_loss": "the cluster masks are built from label values in Python",
}
# Rows whose output size depends on input values: their static shape is -1 there.
DATA_DEPENDENT = {"arange", "linspace", "logspace", "masked_select", "masked_select_input_kw", "nonzero",
                  "unique", "unique_consecutive", "where", "topk", "lstsq", "reshape_tensor_shape", "fftfreq",
                  "rfftfreq", "fluid_unique"}
DATA_DEPENDENT |= {"sf_bincount"}   # tests/optable/rows_surface.py
# Rows whose samples use the leading dim as a fixed size (reshape targets, split sections, square matrices,
# a label per row of known count): with that dim unknown (-1) there is no static shape to check.
BATCH_FIXED = {
    "F_affine_grid", "F_temporal_shift", "as_complex", "chunk", "cov", "det", "diag", "diagonal",
    "diagonal_scatter", "gaussian_nll_loss", "glu", "hsplit", "linalg_cross", "lu", "multi_margin_loss",
    "multinomial_all_categories", "nll_loss", "nonzero", "normal_tensor_mean_std", "normal_zero_std", "qr_modes",
    "randint_like_single_value", "repeat_interleave", "reshape", "reshape_input_kw", "reshape_tensor_shape",
    "reshape_varargs", "split", "squeeze", "svd", "svd_full", "svdvals", "tensor_split", "unbind", "unflatten", "unstack", "view", "view_as",
    "view_varargs", "vsplit",
    # FFT samples resizing or shifting the leading axis (an unknown size is refused there)
    "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
    "irfftn_grad", "hfftn_grad", "fftshift", "ifftshift", "fftshift_more", "ifftshift_more", "linalg_diagonal"}
# Rows whose static output has another dtype than eager, as in Paddle's legacy IR: row -> static dtype.
STATIC_DTYPES = {"shape": "int32"}
# Rows whose values come from the random generator, which static programs draw in another order.
RANDOM_IN_STATIC = {"gumbel_softmax_hard_one_hot", "multinomial_all_categories", "randperm", "svd_lowrank",
                    "tensor_svd_lowrank", "pca_lowrank", "tensor_pca_lowrank"}


def _static_args(value, dtype, feeds, batch_unknown):
    """Variables fed the sample's arrays; with ``batch_unknown`` the leading dim of the batch-like inputs (those
    shaped like the first input in rank and leading size) is -1, as a batch of static.data usually is."""
    if isinstance(value, T):
        d = value.dtype or dtype
        array = np.asarray(value.data).astype(d)
        shape = list(array.shape)
        if not feeds:
            feeds["__batch__"] = (len(shape), shape[0] if shape else None)
        if batch_unknown and shape and (len(shape), shape[0]) == feeds["__batch__"]:
            shape[0] = -1
        var = paddle.static.data(f"in{len(feeds)}", shape, d)
        feeds[var.name] = array
        return var
    if isinstance(value, list):
        return [_static_args(v, dtype, feeds, batch_unknown) for v in value]
    if isinstance(value, tuple):
        return tuple(_static_args(v, dtype, feeds, batch_unknown) for v in value)
    return value


def _run_static(case, sample, dtype, batch_unknown):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feeds = {}
    with paddle.static.program_guard(main, startup):
        args = _static_args(sample.args, dtype, feeds, batch_unknown)
        kwargs = {k: _static_args(v, dtype, feeds, batch_unknown) for k, v in sample.kwargs.items()}
        out = resolve(paddle, case.api)(*args, **kwargs)
    feeds.pop("__batch__", None)
    outs = [o for o in flatten(out) if isinstance(o, paddle.static.Variable)]
    exe = paddle.static.Executor()   # the current place, where the eager run computes too
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        values = exe.run(main, feed=feeds, fetch_list=outs)
    return outs, values, out


def _eager(case, sample, dtype):
    paddle.disable_static()
    try:
        out, _ = call(paddle, case, sample, dtype)
    finally:
        paddle.enable_static()
    return [o.numpy() for o in flatten(out) if isinstance(o, paddle.Tensor)]


def _rows():
    return sorted(n for n, c in ROWS.items() if c.ref is not None and not c.random and not c.api.endswith("_")
                  and n not in STATIC_UNSUPPORTED)


@pytest.mark.parametrize("batch_unknown", [False, True], ids=["known", "batch-1"])
@pytest.mark.parametrize("name", _rows())
def test_static_matches_eager(name, batch_unknown, static_mode):
    if batch_unknown and name in BATCH_FIXED:
        pytest.skip("the sample fixes the leading dim")
    case = ROWS[name]
    dtype = case.dtypes[0]
    for i, sample in enumerate(samples_of(case, dtype)):
        where = f"{name}[{dtype}, sample {i}]"
        expected = _eager(case, sample, dtype)
        outs, values, _ = _run_static(case, sample, dtype, batch_unknown)
        assert len(values) == len(expected), f"{where}: {len(values)} static outputs, eager has {len(expected)}"
        for k, (var, got, want) in enumerate(zip(outs, values, expected)):
            got = np.asarray(got)
            if name in STATIC_DTYPES:
                want = want.astype(STATIC_DTYPES[name])
            assert got.shape == want.shape, f"{where} output {k}: static shape {got.shape}, eager {want.shape}"
            assert got.dtype == want.dtype, f"{where} output {k}: static dtype {got.dtype}, eager {want.dtype}"
            assert var.dtype.name == str(want.dtype) or (var.dtype.name, str(want.dtype)) == ("bfloat16", "uint16")
            inferred = var.shape
            assert len(inferred) == want.ndim, f"{where} output {k}: inferred rank {inferred} vs {want.shape}"
            for a, b in zip(inferred, want.shape):
                assert a == b or (a == -1 and (batch_unknown or name in DATA_DEPENDENT)), \
                    f"{where} output {k}: inferred shape {inferred}, computed {list(want.shape)}"
            if name in RANDOM_IN_STATIC:
                continue
            if want.dtype == bool or want.dtype.kind in "iu":
                np.testing.assert_array_equal(got, want, err_msg=where)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, equal_nan=True, err_msg=where)
