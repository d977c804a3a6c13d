"""Static mode's side of the op registry: a registered op called on Variables appends an Operator.

Output shapes and dtypes come from the op's own kernel run on meta tensors (no memory, no compute), with
every unknown dimension (-1) standing in as a large prime so that it can be told apart in the result.
Kernels that read values (bounds checks, data-dependent shapes) fall back to two CPU runs on zeros with
small sizes; a dimension that differs between the two is unknown.
"""
import numbers

import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework import mode as _mode
from ..framework.program import UNKNOWN_DIM as _UNKNOWN
from ..framework.program import Variable, default_main_program, default_startup_program
from ..framework.tensor import Tensor
from ..utils import unique_name

__all__ = ["static_append", "as_variable", "constant_variable", "infer_outputs"]

_UNKNOWN_2 = 10009   # a second prime for unknown dims
# the fillings of the fallback runs on CPU: one that passes value checks (no zero divisors, positive counts),
# zeros (valid indices), and distinct values, so that data-dependent sizes differ between runs
_FILLS = ("ones", "zeros", "distinct")


def _read_dims(shape, had_unknown):
    return [-1 if had_unknown and d >= _UNKNOWN and d % _UNKNOWN == 0 else int(d) for d in shape]


def _as_meta(var, unknown=_UNKNOWN):
    shape = [unknown if d < 0 else d for d in var.desc_shape]
    return torch.empty(shape, dtype=var.dtype.torch, device="meta")


def _as_filled(var, size, fill, position=0):
    shape = [size if d < 0 else d for d in var.desc_shape]
    dtype = var.dtype.torch
    if fill == "zeros":
        return torch.zeros(shape, dtype=dtype)
    if fill == "ones" or dtype is torch.bool:
        return torch.ones(shape, dtype=dtype)
    n = 1
    for d in shape:
        n *= d
    # offset by the input's position, so that two scalar inputs (start, stop) differ
    return ((torch.arange(n, dtype=torch.float64).reshape(shape) + 3 * position) % 7 + 1).to(dtype)


def infer_outputs(opdef, args, attrs):
    """Run the kernel on stand-ins of ``args`` (Variables, lists of them, None, scalars); returns the kernel's
    result structure with each tensor replaced by (shape with -1, paddle dtype)."""
    if opdef.infer_meta is not None:
        found = opdef.infer_meta(*args, **attrs)
        if found is not None:
            return found
    had_unknown = any(d < 0 for v in _vars_in(args) for d in v.desc_shape)
    kernel = opdef.kernel
    try:
        with torch.device("meta"), torch.no_grad():
            out = kernel(*_convert(args, lambda v: _as_meta(v)), **attrs)
            if not had_unknown:
                return _describe(out, lambda t: (list(t.shape), _dtype._FROM_TORCH[t.dtype]))
            # a second run with another prime: a dim that moves with it derives from an unknown one
            other = kernel(*_convert(args, lambda v: _as_meta(v, _UNKNOWN_2)), **attrs)
        merged = _merge(_describe(out, _desc_of), _describe(other, _desc_of), opdef.type)
        return _describe_descs(merged, lambda d: (d.shape, d.dtype))
    except _META_FAILURES as meta_error:
        first_error = meta_error
    # An unknown dim meeting a known one (broadcasting, a square matrix, a label of the batch's size) fails
    # with the large prime. Try sizes it may stand for: 1 (broadcasts with anything), then the inputs' known
    # dims. Result dims equal to the size that worked count as unknown.
    sizes = [None]
    if had_unknown:
        known = sorted({d for v in _vars_in(args) for d in v.desc_shape if d > 1})
        sizes = [1] + known[:6]
    results = []   # (size, description) of the runs that worked; two are enough to tell what moves with size
    for size in sizes:
        descs = []
        try:
            with torch.device("meta"), torch.no_grad():
                out = kernel(*_convert(args, lambda v: _as_meta(v, size)), **attrs)
            descs.append(_describe(out, _desc_of))
        except _META_FAILURES:
            # kernels that read values (bounds checks, data-dependent sizes) run on CPU with several fillings;
            # a dim that differs between them depends on the data
            for fill in _FILLS:
                try:
                    with torch.no_grad():
                        out = kernel(*_convert(args, lambda v, k: _as_filled(v, size or 2, fill, k)),
                                     **attrs)
                except Exception:  # noqa: BLE001 - another filling may pass the kernel's value checks
                    continue
                descs.append(_describe(out, _desc_of))
        if descs:
            merged = descs[0]
            for other in descs[1:]:
                merged = _merge(merged, other, opdef.type)
            results.append((size, merged))
            if size is None or len(results) == 2:
                break
    if not results:
        raise first_error  # its message names the real shapes
    size, merged = results[0]
    if len(results) == 2:
        merged = _merge(merged, results[1][1], opdef.type)
    elif size is not None:
        merged = _describe_descs(merged, lambda d: _Desc([-1 if x == size else x for x in d.shape], d.dtype))
    return _describe_descs(merged, lambda d: (d.shape, d.dtype))


