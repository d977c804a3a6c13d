"""paddle.distributed (collectives, launch and fleet arrive with the distributed issue)."""
from .parallel import DataParallel  # noqa: F401
