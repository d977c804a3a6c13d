"""TESS (Toronto emotional speech set, 7 emotions) read from Paddle's local cache; folds by file order."""
import os

from . import dataset as _base


class TESS(_base.AudioClassificationDataset):
    """Files are numbered in walk order; file i is in fold i % n_folds + 1."""
    archive = {"url": "https://bj.bcebos.com/paddleaudio/datasets/TESS_Toronto_emotional_speech_set.zip",
               "md5": "1465311b24d1de704c4c63e4ccc470c7"}
    label_list = ["angry", "disgust", "fear", "happy", "neutral", "ps", "sad"]
    audio_path = "TESS_Toronto_emotional_speech_set"

    def __init__(self, mode="train", n_folds=5, split=1, feat_type="raw", archive=None, **kwargs):
        if not isinstance(n_folds, int) or n_folds < 1:
            raise ValueError(f"TESS: n_folds must be an int >= 1, got {n_folds!r}")
        if split not in range(1, n_folds + 1):
            raise ValueError(f"TESS: split must be an int in 1..{n_folds}, got {split!r}")
        if archive is not None:
            self.archive = archive
        root = os.path.join(_base.DATA_HOME, self.audio_path)
        _base.require_local(root, "TESS", self.archive["url"])
        wavs = [os.path.join(d, name) for d, _, names in os.walk(root) for name in names if name.endswith(".wav")]
        files, labels = [], []
        for idx, path in enumerate(wavs):
            emotion = os.path.basename(path)[:-4].split("_")[-1]
            if ((idx % n_folds + 1) == split) != (mode == "train"):
                files.append(path)
                labels.append(self.label_list.index(emotion))
        super().__init__(files=files, labels=labels, feat_type=feat_type, **kwargs)
