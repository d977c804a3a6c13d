"""Parameters of static programs: the variable in the main program, its initializer op in the startup one.

An initializer's ``_fill`` is run once against a recorder standing in for the parameter: a fill it makes
with ``uniform_``/``normal_``/``fill_`` becomes the matching Paddle op (uniform_random, gaussian_random,
fill_constant), drawn when the startup program runs. Any other initializer (Orthogonal, Dirac, Assign...)
is evaluated now and its values stored in an assign_value op.
"""
import numpy as np
import torch

from ..framework import dtype as _dtype
from ..framework.program import default_main_program, default_startup_program


class _Unrecordable(Exception):
    pass


class _Recorder:
    """Quacks like the torch tensor an initializer fills; remembers the one fill it makes."""

    def __init__(self, shape, dtype):
        self.shape = torch.Size(shape)
        self.dtype = dtype
        self.device = torch.device("cpu")
        self.op = None

    def dim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def is_complex(self):
        return self.dtype.is_complex

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def _record(self, op):
        if self.op is not None:
            raise _Unrecordable()
        self.op = op
        return self

    def uniform_(self, low=0.0, high=1.0):
        return self._record(("uniform_random", {"min": float(low), "max": float(high), "seed": 0,
                                                "diag_num": 0, "diag_step": 0, "diag_val": 1.0}))

    def normal_(self, mean=0.0, std=1.0):
        return self._record(("gaussian_random", {"mean": float(mean), "std": float(std), "seed": 0}))

    def fill_(self, value):
        if isinstance(value, complex):
            raise _Unrecordable()
        return self._record(("fill_constant", {"value": float(value), "str_value": "", "force_cpu": False}))

    def zero_(self):
        return self.fill_(0.0)

    def __getattr__(self, name):
        raise _Unrecordable()


def append_init_op(initializer, name, shape, dtype, block):
    """Append to ``block`` the op(s) that give variable ``name`` its initial value."""
    d = _dtype.convert_dtype(dtype)
    recorder = _Recorder(shape, d.torch)
    op = None
    if d.name in ("float32", "float64"):
        try:
            initializer._fill(recorder)
            op = recorder.op
        except _Unrecordable:
            op = None
        except (AttributeError, TypeError):
            op = None
    if op is not None:
        op_type, attrs = op
        attrs.update(shape=list(shape), dtype=d.proto, place_type=-1)
        block.append_op(op_type, {}, {"Out": [name]}, attrs)
        return
    value = torch.zeros(shape, dtype=d.torch)
    initializer._fill(value)
    array = value.numpy() if d.numpy is not None else value.float().numpy()
    block.append_op("assign_value", {}, {"Out": [name]},
                    {"shape": list(shape), "dtype": d.proto, "values": np.ascontiguousarray(array)})


def create_static_parameter(shape, dtype, name, initializer, trainable=True, **attrs):
    """A StaticParameter in the main program's global block, initialized in the startup program."""
    main = default_main_program().global_block()
    if name in main.vars:
        # Paddle shares a parameter created again under the same name (ParamAttr(name=...) weight sharing)
        found = main.vars[name]
        if list(found.shape) != [int(s) for s in shape]:
            raise ValueError(f"Variable '{name}' has been created before. The previous shape is "
                             f"{tuple(found.shape)}, the new shape is {tuple(shape)}. They are not matched.")
        if name in default_startup_program().global_block().vars and getattr(found, "trainable", None) is not None:
            return found
        raise ValueError(f"create_parameter: a variable named {name!r} already exists in the main program")
    param = main.create_parameter(shape, dtype, name=name, trainable=trainable, **attrs)
    startup = default_startup_program().global_block()
    startup.create_parameter(shape, dtype, name=name, trainable=trainable, **attrs)
    append_init_op(initializer, name, shape, dtype, startup)
    return param


def create_weight_normed_parameter(shape, dtype, name, initializer, g_initializer, dim, **attrs):
    """WeightNormParamAttr: parameters ``<name>_g`` and ``<name>_v``, and ops computing ``g * v / ||v||`` (the
    norm over every dim but ``dim``); ``g`` starts as the norm of ``v``'s initial value, as in Paddle."""
    from .. import tensor as _pt
    from ..framework.program import program_guard
    rank = len(shape)
    if dim is not None and not -rank <= dim < rank:
        raise ValueError(f"WeightNormParamAttr: dim={dim} is out of range for a parameter of shape {shape}")
    dim = None if dim is None else dim % rank
    g_shape = [1] if dim is None else [shape[dim]]
    v = create_static_parameter(shape, dtype, name + "_v", initializer, **attrs)
    g = create_static_parameter(g_shape, dtype, name + "_g", g_initializer, **attrs)

    def norm(x):
        axes = [a for a in range(rank) if a != dim]
        n = _pt.sqrt(_pt.sum(_pt.square(x), axis=axes, keepdim=True))
        return _pt.reshape(n, g_shape)

    startup = default_startup_program()
    with program_guard(startup):
        sv = startup.global_block().var(v.name)
        g_init = norm(sv)
    startup.global_block().append_op("assign", {"X": [g_init.name]}, {"Out": [g.name]})

    def broadcast(x):
        return x if dim is None else _pt.reshape(x, [shape[dim] if a == dim else 1 for a in range(rank)])
    return broadcast(g) * (v / broadcast(norm(v)))
