"""Oxford 102 Flowers from local files: the 102flowers.tgz images and the imagelabels.mat / setid.mat tables
(reading .mat files needs SciPy, as in Paddle)."""
import os
import tarfile

import numpy as np
from PIL import Image

from ...framework.dtype import get_default_dtype
from ...framework.tensor import PaddleAssertionError
from .. import image as _image
from ._common import Dataset, find_data_file

__all__ = []

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
DATA_MD5 = "52808999861908f626f3c1f4e79d11fa"
LABEL_MD5 = "e0620be6f572b9609742df49c70aed4d"
SETID_MD5 = "a5357ecc9cb78c4bef273ce3793fc85c"
# NOTE: Paddle's 'train' split is the dataset's larger 'tstid' set, and 'test' its 'trnid' set
MODE_FLAG_MAP = {"train": "tstid", "test": "trnid", "valid": "valid"}


class Flowers(Dataset):
    """(image, label): a PIL image (backend 'pil') or an HWC float ndarray ('cv2'); label an int64 array [1]."""

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train", transform=None,
                 download=True, backend=None):
        if not isinstance(mode, str) or mode.lower() not in MODE_FLAG_MAP:
            raise PaddleAssertionError(f"Flowers: mode should be 'train', 'valid' or 'test', but got {mode!r}")
        if backend is None:
            backend = _image.get_image_backend()
        if backend not in ("pil", "cv2"):
            raise ValueError(f"Flowers: expected backend to be one of ['pil', 'cv2'], but got {backend!r}")
        self.backend = backend
        flag = MODE_FLAG_MAP[mode.lower()]
        data_file = find_data_file(data_file or None, DATA_URL, DATA_MD5, "flowers", download, "Flowers data file")
        label_file = find_data_file(label_file or None, LABEL_URL, LABEL_MD5, "flowers", download,
                                    "Flowers label file")
        setid_file = find_data_file(setid_file or None, SETID_URL, SETID_MD5, "flowers", download,
                                    "Flowers setid file")
        try:
            import scipy.io as scio
        except ImportError as e:
            raise ImportError("Flowers: reading imagelabels.mat and setid.mat needs SciPy (pip install scipy)") from e
        self.transform = transform
        self.data_path = data_file.replace(".tgz", "/")
        if not os.path.exists(os.path.join(self.data_path, "jpg")):
            os.makedirs(self.data_path, exist_ok=True)
            with tarfile.open(data_file) as archive:
                # the 'data' filter refuses absolute paths, links out of the folder and device files
                archive.extractall(self.data_path, filter="data")
        self.labels = scio.loadmat(label_file)["labels"][0]
        self.indexes = scio.loadmat(setid_file)[flag][0]

    def __getitem__(self, idx):
        index = self.indexes[idx]
        label = np.array([self.labels[index - 1]])
        path = os.path.join(self.data_path, f"jpg/image_{index:05}.jpg")
        image = Image.open(path) if self.backend == "pil" else np.array(Image.open(path))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(get_default_dtype()), label.astype("int64")

    def __len__(self):
        return len(self.indexes)
