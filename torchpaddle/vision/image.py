"""The image backend used by the datasets' default loaders: 'pil' (default), 'cv2' or 'tensor'."""
from PIL import Image

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

_BACKENDS = ("pil", "cv2", "tensor")
_image_backend = "pil"


def _check_backend(backend, api):
    if backend not in _BACKENDS:
        raise ValueError(f"{api}: expected backend to be one of {list(_BACKENDS)}, but got {backend!r}")


def set_image_backend(backend):
    global _image_backend
    _check_backend(backend, "set_image_backend")
    _image_backend = backend


def get_image_backend():
    return _image_backend


def image_load(path, backend=None):
    """Load the image at ``path``: a PIL image ('pil'), a BGR ndarray ('cv2', needs OpenCV); None for 'tensor',
    as in Paddle."""
    if backend is None:
        backend = _image_backend
    _check_backend(backend, "image_load")
    if backend == "pil":
        return Image.open(path)
    if backend == "cv2":
        try:
            import cv2
        except ImportError as e:
            raise ImportError("image_load: backend='cv2' needs OpenCV (pip install opencv-python-headless)") from e
        return cv2.imread(path)
    return None