_META_FAILURES = (NotImplementedError, RuntimeError, TypeError, ValueError, IndexError)


def _desc_of(t):
    return _Desc(list(t.shape), _dtype._FROM_TORCH[t.dtype])


class _Desc:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def _describe_descs(value, leaf):
    if isinstance(value, _Desc):
        return leaf(value)
    if value is None:
        return None
    return type(value)(_describe_descs(v, leaf) for v in value)


def _vars_in(args):
    for a in args:
        if isinstance(a, Variable):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (v for v in a if isinstance(v, Variable))


def _convert(args, make):
    """Stand-ins for the Variables in ``args`` (each input slot: a Variable, a list of them, or a value);
    ``make(var)``, or ``make(var, position)`` when it takes two arguments."""
    import inspect
    two = len(inspect.signature(make).parameters) == 2
    counter = iter(range(1 << 30))

    def one(v):
        return make(v, next(counter)) if two else make(v)
    out = []
    for arg in args:
        if isinstance(arg, Variable):
            out.append(one(arg))
        elif isinstance(arg, (list, tuple)):
            out.append([one(v) if isinstance(v, Variable) else v for v in arg])
        else:
            out.append(arg)
    return out


def _describe(out, leaf):
    if isinstance(out, torch.Tensor):
        return leaf(out)
    if out is None:
        return None
    if isinstance(out, list):
        return [_describe(o, leaf) for o in out]
    if isinstance(out, tuple):
        return tuple(_describe(o, leaf) for o in out)
    raise TypeError(f"kernel returned {type(out).__name__}, expected tensors")


def _merge(a, b, op_type=""):
    """Two runs' descriptions -> one; a dim that differs between them is unknown (-1)."""
    if a is None or b is None:
        return a
    if isinstance(a, _Desc):
        if len(a.shape) != len(b.shape):
            return _Desc([-1] * len(a.shape), a.dtype)
        return _Desc([x if x == y else -1 for x, y in zip(a.shape, b.shape)], a.dtype)
    if len(a) != len(b):
        raise ValueError(f"{op_type}: the number of outputs depends on a dimension that is unknown (-1) while the "
                         "program is built; give that dimension a fixed size")
    return type(a)(_merge(x, y, op_type) for x, y in zip(a, b))


# -- inputs that are not Variables ----------------------------------------------------------------------------
def _scalar_dtype(value, like=None):
    """The dtype a Python scalar takes beside a Variable of dtype ``like``: ``like`` itself when the scalar's
    kind fits in it (as torch treats scalars), else the scalar's own default."""
    if isinstance(value, bool):
        return like if like is not None and like.name == "bool" else _dtype.DTYPES["bool"]
    if isinstance(value, numbers.Integral):
        return like if like is not None and like.name != "bool" else _dtype.DTYPES["int64"]
    if isinstance(value, numbers.Real):
        if like is not None and (like.is_floating_point or like.name.startswith("complex")):
            return like
        return _dtype.default_float()
    if like is not None and like.name.startswith("complex"):
        return like
    return _dtype.DTYPES["complex128" if like is not None and like.name == "float64" else "complex64"]


def constant_variable(value, dtype=None, like=None):
    """A Variable holding ``value`` (scalar, ndarray or eager Tensor), written by fill_constant/assign_value."""
    from .. import ops
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.ndarray):
        d = _dtype.convert_dtype(dtype) if dtype is not None else _scalar_dtype(value, like)
        if isinstance(value, complex):
            return ops.assign_value(shape=[], dtype=d.proto, values=np.asarray(value, d.numpy))
        return ops.fill_constant(None, shape=[], value=float(value), dtype=d.proto)
    array = np.asarray(value)
    if dtype is None and array.dtype == np.float64:
        array = array.astype(_dtype.default_float().numpy)   # a Python list of floats is the default dtype
    d = _dtype.convert_dtype(dtype if dtype is not None else array.dtype)
    return ops.assign_value(shape=list(array.shape), dtype=d.proto, values=array.astype(d.numpy, copy=False))


