"""paddle.distributed.launch: ``python -m paddle.distributed.launch [options] train.py [args]``."""
from .main import launch, main  # noqa: F401
