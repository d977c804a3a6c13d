"""fluid.data, fluid.one_hot, fluid.embedding: the Paddle 1.x input layers at the top of the namespace."""
from ..framework import dtype as _dtype
from ..framework.mode import in_dynamic_mode
from ..framework.program import default_main_program
from ..nn.functional.common import one_hot as _one_hot_2x
from ..static.input import _shape
from ..static.nn.common import embedding  # noqa: F401
from .framework import enter_static_mode

__all__ = ["data", "one_hot", "embedding"]


def declare_data(api, name, shape, dtype, lod_level, need_check_feed, stop_gradient=True):
    """A feed variable of the main program's global block (shared by fluid.data and fluid.layers.data)."""
    enter_static_mode()
    if in_dynamic_mode():
        raise RuntimeError(f"{api}: feed variables exist only in static mode, but dygraph mode was chosen "
                           "(call paddle.enable_static(), or leave the dygraph.guard block)")
    if not isinstance(name, str):
        raise TypeError(f"{api}: name must be a str, got {type(name).__name__}")
    if not isinstance(lod_level, int) or lod_level < 0:
        raise ValueError(f"{api}: lod_level must be a non-negative int, got {lod_level!r}")
    d = _dtype.convert_dtype(dtype)
    return default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=d, stop_gradient=stop_gradient, lod_level=lod_level, is_data=True,
        need_check_feed=need_check_feed)


def data(name, shape, dtype="float32", lod_level=0):
    """A feed variable; None or -1 in ``shape`` is a dimension known only when fed (no batch axis is added).
    Fed values are checked against the shape and dtype."""
    return declare_data("fluid.data", name, _shape(shape, "fluid.data"), dtype, lod_level, True)


def one_hot(input, depth, allow_out_of_range=False):
    """float32 one-hot rows along a new last axis (``one_hot_v2``); out-of-range ids raise unless
    ``allow_out_of_range`` (then their rows are zero)."""
    from .. import ops as _ops
    if not allow_out_of_range:
        return _one_hot_2x(input, depth)
    return _ops.one_hot_v2(input, depth=int(depth), dtype=5, allow_out_of_range=True)
