"""paddle.sparse.nn: layers over COO/CSR tensors."""
from . import functional  # noqa: F401
from .layers import *  # noqa: F401,F403
