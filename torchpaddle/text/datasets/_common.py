"""Locating a text dataset's local file: torchpaddle never downloads."""
import os

DATA_HOME = os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def local_file(data_file, name, module, filename, url):
    """data_file if given, else the file in Paddle's cache; a clear RuntimeError when it is not there."""
    path = data_file if data_file is not None else os.path.join(DATA_HOME, module, filename)
    if not os.path.exists(path):
        raise RuntimeError(f"{name}: data file {path} not found and torchpaddle does not download; fetch {url} "
                           f"and pass data_file=... (or put it at {os.path.join(DATA_HOME, module, filename)})")
    return path


class NotPorted:
    """A dataset whose local format torchpaddle does not parse yet: it says so instead of returning nothing."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"paddle.text.{type(self).__name__}: reading this dataset's files is not "
                                  f"implemented in torchpaddle yet")
