"""read_file and decode_jpeg (paddle.vision.ops): file bytes as a uint8 tensor, and JPEG decoding with Pillow.

Paddle 3.3.1 decodes JPEG on GPU only (its CPU kernel raises); here decoding runs on the CPU.
"""
import io

import numpy as np
import torch

from ...framework.dtype import DTYPES, from_torch_dtype
from ..registry import op


class FileReadError(FileNotFoundError, RuntimeError):
    """read_file on a missing file. Paddle raises RuntimeError (PreconditionNotMet); Python says
    FileNotFoundError; this is both."""


@op("read_file", inputs=[], outputs=["Out"], attrs={"filename": ""}, differentiable=False)
def read_file(*, filename):
    """The bytes of ``filename`` as a 1-D uint8 tensor."""
    if not isinstance(filename, str) or not filename:
        raise TypeError(f"read_file: filename must be a non-empty str, got {filename!r}")
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise FileReadError(f"read_file: cannot open {filename!r}: no such file") from None
    except IsADirectoryError:
        raise FileReadError(f"read_file: {filename!r} is a directory, not a file") from None
    return torch.from_numpy(np.frombuffer(data, dtype=np.uint8).copy())


@read_file.infer
def _read_file_infer(*, filename):
    return [-1], DTYPES["uint8"]


_MODES = {"unchanged": None, "gray": "L", "rgb": "RGB"}


@op("decode_jpeg", inputs=["X"], outputs=["Out"], attrs={"mode": "unchanged"}, differentiable=False)
def decode_jpeg(X, *, mode):
    """Decode JPEG bytes into a [C, H, W] uint8 image: 'unchanged' keeps the file's channels (1 or 3), 'gray'
    gives 1 and 'rgb' 3."""
    from PIL import Image, UnidentifiedImageError
    if mode not in _MODES:
        raise ValueError(f"decode_jpeg: mode must be one of {', '.join(_MODES)}, got {mode!r}")
    if X.dtype is not torch.uint8 or X.dim() != 1:
        raise ValueError(f"decode_jpeg: X must be a 1-D uint8 tensor of file bytes, got "
                         f"{from_torch_dtype(X.dtype).name} of shape {list(X.shape)}")
    try:
        image = Image.open(io.BytesIO(X.cpu().numpy().tobytes()))
        image.load()
    except (UnidentifiedImageError, OSError) as e:
        raise ValueError(f"decode_jpeg: X does not hold a decodable JPEG image ({e})") from None
    target = _MODES[mode]
    if target is None:
        target = "L" if image.mode in ("L", "1", "I", "I;16", "F") else "RGB"
    array = np.array(image.convert(target))
    if array.ndim == 2:
        array = array[None]
    else:
        array = array.transpose(2, 0, 1)
    return torch.from_numpy(np.ascontiguousarray(array)).to(X.device)


@decode_jpeg.infer
def _decode_jpeg_infer(X, *, mode):
    channels = {"gray": 1, "rgb": 3}.get(mode, -1)
    return [channels, -1, -1], DTYPES["uint8"]
