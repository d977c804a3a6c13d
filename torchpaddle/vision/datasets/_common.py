"""What the dataset classes share: the Dataset base, locating files (no downloading), safe unpickling."""
import hashlib
import os
import pickle

import numpy as np

from ...framework.io import UnsafePickleError, _SafeUnpickler, _safe_dtype
from ...framework.tensor import PaddleAssertionError

try:
    from ...io import Dataset  # noqa: F401
except ModuleNotFoundError as e:  # torchpaddle.io not built yet: the datasets need only __getitem__/__len__
    if e.name != "torchpaddle.io":
        raise

    class Dataset:
        """Map-style dataset: subclasses define __getitem__ and __len__."""

        def __getitem__(self, idx):
            raise NotImplementedError(f"'{type(self).__name__}' does not implement __getitem__")

        def __len__(self):
            raise NotImplementedError(f"'{type(self).__name__}' does not implement __len__")

__all__ = []

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def _md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_data_file(path, url, md5, module, download, what):
    """The local file to read: ``path`` if given, else Paddle's cache (~/.cache/paddle/dataset/<module>/).

    torchpaddle never downloads: a file missing from the cache raises RuntimeError saying where to put it."""
    if path is not None:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what} not found: {path}")
        return path
    if not download:
        raise PaddleAssertionError(f"{what} is not set and downloading automatically is disabled (download=False)")
    cached = os.path.join(DATA_HOME, module, url.split("/")[-1])
    if os.path.isfile(cached):
        if md5 is not None and _md5(cached) != md5:
            raise RuntimeError(f"{what}: the cached file {cached} is corrupt (md5 differs from {md5}); delete it "
                               f"and fetch {url} again")
        return cached
    raise RuntimeError(f"{what}: torchpaddle does not download datasets. Fetch {url} yourself and either put it "
                       f"at {cached} or pass its path explicitly")


def _lenient_dtype(spec, align=False, copy=False):
    # CIFAR's batches were pickled by Python 2 NumPy: dtype('u1', 0, 1), read back with encoding='bytes'
    if isinstance(spec, bytes):
        spec = spec.decode("latin1")
    return _safe_dtype(spec, bool(align), bool(copy))


class _DatasetUnpickler(_SafeUnpickler):
    """The allow-list unpickler (NumPy arrays, builtin containers), also taking Python 2 NumPy pickles."""

    def find_class(self, module, name):
        if (module, name) == ("numpy", "dtype"):
            return _lenient_dtype
        return super().find_class(module, name)

    def load_build(self):
        if len(self.stack) >= 2 and isinstance(self.stack[-2], np.dtype) and isinstance(self.stack[-1], tuple):
            self.stack[-1] = tuple(s.decode("latin1") if isinstance(s, bytes) and len(s) == 1 else s
                                   for s in self.stack[-1])
        _SafeUnpickler.load_build(self)

    dispatch = dict(_SafeUnpickler.dispatch)
    dispatch[pickle.BUILD[0]] = load_build


def safe_pickle_load(fileobj, what):
    try:
        return _DatasetUnpickler(fileobj, encoding="bytes").load()
    except UnsafePickleError as e:
        raise ValueError(f"{what}: refused to unpickle: {e}") from None
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, IndexError, KeyError) as e:
        raise ValueError(f"{what}: corrupt pickle data ({type(e).__name__}: {e})") from None
