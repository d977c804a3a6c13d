"""Signal ops: framing, overlap-add and the short-time Fourier transform and its inverse.

``frame``, ``overlap_add`` and ``stft`` are Paddle op types. ``paddle.signal.stft`` pads the signal (center)
and the window in Python and then runs one ``stft`` op. Paddle builds ``istft`` from several ops in Python
(c2r FFT, multiply, overlap_add, slice, divide); here it is one op.
"""
import torch

from ...framework import dtype as _dtype
from .linalg import KernelDtypeError, dtype_name
from ..registry import REQUIRED, op


def _is_meta(t):
    return t.device.type == "meta"


def _check_signal_axis(op_type, axis):
    if axis not in (0, -1):
        raise ValueError(f"{op_type}: Unexpected axis: {axis}. It should be 0 or -1.")


def _positive(op_type, name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{op_type}: Unexpected {name}: {value}. It should be an positive integer.")


def _not_bool(op_type, X):
    if X.dtype is torch.bool:
        raise KernelDtypeError(f"{op_type}: X of dtype {dtype_name(X)} is not supported")


def overlap_add_last(frames, hop_length):
    """[..., frame_length, n_frames] -> [..., (n_frames - 1) * hop_length + frame_length], summing overlaps."""
    frame_length, n_frames = frames.shape[-2], frames.shape[-1]
    length = (n_frames - 1) * hop_length + frame_length
    lead = frames.shape[:-2]
    positions = (torch.arange(frame_length, device=frames.device)[:, None]
                 + hop_length * torch.arange(n_frames, device=frames.device)[None, :]).reshape(-1)
    flat = frames.reshape(-1, frame_length * n_frames)
    out = flat.new_zeros(flat.shape[0], length).index_add(1, positions, flat)
    return out.reshape(*lead, length)


@op("frame", inputs=["X"], outputs=["Out"], attrs={"frame_length": REQUIRED, "hop_length": REQUIRED, "axis": -1})
def frame(X, *, frame_length, hop_length, axis):
    """Slices of ``frame_length`` every ``hop_length``: [..., seq] -> [..., frame_length, n_frames] (axis=-1),
    [seq, ...] -> [n_frames, frame_length, ...] (axis=0)."""
    _check_signal_axis("frame", axis)
    _positive("frame", "frame_length", frame_length)
    _positive("frame", "hop_length", hop_length)
    if X.dim() == 0:
        raise ValueError("frame: X must have at least 1 dimension, got a 0-D tensor")
    _not_bool("frame", X)
    if frame_length > X.shape[axis]:
        raise ValueError(f"frame: Attribute frame_length should be less equal than sequence length, "
                         f"but got ({frame_length}) > ({X.shape[axis]}).")
    if axis == -1:
        return X.unfold(-1, frame_length, hop_length).transpose(-1, -2).contiguous()
    return X.unfold(0, frame_length, hop_length).movedim(-1, 1).contiguous()


@frame.infer
def _frame_infer(X, *, frame_length, hop_length, axis):
    """n_frames = 1 + (seq - frame_length) // hop_length: two trial sizes of an unknown seq may floor alike."""
    shape = list(X.desc_shape)
    if axis not in (0, -1) or not shape or shape[axis] >= 0:
        return None
    out = shape[:-1] + [frame_length, -1] if axis == -1 else [-1, frame_length] + shape[1:]
    return out, X.dtype


@op("overlap_add", inputs=["X"], outputs=["Out"], attrs={"hop_length": REQUIRED, "axis": -1})
def overlap_add(X, *, hop_length, axis):
    """The inverse of ``frame``'s layout: frames are summed where they overlap."""
    _check_signal_axis("overlap_add", axis)
    _positive("overlap_add", "hop_length", hop_length)
    if X.dim() < 2:
        raise ValueError(f"overlap_add: X must have at least 2 dimensions (frame_length, n_frames), "
                         f"got shape {list(X.shape)}")
    _not_bool("overlap_add", X)
    frame_length = X.shape[-2] if axis == -1 else X.shape[1]
    if hop_length > frame_length:
        raise ValueError(f"overlap_add: hop_length should be less or equal than frame_length, but got "
                         f"hop_length({hop_length}) > frame_length({frame_length})")
    if axis == -1:
        return overlap_add_last(X, hop_length)
    return overlap_add_last(X.movedim((0, 1), (-1, -2)), hop_length).movedim(-1, 0)


def _frames(X, n_fft, hop_length):
    """[..., seq] -> [..., n_frames, n_fft]."""
    if n_fft > X.shape[-1]:
        raise ValueError(f"stft: n_fft should be in (0, seq_length({X.shape[-1]})], but got {n_fft}.")
    return X.unfold(-1, n_fft, hop_length)


@op("stft", inputs=["X", "Window"], outputs=["Out"],
    attrs={"n_fft": REQUIRED, "hop_length": REQUIRED, "normalized": REQUIRED, "onesided": REQUIRED})
def stft(X, Window, *, n_fft, hop_length, normalized, onesided):
    """[batch, seq] (already padded) and a window of n_fft -> [batch, n_fft // 2 + 1 or n_fft, n_frames]."""
    _positive("stft", "n_fft", n_fft)
    _positive("stft", "hop_length", hop_length)
    if X.dim() not in (1, 2):
        raise ValueError(f"stft: X must be 1-D or 2-D [batch, seq_length], got shape {list(X.shape)}")
    if Window.dim() != 1 or Window.shape[0] != n_fft:
        raise ValueError(f"stft: Window must be 1-D of size n_fft ({n_fft}), got shape {list(Window.shape)}")
    for name, t in (("X", X), ("Window", Window)):
        if not (t.is_floating_point() or t.is_complex()):
            raise KernelDtypeError(f"stft: {name} of dtype {dtype_name(t)} is not supported; use a float or "
                                   f"complex tensor")
    frames = _frames(X, n_fft, hop_length) * Window
    norm = "ortho" if normalized else "backward"
    if frames.is_complex():
        if onesided:
            raise ValueError("stft: onesided should be False when input or window is a complex Tensor.")
        spectrum = torch.fft.fft(frames, dim=-1, norm=norm)
    else:
        spectrum = (torch.fft.rfft if onesided else torch.fft.fft)(frames, dim=-1, norm=norm)
    return spectrum.transpose(-1, -2)


@stft.infer
def _stft_infer(X, Window, *, n_fft, hop_length, normalized, onesided):
    """As frame's: an unknown seq length leaves n_frames unknown."""
    shape = list(X.desc_shape)
    if not shape or shape[-1] >= 0:
        return None
    common = _dtype.from_torch_dtype(torch.promote_types(X.dtype.torch, Window.dtype.torch).to_complex())
    real = X.dtype.is_floating_point and Window.dtype.is_floating_point
    bins = n_fft // 2 + 1 if onesided and real else n_fft
    return shape[:-1] + [bins, -1], common


@op("istft", inputs=["X", "Window"], outputs=["Out"],
    attrs={"n_fft": REQUIRED, "hop_length": REQUIRED, "center": True, "normalized": False, "onesided": True,
           "length": -1, "return_complex": False},
    own="Paddle 3.3.1 composes paddle.signal.istft from fft_c2r, overlap_add, slice and divide")
def istft(X, Window, *, n_fft, hop_length, center, normalized, onesided, length, return_complex):
    """[batch, fft_size, n_frames] spectra and a window of n_fft -> [batch, seq] signals (length=-1: all)."""
    if X.dim() not in (2, 3):
        raise ValueError(f"istft: X must be 2-D or 3-D [batch, fft_size, n_frames], got shape {list(X.shape)}")
    if not X.is_complex():
        raise KernelDtypeError(f"istft: X of dtype {dtype_name(X)} is not supported; use complex64 or complex128")
    if Window.dim() != 1 or Window.shape[0] != n_fft:
        raise ValueError(f"istft: Window must be 1-D of size n_fft ({n_fft}), got shape {list(Window.shape)}")
    frames = X.transpose(-1, -2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise ValueError("istft: onesided should be False when return_complex is True")
        frames = torch.fft.ifft(frames, dim=-1, norm=norm)
    else:
        if Window.is_complex():
            raise ValueError("istft: Data type of window should not be complex when return_complex is False.")
        if n_fft % 2:
            # NOTE: Paddle's c2r transform returns 2 * (n_fft // 2) samples per frame, one short of an odd n_fft.
            raise ValueError(f"istft: n_fft must be even to rebuild a real signal, got {n_fft}")
        frames = torch.fft.irfft(frames[..., :n_fft // 2 + 1], n=n_fft, dim=-1, norm=norm)
    n_frames = frames.shape[-2]
    signal = overlap_add_last((frames * Window).transpose(-1, -2), hop_length)
    envelope = overlap_add_last((Window * Window).expand(n_frames, n_fft).transpose(0, 1), hop_length)
    start = n_fft // 2 if center else 0
    if length >= 0:
        stop = start + length
    else:
        stop = envelope.shape[-1] - (n_fft // 2 if center else 0)
    signal, envelope = signal[..., start:stop], envelope[start:stop]
    if not _is_meta(envelope) and envelope.numel() and float(envelope.detach().abs().min()) < 1e-11:
        raise ValueError("istft: Abort istft because Nonzero Overlap Add (NOLA) condition failed (the squared "
                         "window summed over the frames is zero somewhere; see scipy.signal.check_NOLA).")
    return signal / envelope
