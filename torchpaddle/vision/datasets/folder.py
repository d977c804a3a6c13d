"""DatasetFolder (root/class_x/xxx.ext -> (sample, class index)) and ImageFolder (every image under root)."""
import os

from PIL import Image

from ...framework.dtype import get_default_dtype
from ...framework.tensor import PaddleAssertionError
from .. import image as _image
from ._common import Dataset

__all__ = []

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions):
    """Whether ``filename`` ends with one of ``extensions`` (case-insensitive)."""
    if not isinstance(extensions, (list, tuple)):
        raise PaddleAssertionError(f"extensions must be a list or tuple, got {type(extensions).__name__}")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def _validator(extensions, is_valid_file):
    # extensions take precedence over is_valid_file, as in Paddle
    if extensions is not None:
        return lambda path: has_valid_extension(path, extensions)
    if is_valid_file is None:
        raise ValueError("either extensions or is_valid_file must be given")
    return is_valid_file


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    is_valid = _validator(extensions, is_valid_file)
    samples = []
    dir = os.path.expanduser(dir)
    for target in sorted(class_to_idx.keys()):
        d = os.path.join(dir, target)
        if not os.path.isdir(d):
            continue
        for root, _, fnames in sorted(os.walk(d, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid(path):
                    samples.append((path, class_to_idx[target]))
    return samples


def _describe(extensions):
    return ",".join(extensions) if extensions is not None else "(chosen by is_valid_file)"


def _check_root(root, api):
    if not isinstance(root, (str, os.PathLike)):
        raise TypeError(f"{api}: root must be a path, got {type(root).__name__}")
    if not os.path.isdir(os.path.expanduser(root)):
        raise FileNotFoundError(f"{api}: root directory not found: {root}")


class DatasetFolder(Dataset):
    """Samples laid out as ``root/<class>/**/<file>``: (loader(path) after transform, class index), classes
    sorted by name.

    Differs from Paddle 3.3.1, which ignores ``is_valid_file`` (it always falls back to the image extensions):
    here ``is_valid_file`` given without ``extensions`` selects the files, as Paddle documents."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        _check_root(root, "DatasetFolder")
        self.root = root
        self.transform = transform
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        classes, class_to_idx = self._find_classes(self.root)
        samples = make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        if len(samples) == 0:
            raise RuntimeError(f"Found 0 directories in subfolders of: {self.root}\nSupported extensions are: "
                               + _describe(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]
        self.dtype = get_default_dtype()

    def _find_classes(self, dir):
        classes = sorted(d.name for d in os.scandir(os.path.expanduser(dir)) if d.is_dir())
        return classes, {name: i for i, name in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


def pil_loader(path):
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def cv2_loader(path):
    try:
        import cv2
    except ImportError as e:
        raise ImportError("cv2_loader: the 'cv2' image backend needs OpenCV (pip install "
                          "opencv-python-headless)") from e
    image = cv2.imread(path)
    if image is None:
        raise ValueError(f"cv2_loader: cannot read an image from {path}")
    return cv2.cvtColor(image, cv2.COLOR_BGR2RGB)


def default_loader(path):
    return cv2_loader(path) if _image.get_image_backend() == "cv2" else pil_loader(path)


class ImageFolder(Dataset):
    """Every image under ``root`` (recursively, sorted), without labels: items are ``[sample]``.
    ``is_valid_file`` works as in DatasetFolder."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        _check_root(root, "ImageFolder")
        self.root = root
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        is_valid = _validator(extensions, is_valid_file)
        samples = []
        for dirpath, _, fnames in sorted(os.walk(os.path.expanduser(root), followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(dirpath, fname)
                if is_valid(path):
                    samples.append(path)
        if len(samples) == 0:
            raise RuntimeError(f"Found 0 files in subfolders of: {self.root}\nSupported extensions are: "
                               + _describe(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
