"""paddle._C_ops: the op-call functions with Paddle 3.3.1's positional signatures (``_C_ops.matmul(x, y,
transpose_x, transpose_y)``), mapped onto the op registry and the public functions.

Every argument Paddle's eager function takes is positional here in Paddle's order; trailing ones default
to Paddle's op defaults (Paddle itself requires them all). Ops whose extra outputs Paddle marks as
intermediate (layer_norm's mean/variance, dropout's mask) return the main output only, as Paddle's do.
Calls work in dygraph and in static mode (they build the same ops as the public functions). A name that is
not here raises AttributeError naming it.
"""
from . import _math, _nn  # noqa: F401  (each registers its functions)
from ._common import FUNCTIONS as _FUNCTIONS

globals().update(_FUNCTIONS)
__all__ = sorted(_FUNCTIONS)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError(f"module 'paddle._C_ops' has no op {name!r} (torchpaddle maps {len(__all__)} of Paddle's "
                         "op functions; call the public API instead)")


def __dir__():
    return list(__all__)
