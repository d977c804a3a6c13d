"""paddle.audio cases run on real PaddlePaddle 3.3.1 and on torchpaddle (test_audio.py compares them)."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

WINDOWS = ["hann", "hamming", "blackman", "bartlett", "triang", "bohman", "cosine", "nuttall", "tukey",
           ("kaiser", 8.0), ("gaussian", 1.5), ("general_gaussian", 1.5, 2.0), ("exponential", None, 2.0),
           ("taylor", 4, 30)]


def _wave(paddle, n=3000):
    rng = np.random.default_rng(7)
    return paddle.to_tensor(rng.uniform(-1, 1, [2, n]).astype("float32"))


def c_mel_scalars(paddle):
    F = paddle.audio.functional
    values = [F.hz_to_mel(f, htk) for f in (0.0, 440.0, 1000.0, 5000.0) for htk in (False, True)] + \
        [F.mel_to_hz(m, htk) for m in (0.0, 10.0, 15.0, 40.0) for htk in (False, True)]
    return [sorted({type(v).__name__ for v in values}), ("A", np.array(values))]


def c_mel_tensors(paddle):
    F = paddle.audio.functional
    f = paddle.to_tensor([0.0, 300.0, 1000.0, 8000.0])
    return [F.hz_to_mel(f), F.hz_to_mel(f, True), F.mel_to_hz(F.hz_to_mel(f)), F.mel_to_hz(f / 100, True)]


def c_frequencies(paddle):
    F = paddle.audio.functional
    return [F.mel_frequencies(10, 20.0, 8000.0), F.mel_frequencies(6, htk=True, dtype="float64"),
            F.fft_frequencies(16000, 32)]


def c_fbank(paddle):
    F = paddle.audio.functional
    return [F.compute_fbank_matrix(16000, 64, 12), F.compute_fbank_matrix(8000, 32, 8, 100.0, 3000.0, True, 2.0),
            F.compute_fbank_matrix(8000, 32, 8, norm=1.0, dtype="float64")]


def c_power_to_db(paddle):
    F = paddle.audio.functional
    x = paddle.to_tensor(np.geomspace(1e-12, 1e3, 12).astype("float32"))
    return [F.power_to_db(x), F.power_to_db(x, ref_value=2.0, top_db=None), F.power_to_db(x, amin=1e-5, top_db=10.0)]


def c_power_to_db_bad_amin(paddle):
    return paddle.audio.functional.power_to_db(paddle.ones([3]), amin=0.0)


def c_create_dct(paddle):
    F = paddle.audio.functional
    return [F.create_dct(5, 8), F.create_dct(4, 6, norm=None, dtype="float64")]


def c_windows(paddle):
    F = paddle.audio.functional
    return [F.get_window(w, n, fftbins) for w in WINDOWS for n in (1, 7, 8) for fftbins in (True, False)]


def c_window_unknown(paddle):
    return paddle.audio.functional.get_window("nope", 8)


def c_window_needs_params(paddle):
    return paddle.audio.functional.get_window("kaiser", 8)


def c_spectrogram(paddle):
    fe = paddle.audio.features
    x = _wave(paddle)
    return [fe.Spectrogram(n_fft=256, hop_length=128)(x), fe.Spectrogram(n_fft=128, win_length=100, power=2.0,
                                                                         window="hamming", center=False)(x)]


def c_melspectrogram(paddle):
    fe = paddle.audio.features
    layer = fe.MelSpectrogram(sr=16000, n_fft=256, hop_length=128, n_mels=20)
    return [layer(_wave(paddle)), sorted(layer.state_dict().keys())]


def c_logmel_mfcc(paddle):
    fe = paddle.audio.features
    x = _wave(paddle)
    return [fe.LogMelSpectrogram(sr=16000, n_fft=256, n_mels=20, top_db=60.0)(x),
            fe.MFCC(sr=16000, n_mfcc=10, n_fft=256, n_mels=20)(x)]


def c_backends(paddle):
    b = paddle.audio.backends
    return [b.list_available_backends(), b.get_current_backend()]


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
