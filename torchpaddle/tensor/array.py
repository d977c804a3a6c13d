"""Tensor arrays (``paddle.tensor.create_array`` / ``array_write`` / ``array_read`` / ``array_length`` and
``tensor_array_to_tensor``): a Python list of Tensors in dygraph mode, as in Paddle; in static mode a Variable of
type LOD_TENSOR_ARRAY written and read by the ops of ops/defs/array.py.
NOTE: these are public in ``paddle.tensor`` only (not ``paddle.*``), as in Paddle, so they are not in __all__."""
from .. import ops as _ops
from ..framework import dtype as _dtype
from ..framework.mode import STATE as _MODE
from ..framework.program import Variable, default_main_program
from ..framework.tensor import Tensor
from ..utils import unique_name

__all__ = []

ARRAY_TYPE = "LOD_TENSOR_ARRAY"


def is_array(value):
    """Whether ``value`` is a static LoDTensorArray Variable."""
    return isinstance(value, Variable) and str(value.var_type) in ("LOD_TENSOR_ARRAY", "DENSE_TENSOR_ARRAY")


def _check_array(array, api):
    if _MODE.static:
        if not is_array(array):
            raise TypeError(f"{api}: array must be a LoDTensorArray Variable (create_array), got "
                            f"{type(array).__name__}")
    elif not isinstance(array, list):
        raise TypeError(f"{api}: array must be a list of Tensors in dygraph mode, got {type(array).__name__}")


def _static_index(i, api):
    if isinstance(i, Variable):
        if i.dtype.name not in ("int32", "int64"):
            raise TypeError(f"{api}: i must be an int32 or int64 Tensor, got {i.dtype.name}")
        return i
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"{api}: i must be an integer Tensor of shape [1], got {type(i).__name__}")
    return _ops.fill_constant(None, shape=[1], value=float(i), dtype=3)


def _eager_index(i, api):
    if isinstance(i, Tensor):
        if i.dtype.name not in ("int32", "int64", "uint8", "int16", "int8"):
            raise TypeError(f"{api}: i must be an integer Tensor, got {i.dtype.name}")
        if i.size != 1:
            raise ValueError(f"{api}: the shape of index i must be [1], got {list(i.shape)}")
        i = int(i.item())
    elif isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"{api}: i must be an integer Tensor of shape [1], got {type(i).__name__}")
    if i < 0:
        raise IndexError(f"{api}: i is {i}; an array index must not be negative")
    return i


def create_array(dtype, initialized_list=None):
    """A new tensor array of ``dtype``, holding ``initialized_list``'s Tensors when given."""
    dtype = _dtype.convert_dtype(dtype)
    items = list(initialized_list) if initialized_list is not None else []
    for v in items:
        if not isinstance(v, Tensor):
            raise TypeError(f"create_array: initialized_list must hold Tensors, got {type(v).__name__}")
    if not _MODE.static:
        return items
    block = default_main_program().current_block()
    shape = list(items[0].shape) if items else []
    array = block.create_var(name=unique_name.generate("array") + ".out", type=ARRAY_TYPE, dtype=dtype,
                             shape=shape, stop_gradient=True)
    array._array_unwritten = not items   # an empty array takes its first Tensor's dtype and shape
    for k, v in enumerate(items):
        array_write(v, k, array)
    return array


def array_write(x, i, array=None):
    """array[i] = x (growing the array as needed); returns the array (a new one when ``array`` is None)."""
    api = "array_write"
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")
    if not _MODE.static:
        index = _eager_index(i, api)
        if array is None:
            array = []
        _check_array(array, api)
        if index < len(array):
            array[index] = x
        else:
            array.extend([None] * (index - len(array)))
            array.append(x)
        return array
    index = _static_index(i, api)
    if array is None:
        array = create_array(x.dtype)
    _check_array(array, api)
    if getattr(array, "_array_unwritten", False):
        array._dtype, array._array_unwritten = x.dtype, False
    if array.dtype != x.dtype:
        raise TypeError(f"{api}: x is {x.dtype.name}, but the array holds {array.dtype.name}")
    array.desc_shape = tuple(x.shape)
    if not x.stop_gradient:
        array.stop_gradient = False
    block = default_main_program().current_block()
    block.append_op("write_to_array", {"X": [x.name], "I": [index.name]}, {"Out": [array.name]})
    return array


def array_read(array, i):
    """array[i]."""
    api = "array_read"
    _check_array(array, api)
    if not _MODE.static:
        index = _eager_index(i, api)
        if index >= len(array):
            raise IndexError(f"{api}: i is {index}, but the array holds {len(array)} Tensors")
        return array[index]
    index = _static_index(i, api)
    block = default_main_program().current_block()
    out = block.create_var(name=unique_name.generate("array_read") + ".tmp_0", shape=array.desc_shape,
                           dtype=array.dtype, stop_gradient=array.stop_gradient)
    block.append_op("read_from_array", {"X": [array.name], "I": [index.name]}, {"Out": [out.name]})
    return out


def array_length(array):
    """The number of Tensors in the array (an int64 Tensor of shape [1])."""
    api = "array_length"
    _check_array(array, api)
    if not _MODE.static:
        from .creation import full
        return full([1], len(array), "int64")
    block = default_main_program().current_block()
    out = block.create_var(name=unique_name.generate("array_length") + ".tmp_0", shape=[1], dtype="int64",
                           stop_gradient=True)
    block.append_op("lod_array_length", {"X": [array.name]}, {"Out": [out.name]})
    return out


def tensor_array_to_tensor(input, axis=1, use_stack=False, name=None):
    """The array's Tensors concatenated (or stacked) along ``axis``, and each one's size along it."""
    api = "tensor_array_to_tensor"
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{api}: axis must be an int, got {type(axis).__name__}")
    if not _MODE.static:
        if not isinstance(input, (list, tuple)) or not all(isinstance(t, Tensor) for t in input):
            raise TypeError(f"{api}: input must be a list of Tensors in dygraph mode, got {type(input).__name__}")
        from .creation import to_tensor
        from .manipulation import concat, stack
        if not input:
            raise ValueError(f"{api}: input must not be empty")
        out = stack(list(input), axis=axis) if use_stack else concat(list(input), axis=axis)
        sizes = [1 if use_stack else t.shape[axis] for t in input]
        return out, to_tensor(sizes, dtype="int64")
    _check_array(input, api)
    block = default_main_program().current_block()
    prefix = name or unique_name.generate("tensor_array_to_tensor")
    shape = list(input.desc_shape)
    if use_stack:
        shape.insert(axis if axis >= 0 else axis + len(shape) + 1, -1)
    elif shape:
        shape[axis] = -1
    out = block.create_var(name=prefix + ".tmp_0", shape=shape, dtype=input.dtype,
                           stop_gradient=input.stop_gradient)
    index = block.create_var(name=prefix + ".tmp_1", shape=[-1], dtype="int32", stop_gradient=True)
    block.append_op("tensor_array_to_tensor", {"X": [input.name]}, {"Out": [out.name], "OutIndex": [index.name]},
                    {"axis": axis, "use_stack": bool(use_stack)})
    return out, index
