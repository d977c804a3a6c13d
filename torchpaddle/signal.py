"""``paddle.signal``: short-time Fourier transform and its inverse (also ``Tensor.stft``/``Tensor.istft``), plus
the framing helpers ``frame`` and ``overlap_add`` that Paddle keeps outside ``__all__``."""
from . import ops as _ops
from .framework import dtype as _dtype
from .framework.tensor import PaddleAssertionError, Tensor
from .tensor.creation import _require_tensor, ones
from .tensor.manipulation import cast

__all__ = ["stft", "istft"]


def _assert(ok, message):
    if not ok:
        raise PaddleAssertionError(message)


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slices x into overlapping frames: [..., seq] -> [..., frame_length, n_frames] (axis=-1) or
    [seq, ...] -> [n_frames, frame_length, ...] (axis=0)."""
    return _ops.frame(x, frame_length=frame_length, hop_length=hop_length, axis=axis)


def overlap_add(x, hop_length, axis=-1, name=None):
    """Sums frames laid out as frame() returns them back into a signal."""
    return _ops.overlap_add(x, hop_length=hop_length, axis=axis)


def _check_window(window, win_length):
    _require_tensor(window, "stft", "window")
    _assert(window.ndim == 1 and window.shape[0] == win_length,
            f"expected a 1D window tensor of size equal to win_length({win_length}), but got window with shape "
            f"{list(window.shape)}.")


def _center_window(window, win_length, n_fft):
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _ops.pad(window, paddings=[left, n_fft - win_length - left], pad_value=0.0)
    return window


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, name=None):
    """[seq] or [batch, seq] -> complex [(batch,) n_fft // 2 + 1 (onesided) or n_fft, n_frames]."""
    _require_tensor(x, "stft")
    _assert(x.ndim in (1, 2), f"x should be a 1D or 2D real tensor, but got rank of x is {x.ndim}")
    if _dtype.is_integer(x.dtype):
        x = cast(x, _dtype.get_default_dtype())
    hop_length = n_fft // 4 if hop_length is None else hop_length
    _assert(hop_length > 0, f"hop_length should be > 0, but got {hop_length}.")
    win_length = n_fft if win_length is None else win_length
    length = x.shape[-1]
    _assert(length < 0 or 0 < n_fft <= length, f"n_fft should be in (0, seq_length({length})], but got {n_fft}.")
    _assert(0 < win_length <= n_fft, f"win_length should be in (0, n_fft({n_fft})], but got {win_length}.")
    if window is not None:
        _check_window(window, win_length)
    else:
        window = ones([win_length], dtype=x.dtype if _dtype.is_floating(x.dtype) else
                      ("float64" if x.dtype.name == "complex128" else "float32"))
    window = _center_window(window, win_length, n_fft)
    if center:
        _assert(pad_mode in ("constant", "reflect"),
                f'pad_mode should be "reflect" or "constant", but got "{pad_mode}".')
        pad = n_fft // 2
        axes = [0, 1, 2, 3] if x.ndim == 1 else [1, 2, 3]
        # pad3d pads the last dim of a 5-D tensor: [batch, 1, 1, 1, seq]
        x = _ops.squeeze2(_ops.pad3d(_ops.unsqueeze2(x, axes=axes), paddings=[pad, pad, 0, 0, 0, 0],
                                     mode=pad_mode, value=0.0, data_format="NCDHW"), axes=axes)
    complex_frames = _dtype.is_complex(x.dtype) or _dtype.is_complex(window.dtype)
    if onesided is None:
        onesided = not complex_frames
    _assert(not (complex_frames and onesided), "onesided should be False when input or window is a complex Tensor.")
    return _ops.stft(x, window, n_fft=n_fft, hop_length=hop_length, normalized=normalized, onesided=onesided)


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=True,
          length=None, return_complex=False, name=None):
    """The inverse of stft: [(batch,) fft_size, n_frames] -> [(batch,) seq] (complex when return_complex)."""
    _require_tensor(x, "istft")
    _assert(x.ndim in (2, 3), f"x should be a 2D or 3D complex tensor, but got rank of x is {x.ndim}")
    if _dtype.is_floating(x.dtype):
        x = cast(x, "complex128" if x.dtype.name == "float64" else "complex64")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    _assert(0 < hop_length <= win_length, f"hop_length should be in (0, win_length({win_length})], but got "
                                          f"{hop_length}.")
    _assert(0 < win_length <= n_fft, f"win_length should be in (0, n_fft({n_fft})], but got {win_length}.")
    fft_size = x.shape[-2]
    if fft_size >= 0:
        _assert(0 not in x.shape, "x should not be an empty tensor.")
        if onesided:
            _assert(fft_size == n_fft // 2 + 1, f"fft_size should be equal to n_fft // 2 + 1({n_fft // 2 + 1}) when "
                                                f"onesided is True, but got {fft_size}.")
        else:
            _assert(fft_size == n_fft, f"fft_size should be equal to n_fft({n_fft}) when onesided is False, but got "
                                       f"{fft_size}.")
    if window is not None:
        _check_window(window, win_length)
    else:
        window = ones([win_length], dtype="float32" if x.dtype.name == "complex64" else "float64")
    window = _center_window(window, win_length, n_fft)
    if return_complex:
        _assert(not onesided, "onesided should be False when input(output of istft) or window is a complex Tensor.")
    else:
        _assert(not _dtype.is_complex(window.dtype),
                "Data type of window should not be complex when return_complex is False.")
    return _ops.istft(x, window, n_fft=n_fft, hop_length=hop_length, center=center, normalized=normalized,
                      onesided=onesided, length=-1 if length is None else length, return_complex=return_complex)


for _name in ("stft", "istft"):
    if _name not in Tensor.__dict__:
        setattr(Tensor, _name, globals()[_name])
