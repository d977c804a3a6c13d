"""The shared base of the audio classification datasets: (file, label) pairs -> (waveform or feature, label)."""
import os

from ...io import Dataset
from ..backends.wave_backend import load
from ..features import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

# Paddle's dataset cache; torchpaddle never downloads into it
DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))

_FEATURES = {"raw": None, "melspectrogram": MelSpectrogram, "mfcc": MFCC,
             "logmelspectrogram": LogMelSpectrogram, "spectrogram": Spectrogram}


def require_local(path, name, url):
    if not os.path.exists(path):
        raise RuntimeError(f"{name}: the data is not at {path} and torchpaddle does not download; fetch {url} "
                           f"and unpack it under {DATA_HOME}")


class AudioClassificationDataset(Dataset):
    def __init__(self, files, labels, feat_type="raw", sample_rate=None, **kwargs):
        super().__init__()
        if feat_type not in _FEATURES:
            raise ValueError(f"Unknown feat_type: {feat_type}, it must be one in {list(_FEATURES)}")
        self.files, self.labels, self.feat_type = files, labels, feat_type
        self.sample_rate = sample_rate
        self.feat_config = kwargs

    def __getitem__(self, idx):
        waveform, self.sample_rate = load(self.files[idx])
        if waveform.ndim == 2:
            waveform = waveform[0] if waveform.shape[0] == 1 else waveform
        feature = _FEATURES[self.feat_type]
        if feature is None:
            return waveform, self.labels[idx]
        extractor = feature(**self.feat_config) if self.feat_type == "spectrogram" else \
            feature(sr=self.sample_rate, **self.feat_config)
        return extractor(waveform.unsqueeze(0)).squeeze(0), self.labels[idx]

    def __len__(self):
        return len(self.files)
