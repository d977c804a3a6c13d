"""paddle.audio vs real PaddlePaddle 3.3.1 (cases in audio_cases.py), plus WAV round trips, gradients and
offline dataset errors."""
import wave

import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.audio  # noqa: F401 - the lead wires paddle.audio into torchpaddle/__init__
import paddle_ref
from tests.audio import audio_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.audio.audio_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle),
    lambda o, t, where: compare(o, t, where, rtol=1e-4, atol=1e-4))


@pytest.mark.parametrize("name", [n for n in sorted(cases.CASES) if "bad" not in n and "window_" not in n])
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


def test_hand_worked_values():
    F = paddle.audio.functional
    assert F.hz_to_mel(500.0) == pytest.approx(7.5)
    assert F.mel_to_hz(F.hz_to_mel(4000.0, htk=True), htk=True) == pytest.approx(4000.0)
    np.testing.assert_allclose(F.get_window("hann", 4).numpy(), [0.0, 0.5, 1.0, 0.5])
    dct = F.create_dct(3, 5, dtype="float64").numpy()
    np.testing.assert_allclose(dct.T @ dct, np.eye(3), atol=1e-12)  # orthonormal columns


def test_power_to_db_gradient():
    x = paddle.to_tensor(np.array([0.5, 2.0, 8.0]), stop_gradient=False)
    paddle.audio.functional.power_to_db(x, top_db=None).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10.0 / (np.log(10.0) * np.array([0.5, 2.0, 8.0])), rtol=1e-10)


def test_wav_round_trip(tmp_path):
    path = str(tmp_path / "a.wav")
    data = np.linspace(-0.5, 0.5, 200, dtype="float32").reshape(2, 100)
    paddle.audio.save(path, paddle.to_tensor(data), 8000)
    info = paddle.audio.info(path)
    assert (info.sample_rate, info.num_samples, info.num_channels, info.bits_per_sample) == (8000, 100, 2, 16)
    with wave.open(path) as f:  # an independent reader sees the same samples
        raw = np.frombuffer(f.readframes(100), dtype="<i2").reshape(100, 2).T
    np.testing.assert_array_equal(raw, (data * 2 ** 15).astype("<i2"))
    back, sr = paddle.audio.load(path)
    assert sr == 8000 and back.shape == [2, 100] and back.dtype == paddle.float32
    np.testing.assert_allclose(back.numpy(), raw / 2 ** 15)
    part, _ = paddle.audio.load(path, frame_offset=10, num_frames=5, normalize=False, channels_first=False)
    np.testing.assert_array_equal(part.numpy(), raw.T[10:15])


def test_wav_errors(tmp_path):
    bad = tmp_path / "x.wav"
    bad.write_bytes(b"not a wav file at all")
    with pytest.raises(NotImplementedError):
        paddle.audio.load(str(bad))
    with pytest.raises(ValueError):
        paddle.audio.save(str(tmp_path / "y.wav"), paddle.ones([4]), 8000)
    with pytest.raises(NotImplementedError):
        paddle.audio.backends.set_backend("soundfile")


def test_datasets_offline(tmp_path, monkeypatch):
    from torchpaddle.audio.datasets import dataset
    monkeypatch.setattr(dataset, "DATA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match="does not download"):
        paddle.audio.datasets.ESC50()
    with pytest.raises(RuntimeError, match="does not download"):
        paddle.audio.datasets.TESS()


def test_tess_from_local_files(tmp_path, monkeypatch):
    from torchpaddle.audio.datasets import dataset
    monkeypatch.setattr(dataset, "DATA_HOME", str(tmp_path))
    root = tmp_path / "TESS_Toronto_emotional_speech_set" / "OAF"
    root.mkdir(parents=True)
    for i, emotion in enumerate(["angry", "sad"]):
        paddle.audio.save(str(root / f"OAF_w{i}_{emotion}.wav"), paddle.zeros([1, 600]), 16000)
    train = paddle.audio.datasets.TESS(mode="train", n_folds=2, split=1)
    dev = paddle.audio.datasets.TESS(mode="dev", n_folds=2, split=1, feat_type="mfcc", n_mfcc=8, n_fft=128)
    assert len(train) == len(dev) == 1
    wav, label = train[0]
    assert wav.shape == [600] and label in (0, 6)
    feat, _ = dev[0]
    assert feat.shape[0] == 8
