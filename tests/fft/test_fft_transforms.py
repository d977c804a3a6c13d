"""paddle.fft beyond the op table (tests/optable/rows_fft.py): gradients of the complex-valued transforms (and of
stft/istft and the new linalg functions) against finite differences and real PaddlePaddle 3.3.1, the default
dtype, out=, keyword aliases, static programs with backward, and where we differ from Paddle on purpose."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.fft import spectral_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

_COMPARED = {name: case for name, case in cases.CASES.items() if name not in cases.PADDLE_CANNOT}
reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.fft.spectral_cases", _COMPARED, lambda: run_cases(_COMPARED, paddle), compare)


@pytest.mark.parametrize("name", sorted(cases.SPECS))
def test_gradient_matches_finite_differences(name):
    """d loss / d Re(x) + i d loss / d Im(x), Paddle's (and torch's) convention for complex inputs."""
    x, _, grad, _ = cases.evaluate(paddle, name)
    grad = grad.numpy()
    eps = 1e-6
    flat = list(np.ndindex(x.shape))[:20]
    for idx in flat:
        for unit in ((1.0, 1j) if np.iscomplexobj(x) else (1.0,)):
            plus, minus = x.copy(), x.copy()
            plus[idx] += eps * unit
            minus[idx] -= eps * unit
            numeric = (cases.evaluate(paddle, name, plus)[3] - cases.evaluate(paddle, name, minus)[3]) / (2 * eps)
            analytic = grad[idx].real if unit == 1.0 else grad[idx].imag
            np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6, err_msg=f"{name} {idx} {unit}")


def test_integer_input_follows_the_default_dtype():
    x = paddle.arange(6)
    assert paddle.fft.fft(x).dtype == paddle.complex64
    assert paddle.fft.fftfreq(4).dtype == paddle.float32
    paddle.set_default_dtype("float64")
    try:
        assert paddle.fft.fft(x).dtype == paddle.complex128
        assert paddle.fft.rfft2(x.reshape([2, 3])).dtype == paddle.complex128
        assert paddle.fft.fftfreq(4).dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")
    np.testing.assert_allclose(paddle.fft.rfft(x).numpy(), np.fft.rfft(np.arange(6)), rtol=1e-6, atol=1e-5)


def test_out_and_keyword_aliases():
    data = np.random.default_rng(0).normal(size=(3, 4))
    x = paddle.to_tensor(data)
    out = paddle.zeros([3, 4], dtype="complex128")
    result = paddle.fft.fft(x, axis=0, out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), np.fft.fft(data, axis=0))
    np.testing.assert_allclose(paddle.fft.fft(input=x, dim=0).numpy(), np.fft.fft(data, axis=0))
    np.testing.assert_allclose(paddle.fft.rfftn(input=x, dim=[0]).numpy(), np.fft.rfftn(data, axes=[0]))
    np.testing.assert_allclose(paddle.fft.fftshift(input=x, dim=[1]).numpy(), np.fft.fftshift(data, axes=[1]))
    freq = paddle.fft.rfftfreq(5, d=0.5, requires_grad=True)
    assert not freq.stop_gradient
    np.testing.assert_allclose(freq.numpy(), np.fft.rfftfreq(5, 0.5), rtol=1e-6)


def test_differences_from_paddle():
    x = paddle.rand([2, 3, 4])
    # Paddle aborts the process (std::invalid_argument) on a repeated axis
    with pytest.raises(ValueError, match="repeats"):
        paddle.fft.fftn(x, axes=[1, 1])
    # Paddle raises SystemError for an int axis, one-element axes and 1-D input
    np.testing.assert_array_equal(paddle.fft.fftshift(x, axes=1).numpy(), np.fft.fftshift(x.numpy(), axes=1))
    np.testing.assert_array_equal(paddle.fft.ifftshift(paddle.arange(5)).numpy(), np.fft.ifftshift(np.arange(5)))


def test_empty_input():
    out = paddle.fft.fft(paddle.zeros([0]))
    assert out.dtype == paddle.complex64 and out.shape == [0]
    assert paddle.fft.rfft(paddle.zeros([3, 0])).shape == [3, 1]
    assert paddle.fft.fftn(paddle.zeros([0, 4]), axes=[1]).shape == [0, 4]
    with pytest.raises(ValueError):
        paddle.fft.irfft(paddle.zeros([0], dtype="complex64"))


def test_static_backward_matches_eager(static_mode):
    data = np.random.default_rng(1).normal(size=(3, 8))
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 8], "float64")
        x.stop_gradient = False
        spectrum = paddle.fft.rfft(x, n=10, norm="ortho")
        signal = paddle.fft.irfft(spectrum * 2, n=7)
        loss = (signal * signal).sum() + paddle.abs(paddle.fft.fft2(x)).sum()
        (grad,) = paddle.static.gradients([loss], [x])
    types = [op.type for op in main.global_block().ops]
    assert {"fft_r2c", "fft_c2r", "fft_r2c_grad", "fft_c2r_grad"} <= set(types), types
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    static_loss, static_grad = exe.run(main, feed={"x": data}, fetch_list=[loss, grad])
    paddle.disable_static()
    try:
        t = paddle.to_tensor(data, stop_gradient=False)
        eager = paddle.fft.irfft(paddle.fft.rfft(t, n=10, norm="ortho") * 2, n=7)
        eager_loss = (eager * eager).sum() + paddle.abs(paddle.fft.fft2(t)).sum()
        eager_loss.backward()
        np.testing.assert_allclose(static_loss, eager_loss.numpy(), rtol=1e-10)
        np.testing.assert_allclose(static_grad, t.grad.numpy(), rtol=1e-10)
    finally:
        paddle.enable_static()


def test_static_unknown_size_is_refused_not_mis_padded(static_mode):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [-1, 4], "float32")
        assert paddle.fft.fft(x, n=6).shape == [-1, 6]   # the known axis resizes
        assert paddle.fft.fftn(x).shape == [-1, 4]
        with pytest.raises(ValueError, match="unknown"):
            paddle.fft.fft(x, n=6, axis=0)
        with pytest.raises(ValueError, match="unknown"):
            paddle.fft.fftshift(x)


@pytest.mark.conformance
@pytest.mark.usefixtures("legacy_program_format")
def test_saved_program_runs_in_paddle(static_mode, tmp_path):
    """fft_r2c/fft_c2c/fft_c2r, frame, overlap_add, stft and lu_solve ops written here load and run in Paddle."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 16], "float32")
        a = paddle.static.data("a", [3, 3], "float64")
        spectrum = paddle.fft.rfft(x, n=12, norm="ortho")
        fetches = [spectrum, paddle.fft.irfft(spectrum, n=11), paddle.fft.hfft(spectrum, axis=0),
                   paddle.fft.ifftn(paddle.fft.fft(x), axes=[0, 1]), paddle.fft.ihfft2(x, s=[2, 6]),
                   paddle.signal.stft(x, 8, hop_length=3, normalized=True),
                   paddle.signal.overlap_add(paddle.signal.frame(x, 4, 2), 2)]
        lu, pivots = paddle.linalg.lu(a)
        fetches.append(paddle.linalg.lu_solve(a, lu, pivots, trans="T"))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(5)
    feed = {"x": rng.normal(size=(2, 16)).astype("float32"), "a": rng.normal(size=(3, 3)) + 3 * np.eye(3)}
    ours = exe.run(main, feed=feed, fetch_list=fetches)
    paddle.static.save_inference_model(str(tmp_path / "spectral"), [x, a], fetches, exe, program=main)
    np.savez(tmp_path / "in.npz", **feed)
    paddle_ref.run_module("tests.fixtures.static_models.make_fixtures", "--run", str(tmp_path / "spectral"),
                          str(tmp_path / "in.npz"), str(tmp_path / "out.npz"), timeout=300)
    theirs = np.load(tmp_path / "out.npz")
    assert len(theirs.files) == len(ours)
    for i, value in enumerate(ours):
        got = theirs[f"arr_{i}"]
        assert got.dtype == value.dtype and got.shape == value.shape, (i, got.dtype, value.dtype)
        np.testing.assert_allclose(got, value, rtol=1e-5, atol=1e-5, err_msg=str(i))
