"""Mel-scale conversions, filter banks, decibels and the DCT matrix of ``paddle.audio.functional``.
Tensor inputs go through Paddle tensor ops (so they keep gradients); Python numbers stay Python numbers."""
import math

from ... import tensor as T
from ...framework.tensor import Tensor
from ...nn.functional.norm import normalize

# Slaney's mel scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def hz_to_mel(freq, htk=False):
    """Hz -> mels (Slaney's scale, or HTK's ``2595 log10(1 + f/700)`` when htk)."""
    if isinstance(freq, Tensor):
        if htk:
            return 2595.0 * T.log10(1.0 + freq / 700.0)
        linear = freq / _F_SP
        log_part = _MIN_LOG_MEL + T.log(T.maximum(freq, T.full_like(freq, 1e-10)) / _MIN_LOG_HZ) / _LOGSTEP
        return T.where(freq >= _MIN_LOG_HZ, log_part, linear)
    if htk:
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ) / _LOGSTEP
    return freq / _F_SP


def mel_to_hz(mel, htk=False):
    """Mels -> Hz, the inverse of hz_to_mel."""
    if isinstance(mel, Tensor):
        if htk:
            return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
        linear = _F_SP * mel
        log_part = _MIN_LOG_HZ * T.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        return T.where(mel >= _MIN_LOG_MEL, log_part, linear)
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return _F_SP * mel


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """n_mels frequencies (Hz) evenly spaced on the mel scale from f_min to f_max."""
    mels = T.linspace(hz_to_mel(f_min, htk), hz_to_mel(f_max, htk), n_mels, dtype=dtype)
    return mel_to_hz(mels, htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The centre frequencies (Hz) of the 1 + n_fft // 2 bins of a one-sided FFT."""
    return T.linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney",
                         dtype="float32"):
    """Triangular mel filters over the FFT bins: [n_mels, 1 + n_fft // 2]."""
    if f_max is None:
        f_max = float(sr) / 2
    fftfreqs = fft_frequencies(sr, n_fft, dtype)
    mel_f = mel_frequencies(n_mels + 2, f_min, f_max, htk, dtype)
    fdiff = mel_f[1:] - mel_f[:-1]
    ramps = mel_f.unsqueeze(1) - fftfreqs.unsqueeze(0)
    lower = -ramps[:-2] / fdiff[:-1].unsqueeze(1)
    upper = ramps[2:] / fdiff[1:].unsqueeze(1)
    weights = T.maximum(T.zeros_like(lower), T.minimum(lower, upper))
    if norm == "slaney":
        # constant energy per filter: scale each triangle by 2 / its width in Hz
        enorm = 2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])
        weights = weights * enorm.unsqueeze(1)
    elif isinstance(norm, (int, float)) and not isinstance(norm, bool):
        weights = normalize(weights, p=norm, axis=-1)
    else:
        raise ValueError(f"compute_fbank_matrix: norm must be 'slaney' or a number, got {norm!r}")
    return weights


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """``10 log10(max(spect, amin) / ref_value)``, floored at ``max - top_db`` when top_db is given."""
    if amin <= 0:
        raise ValueError(f"power_to_db: amin must be strictly positive, got {amin}")
    if ref_value <= 0:
        raise ValueError(f"power_to_db: ref_value must be strictly positive, got {ref_value}")
    log_spec = 10.0 * T.log10(T.maximum(spect, T.full_like(spect, amin)))
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        if top_db < 0:
            raise ValueError(f"power_to_db: top_db must be non-negative, got {top_db}")
        log_spec = T.maximum(log_spec, T.full_like(log_spec, 1.0) * (T.max(log_spec) - top_db))
    return log_spec


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The DCT-II basis as a [n_mels, n_mfcc] matrix (orthonormal when norm='ortho')."""
    if norm not in ("ortho", None):
        raise ValueError(f"create_dct: norm must be 'ortho' or None, got {norm!r}")
    n = T.arange(n_mels, dtype="float64")
    k = T.arange(n_mfcc, dtype="float64").unsqueeze(1)
    dct = T.cos(math.pi / n_mels * (n + 0.5) * k)
    if norm is None:
        dct = dct * 2.0
    else:
        scale = T.full([n_mfcc, 1], math.sqrt(2.0 / n_mels), dtype="float64")
        scale[0] = math.sqrt(1.0 / n_mels)
        dct = dct * scale
    return T.cast(dct.t(), dtype)