# Set by paddle.jit while it traces a dygraph function: eager Tensor -> the Variable standing for it (a
# persistable variable bound to the tensor at run time), so parameters and buffers are not baked in as constants.
capture_tensor = None


def as_variable(value, op_type="", slot="", like=None):
    if isinstance(value, Variable):
        return value
    if capture_tensor is not None and isinstance(value, Tensor):
        return capture_tensor(value)
    if isinstance(value, (Tensor, np.ndarray, bool, numbers.Number)):
        return constant_variable(value, like=like if isinstance(value, (bool, numbers.Number)) else None)
    if isinstance(value, (list, tuple)):
        try:
            return constant_variable(np.asarray(value))
        except (TypeError, ValueError):
            pass
    raise TypeError(f"{op_type}: input {slot} must be a Variable, got {type(value).__name__}")


# -- the hook ---------------------------------------------------------------------------------------------------
def _out_name(op_name, i):
    return f"{op_name}.tmp_{i}"


def static_append(opdef, inputs, attrs):
    """Append ``opdef`` to the current block of the default main program; returns output Variables shaped like
    the eager entry point's result."""
    program = default_main_program()
    block = program.current_block()
    args, slots = [], {}
    like = next((v.dtype for v in _vars_in(inputs.values()) if isinstance(v, Variable)), None)
    for slot in opdef.inputs:
        value = inputs.get(slot.name)
        if value is None:
            args.append(None)
            continue
        if slot.is_list:
            if isinstance(value, Tensor) or not isinstance(value, (list, tuple)):
                raise TypeError(f"{opdef.type}: input {slot.name} must be a list or tuple of Variables, got "
                                f"{type(value).__name__}")
            vs = [as_variable(v, opdef.type, slot.name, like) for v in value]
        else:
            vs = as_variable(value, opdef.type, slot.name, like)
        args.append(vs)
        slots[slot.name] = vs
    kernel_attrs = {k: _attr_value(v) for k, v in attrs.items()}
    described = infer_outputs(opdef, args, kernel_attrs)
    op_name = unique_name.generate(opdef.type)
    counter = iter(range(1 << 30))
    stop = (not opdef.differentiable) or all(v.stop_gradient for v in _vars_in(args))

    def make(desc):
        if desc is None:
            return None
        shape, dt = desc
        return block.create_var(name=_out_name(op_name, next(counter)), shape=shape, dtype=dt,
                                stop_gradient=stop)

    if len(opdef.outputs) == 1:
        structured = [described]
    else:
        structured = list(described)
    out_slots, results = {}, []
    for slot, desc in zip(opdef.outputs, structured):
        if slot.is_list:
            vs = [make(d) for d in desc]
            out_slots[slot.name] = [v for v in vs if v is not None]
        else:
            vs = make(desc)
            if vs is not None:
                out_slots[slot.name] = [vs]
        results.append(vs)
    block.append_op(opdef.type, slots, out_slots, kernel_attrs)
    return results[0] if len(opdef.outputs) == 1 else tuple(results)


def _attr_value(value):
    if isinstance(value, Variable):
        raise TypeError("an attribute given as a static Variable is not supported here; pass a Python value")
    return value


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the global block initialized to ``value`` by a fill_constant in the startup program."""
    from ..framework.program import _role_guard  # noqa: F401
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"create_global_var: shape must be a list or tuple, got {type(shape).__name__}")
    for i, s in enumerate(shape):
        if not isinstance(s, int) or s < 0:
            raise ValueError(f"create_global_var: shape[{i}] must be a non-negative int, got {s!r}")
    d = _dtype.convert_dtype(dtype)
    name = name or unique_name.generate("global_var")
    main = default_main_program().global_block()
    var = main.create_var(name=name, shape=shape, dtype=d, persistable=persistable, stop_gradient=True)
    startup = default_startup_program().global_block()
    startup.create_var(name=name, shape=shape, dtype=d, persistable=persistable, stop_gradient=True)
    startup.append_op("fill_constant", {}, {"Out": [name]},
                      {"shape": list(shape), "value": float(value), "str_value": "", "dtype": d.proto,
                       "force_cpu": force_cpu, "place_type": -1})
    return var


def install():
    _mode.install_static_append(static_append)
