"""PCM16 WAV reading and writing through the standard library ``wave`` module (Paddle's built-in backend)."""
import wave
from collections import namedtuple

import numpy as np

from ...tensor.creation import to_tensor

AudioInfo = namedtuple("AudioInfo", ["sample_rate", "num_samples", "num_channels", "bits_per_sample",
                                     "encoding"])


def _open(filepath, what):
    file_obj = filepath if hasattr(filepath, "read") else open(filepath, "rb")
    try:
        return file_obj, wave.open(file_obj)
    except (wave.Error, EOFError) as exc:
        file_obj.close()
        raise NotImplementedError(f"audio.{what}: the wave backend reads only PCM16 WAV files; "
                                  f"{filepath!r} is not one ({exc})") from exc


def info(filepath):
    """Sample rate, frame count, channels, bits per sample and encoding of a WAV file."""
    file_obj, f = _open(filepath, "info")
    try:
        return AudioInfo(f.getframerate(), f.getnframes(), f.getnchannels(), f.getsampwidth() * 8, "PCM_S")
    finally:
        file_obj.close()


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """(waveform, sample_rate); waveform is float32, scaled to [-1, 1) when normalize, [channels, time] when
    channels_first. As in Paddle, frame_offset applies only together with num_frames != -1."""
    file_obj, f = _open(filepath, "load")
    try:
        if f.getsampwidth() != 2:
            raise NotImplementedError(f"audio.load: the wave backend reads only 16-bit PCM, got "
                                      f"{f.getsampwidth() * 8}-bit samples")
        channels, sample_rate, frames = f.getnchannels(), f.getframerate(), f.getnframes()
        data = np.frombuffer(f.readframes(frames), dtype="<i2").astype(np.float32)
    finally:
        file_obj.close()
    if normalize:
        data = data / np.float32(2 ** 15)
    waveform = data.reshape(frames, channels)
    if num_frames != -1:
        waveform = waveform[frame_offset:frame_offset + num_frames, :]
    if channels_first:
        waveform = waveform.T
    return to_tensor(np.ascontiguousarray(waveform)), sample_rate


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Write a 2-D waveform as 16-bit PCM WAV; float32 samples in [-1, 1) are scaled to int16."""
    if src.ndim != 2:
        raise ValueError(f"audio.save: src must be a 2-D tensor, got shape {list(src.shape)}")
    if bits_per_sample not in (None, 16):
        raise ValueError(f"audio.save: bits_per_sample must be 16 (the wave backend writes PCM16), "
                         f"got {bits_per_sample}")
    data = np.asarray(src.numpy())
    if channels_first:
        data = data.T
    if data.dtype == np.float32:
        data = data * (2 ** 15)
    data = np.ascontiguousarray(data.astype("<i2"))
    with wave.open(filepath, "w") as f:
        f.setnchannels(data.shape[1])
        f.setsampwidth(2)
        f.setframerate(sample_rate)
        f.writeframes(data.tobytes())
