"""UCI Boston housing: 13 features (centred, scaled by their range) and the price, 80/20 train/test split."""
import numpy as np

from ...io import Dataset
from ._common import local_file

_URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"


class UCIHousing(Dataset):
    def __init__(self, data_file=None, mode="train", download=True):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise ValueError(f"UCIHousing: mode must be 'train' or 'test', got {mode!r}")
        self.mode = mode.lower()
        self.data_file = local_file(data_file, "UCIHousing", "uci_housing", "housing.data", _URL)
        data = np.fromfile(self.data_file, sep=" ").reshape(-1, 14)
        features = data[:, :13]
        data[:, :13] = (features - features.mean(axis=0)) / (features.max(axis=0) - features.min(axis=0))
        offset = int(data.shape[0] * 0.8)
        self.data = data[:offset] if self.mode == "train" else data[offset:]
        self.dtype = "float32"

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)
