"""Rows for paddle.signal: stft/istft (also as Tensor methods) and the framing ops frame/overlap_add.

The references are plain NumPy: numpy.pad for the centering, index arithmetic for frames, np.fft for the
spectra and a loop for overlap-add. stft/istft have complex values on one side, so their gradients are checked
in tests/signal/test_signal.py instead of here.
"""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T, data


def _frame(x, frame_length, hop_length, axis=-1):
    if axis == 0:
        return np.moveaxis(_frame(np.moveaxis(x, 0, -1), frame_length, hop_length), (-2, -1), (1, 0))
    count = 1 + (x.shape[-1] - frame_length) // hop_length
    index = np.arange(frame_length)[:, None] + hop_length * np.arange(count)[None, :]
    return x[..., index]


def _overlap_add(x, hop_length, axis=-1):
    if axis == 0:
        return np.moveaxis(_overlap_add(np.moveaxis(x, (0, 1), (-1, -2)), hop_length), -1, 0)
    frame_length, count = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + ((count - 1) * hop_length + frame_length,), dtype=x.dtype)
    for i in range(count):
        out[..., i * hop_length:i * hop_length + frame_length] += x[..., :, i]
    return out


def _window(window, win_length, n_fft, dtype):
    window = np.ones(win_length, dtype=dtype) if window is None else window
    left = (n_fft - win_length) // 2
    return np.pad(window, (left, n_fft - win_length - left))


def _stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
          normalized=False, onesided=None):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    window = _window(window, n_fft if win_length is None else win_length, n_fft, x.dtype)
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=pad_mode)
    frames = _frame(x, n_fft, hop_length) * window[:, None]
    complex_frames = np.iscomplexobj(frames)
    onesided = not complex_frames if onesided is None else onesided
    return (np.fft.rfft if onesided else np.fft.fft)(frames, axis=-2, norm="ortho" if normalized else "backward")


