"""paddle.sysconfig: where the C++ headers and libraries to build extensions against live. torchpaddle has no
Paddle C++ library; these are torch's (what C++ code working with torchpaddle's tensors compiles against)."""
import os

import torch

__all__ = ["get_include", "get_lib"]


def get_include():
    """The directory of the C++ headers (torch's include folder)."""
    return os.path.join(os.path.dirname(torch.__file__), "include")


def get_lib():
    """The directory of the shared libraries (torch's lib folder)."""
    return os.path.join(os.path.dirname(torch.__file__), "lib")
