"""paddle.sparse: COO/CSR tensors on torch.sparse and the functions Paddle defines on them."""
import warnings as _warnings

import torch as _torch

from . import creation as _creation
from .creation import sparse_coo_tensor, sparse_csr_tensor  # noqa: F401
from .math import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .math import pow, sum  # noqa: F401,A004
from . import nn  # noqa: F401

_creation.attach()

# Invariants are checked where tensors are built from user data (creation.py); the internal constructors skip
# them, which is torch's default too. Saying so explicitly silences torch's per-call warning about it, as does
# the filter for its note that CSR support is in beta: a Paddle script should not print torch's notes.
if not _torch.sparse.check_sparse_tensor_invariants.is_enabled():
    _torch.sparse.check_sparse_tensor_invariants.disable()
_warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