def _istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=True,
           length=None, return_complex=False):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    real = np.float32 if x.dtype == np.complex64 else np.float64
    window = _window(window, n_fft if win_length is None else win_length, n_fft, real)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        frames = np.fft.ifft(x, axis=-2, norm=norm)
    else:
        frames = np.fft.irfft(x[..., :n_fft // 2 + 1, :], n=n_fft, axis=-2, norm=norm)
    signal = _overlap_add(frames * window[:, None], hop_length)
    envelope = _overlap_add(np.repeat((window * window)[:, None], x.shape[-1], axis=1), hop_length)
    start = n_fft // 2 if center else 0
    stop = envelope.shape[-1] - start if length is None else start + length
    return signal[..., start:stop] / envelope[start:stop]


def _frame_samples(rng, dtype):
    x = lambda *shape: T(data(rng, shape, dtype))  # noqa: E731
    return [Sample((x(2, 32), 8, 4)), Sample((x(32), 5, 3)), Sample((x(32, 2), 8, 4), {"axis": 0}),
            Sample((x(3, 2, 10), 4, 2)), Sample((x(9), 9, 1))]


def _overlap_samples(rng, dtype):
    x = lambda *shape: T(data(rng, shape, dtype))  # noqa: E731
    return [Sample((x(2, 8, 7), 4)), Sample((x(8, 7), 4)), Sample((x(7, 8, 2), 4), {"axis": 0}),
            Sample((x(2, 3, 4, 5), 2)), Sample((x(4, 3), 4), {"axis": -1})]


def _stft_samples(rng, dtype):
    x = lambda *shape: T(rng.uniform(-1, 1, size=shape))  # noqa: E731
    return [Sample((x(2, 32), 8)), Sample((x(32), 8), {"hop_length": 3}),
            Sample((x(2, 30), 8), {"window": T(np.hanning(8), grad=False), "hop_length": 2}),
            Sample((x(2, 32), 8), {"win_length": 6, "window": T(np.hanning(6) + 0.1, grad=False)}),
            Sample((x(2, 32), 8), {"win_length": 5}), Sample((x(2, 32), 8), {"center": False}),
            Sample((x(2, 32), 8), {"pad_mode": "constant"}), Sample((x(2, 32), 8), {"normalized": True}),
            Sample((x(2, 32), 8), {"onesided": False}), Sample((x(1, 5), 5)), Sample((x(3, 40), 16, 5))]


def _stft_complex_samples(rng, dtype):
    x = lambda *shape: T(rng.uniform(-1, 1, size=shape) + 1j * rng.uniform(-1, 1, size=shape))  # noqa: E731
    return [Sample((x(2, 32), 8)), Sample((x(32), 8), {"center": False, "hop_length": 4}),
            Sample((x(2, 24), 8), {"normalized": True, "onesided": False})]


def _istft_samples(rng, dtype):
    real = "float32" if dtype == "complex64" else "float64"
    hann = T(np.hanning(10)[1:-1] + 0.05, dtype=real, grad=False)

    def spectrum(shape, n_fft, **kw):
        return T(_stft(rng.uniform(-1, 1, size=shape), n_fft, **kw))
    return [Sample((spectrum((2, 32), 8), 8)), Sample((spectrum((32,), 8), 8)),
            Sample((spectrum((2, 30), 8, hop_length=2), 8), {"hop_length": 2, "window": hann}),
            Sample((spectrum((2, 32), 8), 8), {"length": 30}), Sample((spectrum((2, 32), 8), 8), {"length": 40}),
            Sample((spectrum((2, 32), 8, center=False), 8), {"center": False}),
            Sample((spectrum((2, 32), 8, normalized=True), 8), {"normalized": True}),
            Sample((spectrum((2, 32), 8, onesided=False), 8), {"onesided": False}),
            Sample((spectrum((2, 32), 8, onesided=False), 8), {"onesided": False, "return_complex": True}),
            Sample((spectrum((2, 32), 8, hop_length=3), 8), {"hop_length": 3, "win_length": 6})]


_X = T(np.ones((2, 32)))
_SPEC = T(np.ones((2, 5, 17)) + 0j, dtype="complex64")

OPS = [
    OpCase("signal_frame", "signal.frame", _frame, _frame_samples, FLOATS + ("int64",),
           errors=(Err((_X, 8, 4), {"axis": 1}), Err((_X, 40, 4)), Err((_X, 8, 0)), Err((_X, 1.5, 4)))),
    OpCase("signal_overlap_add", "signal.overlap_add", _overlap_add, _overlap_samples, FLOATS + ("int64",),
           errors=(Err((T(np.ones(8)), 4)), Err((T(np.ones((2, 8, 7))), 4), {"axis": 1}),
                   Err((T(np.ones((2, 8, 7))), 0)), Err((T(np.ones((4, 3))), 6)))),
    OpCase("stft", "signal.stft", _stft, _stft_samples, FLOATS, grad=False, rtol=1e-4, atol=1e-5,
           errors=(Err((T(np.ones((2, 2, 32))), 8)), Err((_X, 64)), Err((_X, 8), {"hop_length": 0}),
                   Err((_X, 8), {"win_length": 9}), Err((_X, 8), {"window": T(np.ones(7))}),
                   Err((_X, 8), {"pad_mode": "edge"}), Err((_X, 2)),
                   Err((T(np.ones((2, 32)) + 0j, dtype="complex64"), 8), {"onesided": True}))),
    OpCase("stft_complex", "signal.stft", _stft, _stft_complex_samples, ("complex64", "complex128"), grad=False,
           rtol=1e-4, atol=1e-5),
    OpCase("tensor_stft", "Tensor.stft", _stft, _stft_samples, ("float64",), grad=False),
    OpCase("istft", "signal.istft", _istft, _istft_samples, ("complex64", "complex128"), grad=False, rtol=1e-4,
           atol=1e-5,
           errors=(Err((_SPEC, 10)), Err((_SPEC, 8), {"onesided": False}), Err((_SPEC, 8), {"hop_length": 9}),
                   Err((_SPEC, 8), {"win_length": 9}), Err((T(np.ones(5) + 0j, dtype="complex64"), 8)),
                   Err((_SPEC, 8), {"return_complex": True}),
                   Err((_SPEC, 8), {"window": T(np.ones(8) + 0j, dtype="complex64")}))),
    OpCase("tensor_istft", "Tensor.istft", _istft, _istft_samples, ("complex128",), grad=False),
]
