"""Cifar10 and Cifar100 from the local "python version" tar.gz archives."""
import tarfile

import numpy as np
from PIL import Image

from ...framework.dtype import get_default_dtype
from ...framework.tensor import PaddleAssertionError
from .. import image as _image
from ._common import Dataset, find_data_file, safe_pickle_load

__all__ = []

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR10_MD5 = "c58f30108f718f92721af3b95e74349a"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"
CIFAR100_MD5 = "eb9058c3a382ffc7106e4002c42a8d85"
MODE_FLAG_MAP = {"train10": "data_batch", "test10": "test_batch", "train100": "train", "test100": "test"}


class Cifar10(Dataset):
    """CIFAR-10: (image, label) with image a 32x32 RGB PIL image (backend 'pil') or an HWC float ndarray
    (backend 'cv2'), label an int64 0-d array."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise PaddleAssertionError(f"{type(self).__name__}: mode should be 'train' or 'test', but got {mode!r}")
        self.mode = mode.lower()
        if backend is None:
            backend = _image.get_image_backend()
        if backend not in ("pil", "cv2"):
            raise ValueError(f"{type(self).__name__}: expected backend to be one of ['pil', 'cv2'], "
                             f"but got {backend!r}")
        self.backend = backend
        self._init_url_md5_flag()
        self.data_file = find_data_file(data_file, self.data_url, self.data_md5, "cifar", download,
                                        f"{type(self).__name__} data file")
        self.transform = transform
        self._load_data()
        self.dtype = get_default_dtype()

    def _init_url_md5_flag(self):
        self.data_url = CIFAR10_URL
        self.data_md5 = CIFAR10_MD5
        self.flag = MODE_FLAG_MAP[self.mode + "10"]

    def _load_data(self):
        self.data = []
        what = f"{type(self).__name__} data file {self.data_file}"
        try:
            archive = tarfile.open(self.data_file, mode="r")
        except tarfile.TarError as e:
            raise ValueError(f"{what}: not a readable tar archive ({e})") from None
        with archive:
            names = sorted(m.name for m in archive if self.flag in m.name and m.isfile())
            for name in names:
                batch = safe_pickle_load(archive.extractfile(name), f"{what} member {name}")
                if not isinstance(batch, dict) or b"data" not in batch:
                    raise ValueError(f"{what} member {name}: not a CIFAR batch (no b'data' entry)")
                data = np.asarray(batch[b"data"])
                labels = batch.get(b"labels", batch.get(b"fine_labels", None))
                if labels is None:
                    raise ValueError(f"{what} member {name}: no b'labels' or b'fine_labels' entry")
                if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(labels) != len(data):
                    raise ValueError(f"{what} member {name}: data of shape {list(data.shape)} and "
                                     f"{len(labels)} labels do not form [N, 3072] images with N labels")
                self.data.extend(zip(data, labels))

    def __getitem__(self, idx):
        image, label = self.data[idx]
        image = np.reshape(image, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == "pil":
            image = Image.fromarray(image.astype("uint8"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, np.array(label).astype("int64")
        return image.astype(self.dtype), np.array(label).astype("int64")

    def __len__(self):
        return len(self.data)


class Cifar100(Cifar10):
    """CIFAR-100 with its 100 fine labels."""

    def _init_url_md5_flag(self):
        self.data_url = CIFAR100_URL
        self.data_md5 = CIFAR100_MD5
        self.flag = MODE_FLAG_MAP[self.mode + "100"]
