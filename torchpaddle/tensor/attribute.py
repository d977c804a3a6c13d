"""Dtype predicates: is_floating_point, is_integer, is_complex."""
import torch

from ..framework.tensor import Tensor

__all__ = ["is_floating_point", "is_integer", "is_complex"]
__methods__ = list(__all__)


def _check(x, api):
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")
    return x._t


def is_floating_point(x):
    return _check(x, "is_floating_point").is_floating_point()


def is_complex(x):
    return _check(x, "is_complex").is_complex()


def is_integer(x):
    t = _check(x, "is_integer")
    return not (t.is_floating_point() or t.is_complex() or t.dtype is torch.bool)
