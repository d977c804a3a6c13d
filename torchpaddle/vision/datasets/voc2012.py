"""Pascal VOC 2012 segmentation from the local VOCtrainval_11-May-2012.tar (read in place, never extracted)."""
import io
import tarfile

import numpy as np
from PIL import Image

from ...framework.dtype import get_default_dtype
from ...framework.tensor import PaddleAssertionError
from .. import image as _image
from ._common import Dataset, find_data_file

__all__ = []

VOC_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
VOC_MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
CACHE_DIR = "voc2012"
# NOTE: as in Paddle, 'train' reads the trainval list and 'test' the train list
MODE_FLAG_MAP = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """(image, segmentation label): PIL images (backend 'pil') or HWC / HW arrays of the default dtype ('cv2')."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        if not isinstance(mode, str) or mode.lower() not in MODE_FLAG_MAP:
            raise PaddleAssertionError(f"VOC2012: mode should be 'train', 'valid' or 'test', but got {mode!r}")
        if backend is None:
            backend = _image.get_image_backend()
        if backend not in ("pil", "cv2"):
            raise ValueError(f"VOC2012: expected backend to be one of ['pil', 'cv2'], but got {backend!r}")
        self.backend = backend
        self.flag = MODE_FLAG_MAP[mode.lower()]
        self.data_file = find_data_file(data_file, VOC_URL, VOC_MD5, CACHE_DIR, download, "VOC2012 data file")
        self.transform = transform
        self.data_tar = None
        self._load_anno()
        self.dtype = get_default_dtype()

    def _load_anno(self):
        self.data_tar = tarfile.open(self.data_file)
        self.name2mem = {member.name: member for member in self.data_tar.getmembers()}
        set_file = SET_FILE.format(self.flag)
        if set_file not in self.name2mem:
            raise ValueError(f"VOC2012: {self.data_file} has no {set_file}")
        names = [line.strip().decode("utf-8") for line in self.data_tar.extractfile(self.name2mem[set_file])]
        names = [name for name in names if name]
        self.data = [DATA_FILE.format(name) for name in names]
        self.labels = [LABEL_FILE.format(name) for name in names]

    def _read(self, name):
        if name not in self.name2mem:
            raise ValueError(f"VOC2012: {self.data_file} has no {name}")
        return Image.open(io.BytesIO(self.data_tar.extractfile(self.name2mem[name]).read()))

    def __getitem__(self, idx):
        data, label = self._read(self.data[idx]), self._read(self.labels[idx])
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        if getattr(self, "data_tar", None) is not None:
            self.data_tar.close()
