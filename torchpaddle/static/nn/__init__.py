"""paddle.static.nn: layers that append to the current Program with their own parameters."""
from .common import fc  # noqa: F401

__all__ = ["fc"]
