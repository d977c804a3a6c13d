"""fluid.layers: io (``data`` with Paddle 1.x's ``append_batch_size``)."""
import builtins

from ..core import VarDesc
from ..input import declare_data

__all__ = ["data"]


def data(name, shape, append_batch_size=True, dtype="float32", lod_level=0, type=VarDesc.VarType.LOD_TENSOR,
         stop_gradient=True):
    """A feed variable; with ``append_batch_size`` a leading -1 batch axis is added unless ``shape`` already
    holds None or a negative dimension. Fed values are not checked against the shape (as in Paddle 1.x)."""
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"fluid.layers.data: shape must be a list or tuple, got {builtins.type(shape).__name__}")
    shape = list(shape)
    for i, d in enumerate(shape):
        if d is None:
            shape[i] = -1
            append_batch_size = False
        elif not isinstance(d, int):
            raise TypeError(f"fluid.layers.data: shape[{i}] must be an int or None, got {builtins.type(d).__name__}")
        elif d < 0:
            append_batch_size = False
    if append_batch_size:
        shape = [-1] + shape
    if type != VarDesc.VarType.LOD_TENSOR:
        raise NotImplementedError(f"fluid.layers.data: only type=VarType.LOD_TENSOR variables can be fed here, got "
                                  f"{type}")
    return declare_data("fluid.layers.data", name, shape, dtype, lod_level, False, stop_gradient)
