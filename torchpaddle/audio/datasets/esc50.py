"""ESC-50 (2000 five-second environmental recordings, 50 classes, 5 folds) read from Paddle's local cache."""
import csv
import os

from . import dataset as _base

_URL = "https://paddleaudio.bj.bcebos.com/datasets/ESC-50-master.zip"


class ESC50(_base.AudioClassificationDataset):
    """mode='train' takes every fold but ``split``, any other mode only fold ``split``."""
    archive = {"url": _URL, "md5": "7771e4b9d86d0945acce719c7a59305a"}
    meta = os.path.join("ESC-50-master", "meta", "esc50.csv")
    audio_path = os.path.join("ESC-50-master", "audio")

    def __init__(self, mode="train", split=1, feat_type="raw", archive=None, **kwargs):
        if split not in range(1, 6):
            raise ValueError(f"ESC50: split must be an int in 1..5, got {split!r}")
        if archive is not None:
            self.archive = archive
        home = _base.DATA_HOME
        _base.require_local(os.path.join(home, self.meta), "ESC50", self.archive["url"])
        files, labels = [], []
        with open(os.path.join(home, self.meta), newline="") as f:
            for row in csv.DictReader(f):
                if (int(row["fold"]) == split) != (mode == "train"):
                    files.append(os.path.join(home, self.audio_path, row["filename"]))
                    labels.append(int(row["target"]))
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)
