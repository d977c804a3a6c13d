"""paddle.signal beyond the op table (tests/optable/rows_signal.py): istft(stft(x)) rebuilds x, the NOLA check,
odd n_fft, integer input, Tensor methods and the ops a static program holds. Gradients (against finite
differences and real Paddle) are in tests/fft/test_fft_transforms.py."""
import numpy as np
import pytest

import torchpaddle as paddle


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kwargs", [{}, {"hop_length": 3}, {"center": False}, {"normalized": True},
                                    {"win_length": 6, "hop_length": 2}, {"window": "hann", "hop_length": 2}])
def test_istft_inverts_stft(dtype, kwargs):
    data = np.random.default_rng(3).normal(size=(2, 40)).astype(dtype)
    kwargs = dict(kwargs)
    if kwargs.get("window") == "hann":
        kwargs["window"] = paddle.to_tensor(np.hanning(10)[1:-1].astype(dtype))
    spectrum = paddle.signal.stft(paddle.to_tensor(data), 8, **kwargs)
    assert spectrum.dtype == (paddle.complex64 if dtype == "float32" else paddle.complex128)
    rebuilt = paddle.signal.istft(spectrum, 8, length=40, **{k: v for k, v in kwargs.items() if k != "pad_mode"})
    assert rebuilt.dtype.name == dtype and rebuilt.shape == [2, 40]
    np.testing.assert_allclose(rebuilt.numpy(), data, rtol=1e-5, atol=1e-5)


def test_istft_refuses_windows_that_break_nola():
    window = paddle.to_tensor(np.hanning(8))
    x = paddle.to_tensor(np.random.default_rng(0).normal(size=(2, 32)))
    spectrum = paddle.signal.stft(x, 8, window=window, center=False)
    with pytest.raises(ValueError, match="NOLA"):
        paddle.signal.istft(spectrum, 8, window=window, center=False)


def test_istft_odd_n_fft_is_a_value_error():
    # Paddle's c2r transform yields n_fft - 1 samples per frame for an odd n_fft and fails to broadcast
    spectrum = paddle.signal.stft(paddle.to_tensor(np.random.default_rng(0).normal(size=(2, 33))), 9)
    with pytest.raises(ValueError, match="n_fft"):
        paddle.signal.istft(spectrum, 9)


def test_integer_input_and_tensor_methods():
    x = paddle.arange(32)
    expected = paddle.signal.stft(x.astype("float32"), 8).numpy()
    np.testing.assert_allclose(paddle.signal.stft(x, 8).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(x.astype("float32").stft(8).numpy(), expected, rtol=1e-6)
    back = paddle.to_tensor(expected).istft(8)
    np.testing.assert_allclose(back.numpy(), np.arange(32), rtol=1e-5, atol=1e-4)
    frames = paddle.signal.frame(paddle.arange(10), 4, 3)
    np.testing.assert_array_equal(frames.numpy(), np.arange(10)[np.arange(4)[:, None] + 3 * np.arange(3)])
    np.testing.assert_array_equal(paddle.signal.overlap_add(paddle.ones([4, 3], dtype="int64"), 2).numpy(),
                                  [1, 1, 2, 2, 2, 2, 1, 1])


def test_static_program_holds_paddles_stft_op():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [-1, 32], "float32")
            spectrum = paddle.signal.stft(x, 8, hop_length=4)
            signal = paddle.signal.istft(spectrum, 8, hop_length=4)
        types = [op.type for op in main.global_block().ops]
        assert "stft" in types and "pad3d" in types and "istft" in types, types
        stft_op = next(op for op in main.global_block().ops if op.type == "stft")
        assert stft_op.attr("n_fft") == 8 and stft_op.attr("onesided") is True
        assert spectrum.shape == [-1, 5, 9] and signal.shape == [-1, 32]
        data = np.random.default_rng(0).normal(size=(3, 32)).astype("float32")
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        spec, rebuilt = exe.run(main, feed={"x": data}, fetch_list=[spectrum, signal])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(spec, paddle.signal.stft(paddle.to_tensor(data), 8, hop_length=4).numpy(), rtol=1e-6)
    np.testing.assert_allclose(rebuilt, data, rtol=1e-5, atol=1e-5)
