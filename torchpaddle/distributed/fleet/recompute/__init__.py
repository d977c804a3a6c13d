"""paddle.distributed.fleet.recompute: activation recomputation."""
from .recompute import recompute, recompute_sequential, recompute_hybrid  # noqa: F401

__all__ = []
