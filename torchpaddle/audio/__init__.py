"""``paddle.audio``: spectral features, WAV input/output and the ESC-50/TESS datasets."""
from . import backends, datasets, features, functional
from .backends.wave_backend import info, load, save

__all__ = ["functional", "features", "datasets", "backends", "load", "info", "save"]
