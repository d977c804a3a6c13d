"""MNIST and FashionMNIST from local IDX files (gzipped, as distributed, or plain)."""
import gzip

import numpy as np
from PIL import Image

from ...framework.dtype import get_default_dtype
from ...framework.tensor import PaddleAssertionError
from .. import image as _image
from ._common import Dataset, find_data_file

__all__ = []

_IMAGE_MAGIC, _LABEL_MAGIC = 2051, 2049


def _read_idx(path, magic, what):
    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as f:
            buf = f.read()
    except (OSError, EOFError) as e:
        raise ValueError(f"{what} {path}: unreadable ({e})") from None
    if len(buf) < 4 or int.from_bytes(buf[:4], "big") != magic:
        found = int.from_bytes(buf[:4], "big") if len(buf) >= 4 else None
        raise ValueError(f"{what} {path}: bad IDX magic number {found}, expected {magic}")
    ndim = 3 if magic == _IMAGE_MAGIC else 1
    header = 4 * (1 + ndim)
    if len(buf) < header:
        raise ValueError(f"{what} {path}: truncated IDX header ({len(buf)} bytes)")
    dims = np.frombuffer(buf, ">u4", count=ndim, offset=4).tolist()
    count = int(np.prod(dims))
    if len(buf) - header < count:
        raise ValueError(f"{what} {path}: truncated, header says {dims} but holds {len(buf) - header} bytes")
    return np.frombuffer(buf, np.uint8, count=count, offset=header).reshape(dims)


class MNIST(Dataset):
    """MNIST handwritten digits: (image, label) with image a 28x28 PIL 'L' image (backend 'pil') or a
    float ndarray (backend 'cv2'), label an int64 array of shape [1]."""
    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
    TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True,
                 backend=None):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise PaddleAssertionError(f"{type(self).__name__}: mode should be 'train' or 'test', but got {mode!r}")
        if backend is None:
            backend = _image.get_image_backend()
        if backend not in ("pil", "cv2"):
            raise ValueError(f"{type(self).__name__}: expected backend to be one of ['pil', 'cv2'], "
                             f"but got {backend!r}")
        self.backend = backend
        self.mode = mode.lower()
        train = self.mode == "train"
        name = type(self).__name__
        self.image_path = find_data_file(image_path, self.TRAIN_IMAGE_URL if train else self.TEST_IMAGE_URL,
                                         self.TRAIN_IMAGE_MD5 if train else self.TEST_IMAGE_MD5, self.NAME,
                                         download, f"{name} image file")
        self.label_path = find_data_file(label_path, self.TRAIN_LABEL_URL if train else self.TEST_LABEL_URL,
                                         self.TRAIN_LABEL_MD5 if train else self.TEST_LABEL_MD5, self.NAME,
                                         download, f"{name} label file")
        self.transform = transform
        self._parse_dataset()
        self.dtype = get_default_dtype()

    def _parse_dataset(self):
        self._images = _read_idx(self.image_path, _IMAGE_MAGIC, f"{type(self).__name__} image file")
        self._labels = _read_idx(self.label_path, _LABEL_MAGIC, f"{type(self).__name__} label file")
        if len(self._labels) > len(self._images):
            raise ValueError(f"{type(self).__name__}: {len(self._labels)} labels in {self.label_path} but only "
                             f"{len(self._images)} images in {self.image_path}")

    @property
    def images(self):
        """The images as flat float32 rows (Paddle's layout)."""
        return [row for row in self._images[:len(self._labels)].reshape(len(self._labels), -1).astype("float32")]

    @property
    def labels(self):
        return [np.array([label], dtype="int64") for label in self._labels]

    def __getitem__(self, idx):
        image = self._images[idx]
        label = np.array([self._labels[idx]], dtype="int64")
        if self.backend == "pil":
            image = Image.fromarray(image, mode="L")
        else:
            image = image.astype("float32")
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self._labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: MNIST's layout with clothing images."""
    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_IMAGE_MD5 = "bef4ecab320f06d8554ea6380940ec79"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TEST_LABEL_MD5 = "bb300cfdad3c16e7a12a480ee83cd310"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_IMAGE_MD5 = "8d4fb7e6c68d591d4c3dfef9ec88bf0d"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
    TRAIN_LABEL_MD5 = "25c81989df183df01b3e8a0aad5dffbe"
