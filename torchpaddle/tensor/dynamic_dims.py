"""Sizes known only at run time while ``paddle.jit`` traces a function.

Paddle's dy2static turns ``x.shape`` into ``paddle.shape(x)`` when a dim is unknown (-1), so that
``x.reshape([x.shape[0], -1])`` or ``F.interpolate(x, size=y.shape[2:])`` follow the input's size when the
saved program runs. torchpaddle traces instead of rewriting code: a traced program's ``Variable.shape`` gives
each unknown dim as a ``DynamicDim``, an int equal to -1 (code that computes with it sees what static mode
always gave), which an op taking a size (reshape's ShapeTensor, interpolate's SizeTensor) turns into a
``shape`` + ``slice`` of the variable, as Paddle's saved programs compute it.
NOTE: arithmetic on a DynamicDim gives a plain int (-1 * 2 == -2), not a size computed at run time.
"""
import operator

from .. import ops
from ..framework import hooks as _hooks
from ..framework.dtype import DTYPES
from ..framework.program import Variable, default_main_program

__all__ = ["DynamicDim", "traced_shape", "size_tensors"]


class _ShapeOf:
    """One ``x.shape`` read: the ``shape`` op output that its DynamicDims slice, appended once per block, on first
    use."""

    def __init__(self, var):
        self.var = var
        self.made = {}

    def variable(self):
        block = default_main_program().current_block()
        found = self.made.get(id(block))
        if found is None:
            found = self.made[id(block)] = ops.shape(self.var)
        return found


class DynamicDim(int):
    """Dim ``axis`` of a traced Variable whose size is unknown (-1) until the program runs."""

    def __new__(cls, source, axis):
        self = int.__new__(cls, -1)
        self._source, self._axis = source, axis
        return self

    def __reduce__(self):   # a copy or pickle is the plain -1 of static mode
        return int, (-1,)

    def variable(self):
        """A 0-D int32 Variable holding the size when the program runs (appended to the current block)."""
        return ops.slice(self._source.variable(), axes=[0], starts=[self._axis], ends=[self._axis + 1],
                         infer_flags=[1], decrease_axis=[0])


def traced_shape(var):
    """``var``'s dims, with a DynamicDim for each unknown one."""
    source = _ShapeOf(var)
    return [DynamicDim(source, i) if d < 0 else d for i, d in enumerate(var.desc_shape)]


def size_tensors(values, api):
    """A size list holding Variables or DynamicDims -> (one 1-element int Variable per entry, the attr list with
    -1 at each tensor entry), as Paddle's static reshape / interpolate pass it; None when all entries are ints."""
    if not any(isinstance(v, (DynamicDim, Variable)) for v in values):
        return None
    tensors, attr = [], []
    for v in values:
        if isinstance(v, DynamicDim):
            tensors.append(v.variable())
            attr.append(-1)
        elif isinstance(v, Variable):
            if v.size not in (1, -1) or v.dtype.name not in ("int32", "int64"):
                raise TypeError(f"{api}: a size given as a Tensor must hold one int32/int64 value, got "
                                f"{v.dtype.name} of shape {list(v.shape)}")
            tensors.append(v)
            attr.append(-1)
        else:
            v = operator.index(v)   # an int, or an eager Tensor's value (baked in, as without tensors in the list)
            # NOTE: Paddle writes each int of a mixed list as a [1] int32 fill_constant kept on the CPU
            tensors.append(ops.fill_constant(None, shape=[1], value=float(v), dtype=DTYPES["int32"].proto,
                                             force_cpu=True))
            attr.append(v)
    return tensors, attr


_hooks.provide("traced_shape", traced_shape)   # Variable.shape while paddle.jit traces
