"""Rows for shape manipulation: cast, reshape, squeeze, transpose, expand, tile, flip, roll, concat, split,
slice, crop, repeat_interleave, complex views and shape queries."""
import numpy as np

from .core import ALL, FLOATS, INTS, NUMERIC, Err, OpCase, Sample, T, data, fixed

_F = T(np.arange(24.0).reshape(2, 3, 4))          # an Err-case input
_I = T(np.arange(6).reshape(2, 3))


def on(*cases):
    """Samples from (x shape, extra args, kwargs) triples; x gets random data of the case's dtype."""
    def make(rng, dtype):
        out = []
        for case in cases:
            shape, args, kwargs = (tuple(case) + ((), {}))[:3]
            out.append(Sample((T(data(rng, shape, dtype)),) + tuple(args), dict(kwargs)))
        return out
    return make


def many(*cases):
    """Samples whose first argument is a list of tensors, from (list of shapes, kwargs) pairs."""
    def make(rng, dtype):
        return [Sample(([T(data(rng, s, dtype)) for s in shapes],), dict(kwargs)) for shapes, kwargs in cases]
    return make


# -- NumPy references -----------------------------------------------------------------------------------------

def np_reshape(x, shape):
    shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(shape)


def np_squeeze(x, axis=None):
    if axis is None:
        return np.squeeze(x)
    axes = [axis] if isinstance(axis, int) else list(axis)
    axes = tuple({a % max(x.ndim, 1) for a in axes if x.ndim and x.shape[a] == 1})
    return np.squeeze(x, axes) if axes else x


def np_unsqueeze(x, axis):
    for a in [axis] if isinstance(axis, int) else axis:
        x = np.expand_dims(x, a if a >= 0 else a + x.ndim + 1)
    return x


def np_flatten(x, start_axis=0, stop_axis=-1):
    if x.ndim == 0:
        return x.reshape(1)
    start, stop = start_axis % x.ndim, stop_axis % x.ndim
    return x.reshape(x.shape[:start] + (-1,) + x.shape[stop + 1:])


def np_expand(x, shape):
    lead = len(shape) - x.ndim
    shape = [x.shape[i - lead] if d == -1 else d for i, d in enumerate(shape)]
    return np.broadcast_to(x, shape)


def np_split(x, num_or_sections, axis=0):
    if isinstance(num_or_sections, int):
        return np.split(x, num_or_sections, axis)
    sections = list(num_or_sections)
    if -1 in sections:
        sections[sections.index(-1)] = x.shape[axis] - sum(s for s in sections if s != -1)
    return np.split(x, np.cumsum(sections)[:-1], axis)


def np_unbind(x, axis=0):
    return [np.take(x, i, axis) for i in range(x.shape[axis])]


def np_slice(x, axes, starts, ends):
    index = [slice(None)] * x.ndim
    for a, s, e in zip(axes, starts, ends):
        index[a] = slice(s, e)
    return x[tuple(index)]


def np_strided_slice(x, axes, starts, ends, strides):
    index = [slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        index[a] = slice(s, e, st)
    return x[tuple(index)]


def np_crop(x, shape=None, offsets=None):
    shape = list(x.shape) if shape is None else shape
    offsets = [0] * x.ndim if offsets is None else offsets
    return x[tuple(slice(o, o + (x.shape[i] - o if d == -1 else d)) for i, (d, o) in enumerate(zip(shape, offsets)))]


def np_repeat(x, repeats, axis=None, output_size=None):
    return np.repeat(x, repeats, axis)


def np_cast(dtype):
    return lambda x, _dtype=None: x.astype(dtype)


def np_as_complex(x):
    return (x[..., 0] + 1j * x[..., 1]).astype(np.complex64 if x.dtype == np.float32 else np.complex128)


# NOTE: Paddle 3.3.1 has no bool kernel for crop, is_empty, repeat_interleave, unstack, index_sample and
# take_along_axis (it raises RuntimeError); torchpaddle accepts bool there, so those rows sweep NUMERIC only.
def np_unfold(x, axis, size, step):
    if x.ndim == 0:
        return x.reshape(1)
    axis %= x.ndim
    windows = np.lib.stride_tricks.sliding_window_view(x, size, axis=axis)
    return np.take(windows, np.arange(0, windows.shape[axis], step), axis=axis)


def np_as_strided(x, shape, stride, offset=0):
    flat = x.reshape(-1)
    index = offset + sum(np.arange(n).reshape([-1] + [1] * (len(shape) - i - 1)) * s
                         for i, (n, s) in enumerate(zip(shape, stride)))
    return flat[np.asarray(index)]


def np_unflatten(x, axis, shape):
    axis %= x.ndim
    return x.reshape(x.shape[:axis] + tuple(np.asarray(shape).tolist()) + x.shape[axis + 1:])


def np_narrow(x, dim, start, length):
    start = int(start) % x.shape[dim] if int(start) < 0 else int(start)
    return np.take(x, np.arange(start, start + length), axis=dim)


def np_tensor_split(x, num_or_indices, axis=0):
    return np.array_split(x, num_or_indices, axis)


def np_atleast(fn):
    def ref(*inputs):
        out = fn(*inputs)
        return out if isinstance(out, (list, tuple)) else [out]
    return ref


_SHAPES = [(3, 4), (2, 3, 4), (5,), ()]

OPS = [
    # -- cast ------------------------------------------------------------------------------------------------
    OpCase("cast_float64", "cast", np_cast(np.float64), on(*[(s, ("float64",)) for s in _SHAPES]), ALL, grad=True),
    OpCase("cast_int32", "cast", np_cast(np.int32), on(((3, 4), ("int32",)), ((0, 2), ("int32",))), NUMERIC,
           grad=False),
    OpCase("cast_bool", "cast", np_cast(np.bool_), on(((3, 4), ("bool",)), ((5,), ("bool",))), NUMERIC,
           grad=False),
    OpCase("cast_float32", "cast", np_cast(np.float32), on(((3, 4), ("float32",)), ((2, 2), (np.float32,))),
           ALL, grad=False),
    OpCase("Tensor_cast", "Tensor.cast", np_cast(np.int64), on(((3, 4), ("int64",))), NUMERIC, grad=False,
           errors=(Err((_F, "not_a_dtype"), exc=TypeError), Err((_F, object()), exc=TypeError),
                   Err((_F, 3.5), exc=TypeError))),

    # -- reshape family ------------------------------------------------------------------------------------
    OpCase("reshape", "reshape", np_reshape,
           on(((2, 3, 4), ([4, 6],)), ((2, 3, 4), ([0, -1],)), ((2, 3, 4), ([-1],)), ((2, 3, 4), ((4, 3, 2),)),
              ((1,), ([],)), ((0, 3), ([-1, 3],)), ((), ([1, 1],)), ((2, 3, 4), ([0, 0, 2, 2],))),
           ALL, errors=(Err((_F, [5, 5])), Err((_F, [-1, -1])), Err((_F, [-2, 12])), Err((_F, "abc")),
                        Err((_F, [4.0, 6]), exc=TypeError), Err((T(np.ones(1)), [1, 0])))),
    OpCase("reshape_tensor_shape", "reshape", lambda x, s: x.reshape(s),
           fixed(Sample((_F, T(np.array([4, 6]), dtype="int32"))),
                 Sample((_F, [T(np.array(4), dtype="int64"), 6])),
                 Sample((_F, 24))), FLOATS),
    OpCase("reshape_", "reshape_", np_reshape, on(((2, 3, 4), ([4, 6],)), ((2, 3), ([0, -1, 1],))), INTS,
           grad=False, errors=(Err((T(np.ones((2, 3)), stop_gradient=False), [3, 2])),
                               Err((T(np.ones((2, 3)), dtype="int64"), [5, 2])))),
    OpCase("Tensor_reshape", "Tensor.reshape", np_reshape, on(((2, 3, 4), ([3, -1],))), FLOATS),
    OpCase("view", "view", np_reshape, on(((2, 3, 4), ([4, 6],)), ((2, 3, 4), ([-1, 2],)), ((6,), ([2, 3],))),
           ALL, errors=(Err((_F, [5, 5])), Err((_F, [0, -1])), Err((_F, "not_a_dtype"), exc=TypeError))),
    OpCase("view_dtype", "view", lambda x, d: x.view(d),
           fixed(Sample((T(np.arange(12.0).reshape(3, 4)), "int32")), Sample((T(np.arange(12.0).reshape(3, 4)), "float16"))),
           ("float32",), grad=False, errors=(Err((T(np.ones((2, 3)), dtype="float32"), "float64")),)),
    OpCase("view_as", "view_as", lambda x, y: x.reshape(y.shape),
           fixed(Sample((T(np.arange(24.0).reshape(2, 3, 4)), T(np.zeros((4, 6)), grad=False)))), ALL,
           errors=(Err((_F, T(np.zeros((4, 5))))),)),
    OpCase("squeeze", "squeeze", np_squeeze,
           on(((2, 1, 3, 1),), ((2, 1, 3, 1), (1,)), ((2, 1, 3, 1), (0,)), ((2, 1, 3, 1), ([1, 3],)),
              ((2, 1, 3, 1), ((-1, -3),)), ((1,),), ((), (0,)), ((), (-1,))), ALL,
           errors=(Err((_F, 3)), Err((_F, -4)), Err((_F, "a"), exc=TypeError), Err((_F, 1.0), exc=TypeError),
                   Err((T(np.array(1.0)), 1)))),
    OpCase("squeeze_", "squeeze_", np_squeeze, on(((2, 1, 3),), ((1, 3), (0,))), INTS, grad=False,
           errors=(Err((T(np.ones((2, 1)), stop_gradient=False),)), Err((T(np.ones((2, 1)), dtype="int64"), 5)))),
    OpCase("unsqueeze", "unsqueeze", np_unsqueeze,
           on(((2, 3), (0,)), ((2, 3), (-1,)), ((2, 3), ([0, 2],)), ((2, 3), ([-1, -1],)), ((2, 3), ([1, 1],)),
              ((), ([0, 0],)), ((2, 3), ((0, -1, 2),))), ALL,
           errors=(Err((T(np.ones((2, 3))), 3)), Err((T(np.ones((2, 3))), -4)), Err((T(np.ones((2, 3))), "a"),
                                                                                       exc=TypeError),
                   Err((T(np.ones((2, 3))), [3, 0, 4])), Err((T(np.ones((2, 3))), 1.5), exc=TypeError))),
    OpCase("unsqueeze_tensor_axis", "unsqueeze", lambda x, a: np_unsqueeze(x, list(np.atleast_1d(a))),
           fixed(Sample((T(np.ones((2, 3))), T(np.array([0, 1]), dtype="int64"))),
                 Sample((T(np.ones((2, 3))), [T(np.array(0), dtype="int64"), 1]))), FLOATS),
    OpCase("unsqueeze_", "unsqueeze_", np_unsqueeze, on(((2, 3), (0,)), ((2,), ([0, -1],))), INTS, grad=False,
           errors=(Err((T(np.ones(2), stop_gradient=False), 0)), Err((T(np.ones(2), dtype="int64"), 3)))),
    OpCase("flatten", "flatten", np_flatten,
           on(((2, 3, 4),), ((2, 3, 4), (1,)), ((2, 3, 4), (-2, -1)), ((2, 3, 4), (0, 1)), ((),), ((5,), (0, 0))),
           ALL, errors=(Err((_F, 2, 1)), Err((_F, 0, 3)), Err((_F, 0.5)), Err((_F, -4)),
                        Err((T(np.array(1.0)), 1)))),
    OpCase("flatten_", "flatten_", np_flatten, on(((2, 3, 4), (1,))), INTS, grad=False,
           errors=(Err((T(np.ones((2, 3)), stop_gradient=False),)),)),
    OpCase("transpose", "transpose", np.transpose,
           on(((2, 3, 4), ([2, 0, 1],)), ((2, 3, 4), ([-1, 0, 1],)), ((3, 4), ((1, 0),)), ((), ([],))), ALL,
           errors=(Err((_F, [0, 0, 1])), Err((_F, [0, 1, 3])), Err((_F, 1)), Err((_F, "abc"), exc=TypeError))),
    OpCase("transpose_perm_length", "transpose", None, None, ("float32",), grad=False,
           errors=(Err((_F, [1, 0])),), conformance=False),  # Paddle returns a wrongly shaped tensor here
    OpCase("transpose_", "transpose_", np.transpose, on(((2, 3), ([1, 0],))), INTS, grad=False),
    OpCase("t", "t", lambda x: x.T, on(((3, 4),), ((5,),), ((),)), ALL, errors=(Err((_F,)),)),
    OpCase("t_", "t_", lambda x: x.T, on(((3, 4),),), INTS, grad=False,
           errors=(Err((T(np.ones((2, 3)), stop_gradient=False),)),)),
    OpCase("Tensor_t", "Tensor.t", lambda x: x.T, on(((2, 5),)), FLOATS),
    OpCase("moveaxis", "moveaxis", np.moveaxis,
           on(((2, 3, 4), (0, -1)), ((2, 3, 4), ([0, 1], [2, 0])), ((2, 3, 4), ((0, 1), (1, 2))), ((), ([], []))),
           ALL, errors=(Err((_F, [0, 1], [2]), exc=AssertionError), Err((_F, 3, 0), exc=AssertionError),
                        Err((_F, [0, 0], [1, 2])), Err((_F, [0, 1], [1, 1])),
                        Err((_F, 0, 3), exc=AssertionError))),

    # -- expand / tile / flip / roll / rot90 -----------------------------------------------------------------
    OpCase("expand", "expand", np_expand,
           on(((2, 1, 3), ([2, 4, 3],)), ((2, 1, 3), ([-1, 4, -1],)), ((2, 1, 3), ([5, 2, 4, 3],)),
              ((2, 1, 3), ([2, 0, 3],)), ((), ([3],)), ((1,), ((2, 3),))), ALL,
           errors=(Err((T(np.ones((2, 1, 3))), [3, 4, 3])), Err((T(np.ones((2, 1, 3))), [4, 3])),
                   Err((T(np.ones((2, 1, 3))), [-1, 2, 4, 3])), Err((T(np.ones((2, 1, 3))), "ab"), exc=TypeError),
                   Err((T(np.ones((2, 1, 3))), [2.0, 4, 3]), exc=TypeError), Err((T(np.ones(1)), [1] * 10)))),
    OpCase("expand_tensor_shape", "expand", lambda x, s: np.broadcast_to(x, np.asarray(s).tolist()),
           fixed(Sample((T(np.ones((2, 1))), T(np.array([2, 5]), dtype="int64"))),
                 Sample((T(np.ones((2, 1))), [2, T(np.array(5), dtype="int32")]))), FLOATS),
    OpCase("broadcast_to", "broadcast_to", np_expand,
           on(((2, 1, 3), ([2, 4, 3],)), ((3,), ([2, 3],)), ((1, 1), ((4, 5),))), ALL,
           errors=(Err((T(np.ones((2, 1, 3))), [2, 4, 4])), Err((T(np.ones((2, 1, 3))), [3])),
                   Err((T(np.ones((2, 1, 3))), "ab"), exc=TypeError))),
    OpCase("expand_as", "expand_as", lambda x, y: np.broadcast_to(x, y.shape),
           fixed(Sample((T(np.arange(6.0).reshape(2, 1, 3)), T(np.zeros((2, 4, 3)), grad=False))),
                 Sample((T(np.arange(3.0)), T(np.zeros((2, 3)), grad=False)))), ALL,
           errors=(Err((T(np.ones((2, 1, 3))), T(np.zeros((2, 4, 4))))),
                   Err((T(np.ones((2, 1, 3))), T(np.zeros((4, 3))))))),
    OpCase("tile", "tile", lambda x, r: np.tile(x, np.asarray(r).tolist()),
           on(((2, 1, 3), ([2, 1, 1],)), ((2, 3), ([2],)), ((2, 3), ([2, 1, 2],)), ((2, 3), ([0, 1],)),
              ((2, 3), (2,)), ((), ([3],)), ((2, 3), ((1, 2),))), ALL,
           errors=(Err((_F, [-1, 1, 1])), Err((_F, "a"), exc=TypeError), Err((_F, [2.0]), exc=TypeError))),
    OpCase("tile_tensor", "tile", lambda x, r: np.tile(x, np.asarray(r).tolist()),
           fixed(Sample((T(np.arange(6.0).reshape(2, 3)), T(np.array([2, 1]), dtype="int32")))), FLOATS),
    OpCase("flip", "flip", lambda x, axis: np.flip(x, axis if isinstance(axis, int) else tuple(axis)),
           on(((2, 3, 4), ([0, 2],)), ((2, 3, 4), (-1,)), ((2, 3, 4), ((1,),)), ((5,), (0,))), ALL,
           errors=(Err((_F, 3)), Err((_F, [0, 0])), Err((_F, "a"), exc=TypeError), Err((_F, 1.0), exc=TypeError),
                   Err((T(np.array(1.0)), 0)))),
    OpCase("roll", "roll", lambda x, shifts, axis=None: np.roll(x, shifts, axis),
           on(((2, 3, 4), (1,)), ((2, 3, 4), (2,), {"axis": 2}), ((2, 3, 4), ([1, -1],), {"axis": [0, 2]}),
              ((2, 3, 4), (100,), {"axis": -1}), ((0, 3), (1,), {"axis": 0}), ((), (1,))), ALL,
           errors=(Err((_F, [1, 2]), {"axis": [0]}), Err((_F, [1, 2])), Err((_F, 1), {"axis": 3}),
                   Err((_F, 1), {"axis": -4}), Err((_F, 1.5), exc=TypeError))),
    OpCase("rot90", "rot90", lambda x, k=1, axes=(0, 1): np.rot90(x, k, axes),
           on(((3, 4),), ((2, 3, 4), (2, [1, 2])), ((2, 3, 4), (-1, [2, 0])), ((2, 3, 4), (5,)),
              ((2, 3), (0,)), ((2, 3, 4), (3, [-1, 0]))), ALL,
           errors=(Err((_F, 1, [1, 1])), Err((_F, 1, [0, 1, 2])), Err((_F, 1, [0, 3])),
                   Err((T(np.ones(3)), 1, [0, 0])), Err((_F, 1, [-4, 0])))),

    # -- concat / stack / split ----------------------------------------------------------------------------
    OpCase("concat", "concat", lambda x, axis=0: np.concatenate(x, axis),
           many(([(2, 3), (2, 3)], {}), ([(2, 3), (2, 5)], {"axis": 1}), ([(2, 3), (4, 3), (1, 3)], {"axis": -2}),
                ([(2, 3), (0, 3)], {}), ([(4,)], {})), ALL,
           errors=(Err(([T(np.ones((2, 3))), T(np.ones((3, 3)))], 1)), Err(([T(np.ones((2, 3))), T(np.ones(3))],)),
                   Err(([T(np.ones((2, 3))), T(np.ones((2, 3)))], 2)),
                   Err(([T(np.ones((2, 3))), T(np.ones((2, 3)), dtype="int32")],)),
                   Err((T(np.ones((2, 3))),)), Err(([],)), Err(([T(np.array(1.0)), T(np.array(2.0))],)))),
    OpCase("concat_tensor_axis", "concat", lambda x, axis: np.concatenate(x, int(axis)),
           fixed(Sample(([T(np.ones((2, 3))), T(np.zeros((2, 2)))], T(np.array(1), dtype="int64")))), FLOATS),
    OpCase("stack", "stack", lambda x, axis=0: np.stack(x, axis),
           many(([(2, 3), (2, 3)], {}), ([(2, 3), (2, 3), (2, 3)], {"axis": -1}), ([(), ()], {}),
                ([(2, 3)], {"axis": 2})), ALL,
           errors=(Err(([T(np.ones((2, 3))), T(np.ones((3, 3)))],)), Err(([T(np.ones((2, 3)))], 3)),
                   Err(([T(np.ones((2, 3)))], -4)), Err(([T(np.ones(3)), T(np.ones(3), dtype="int32")],)),
                   Err(([],)), Err((T(np.ones((2, 3))),)))),
    OpCase("split", "split", np_split,
           on(((3, 4), (2,), {"axis": 1}), ((3, 4), ([1, -1],), {"axis": 1}), ((3, 4), ((1, 3),), {"axis": -1}),
              ((6, 2), (3,)), ((3, 4), ([0, 4],), {"axis": 1}), ((0, 4), (2,), {"axis": 1})), ALL,
           errors=(Err((T(np.ones((3, 4))), 3, 1)), Err((T(np.ones((3, 4))), [-1, -1], 1)),
                   Err((T(np.ones((3, 4))), [1, 2], 1)), Err((T(np.ones((3, 4))), [1, 5, -1], 1)),
                   Err((T(np.ones((3, 4))), 2, 2)), Err((T(np.ones((3, 4))), 0, 1)),
                   Err((T(np.ones((3, 4))), 2.0, 1), exc=TypeError))),
    OpCase("split_negative_num", "split", None, None, ("float32",), grad=False,
           errors=(Err((T(np.ones((3, 4))), -2, 1)),), conformance=False),  # Paddle aborts the process here
    OpCase("split_tensor_args", "split", lambda x, sections, axis: np_split(x, [int(s) for s in sections], int(axis)),
           fixed(Sample((T(np.arange(12.0).reshape(3, 4)), [T(np.array(1), dtype="int64"), 3],
                         T(np.array(1), dtype="int64")))), FLOATS),
    OpCase("chunk", "chunk", lambda x, chunks, axis=0: np.split(x, chunks, axis),
           on(((3, 4), (2,), {"axis": 1}), ((6, 2), (3,)), ((3, 4), (4,), {"axis": -1})), ALL,
           errors=(Err((T(np.ones((3, 4))), 3, 1)), Err((T(np.ones((3, 4))), 0, 1)),
                   Err((T(np.ones((3, 4))), 2, 3), exc=IndexError), Err((T(np.ones((3, 4))), 2.0, 1), exc=TypeError),
                   Err((T(np.ones((3, 4))), 5, 1)))),
    OpCase("unbind", "unbind", np_unbind, on(((3, 4), (1,)), ((3, 4), (-1,)), ((2, 3, 4),), ((0, 3),)), ALL,
           errors=(Err((T(np.ones((3, 4))), 2)), Err((T(np.ones((3, 4))), 1.0), exc=TypeError),
                   Err((T(np.array(1.0)),)))),
    OpCase("unstack", "unstack", np_unbind, on(((3, 4), (1,)), ((2, 3, 4), (-2,)), ((2, 3),)), NUMERIC,
           errors=(Err((T(np.ones((3, 4))), 1, 3)), Err((T(np.ones((3, 4))), 2)), Err((T(np.array(1.0)),)),
                   Err((T(np.ones((3, 4))), 0.0), exc=TypeError))),

    # -- slicing --------------------------------------------------------------------------------------------
    OpCase("slice", "slice", np_slice,
           on(((2, 3, 4), ([1, 2], [1, 0], [3, 2])), ((2, 3, 4), ([2], [-3], [-1])),
              ((2, 3, 4), ([2], [-100], [100])), ((2, 3, 4), ([2], [3], [1])), ((2, 3, 4), ([-1], [0], [2])),
              ((2, 3, 4), ((0,), (1,), (2,)))), ALL,
           errors=(Err((_F, [0, 1], [0], [1, 1])), Err((_F, 1, [0], [1])), Err((_F, [1], [0.5], [2]), exc=TypeError),
                   Err((T(np.array(1.0)), [0], [0], [1])))),
    OpCase("slice_tensor_bounds", "slice", lambda x, axes, starts, ends: np_slice(x, axes, np.ravel(starts).tolist(),
                                                                                  np.ravel(ends).tolist()),
           fixed(Sample((_F, [1], T(np.array([1]), dtype="int64"), [3])),
                 Sample((_F, [1], [T(np.array(1), dtype="int32")], T(np.array([3]), dtype="int32")))), FLOATS),
    OpCase("slice_axis_out_of_range", "slice", None, None, ("float32",), grad=False,
           errors=(Err((_F, [3], [0], [1])),), conformance=False),  # Paddle slices some other axis
    OpCase("strided_slice", "strided_slice", np_strided_slice,
           on(((2, 3, 4), ([1, 2], [0, 3], [3, 0], [2, -1])), ((2, 3, 4), ([2], [-1], [-100], [-1])),
              ((2, 3, 4), ([2], [100], [-100], [-2])), ((2, 3, 4), ([2], [3], [1], [1])),
              ((2, 3, 4), ([0, 2], [0, 1], [2, 4], [1, 2]))), ALL,
           errors=(Err((_F, [2], [0], [4], [0])), Err((_F, [3], [0], [1], [1])), Err((_F, [1], [0, 0], [1], [1])),
                   Err((_F, [0], [0.0], [1], [1]), exc=TypeError))),
    OpCase("crop", "crop", np_crop,
           on(((2, 3, 4), ([1, 2, 2], [1, 1, 1])), ((2, 3, 4), ([1, 2, 2],)), ((2, 3, 4), ([-1, 2, 2], [0, 1, 1])),
              ((2, 3, 4),), ((2, 3, 4), ([0, 2, 2],))), NUMERIC,
           errors=(Err((_F, [2, 3, 4], [1, 0, 0])), Err((_F, [2, 3])), Err((_F, [1, 2, 2], [-1, 0, 0])),
                   Err((_F, [-2, 2, 2])), Err((_F, "ab"), exc=TypeError))),
    OpCase("crop_tensor_args", "crop", lambda x, shape, offsets: np_crop(x, np.asarray(shape).tolist(),
                                                                          np.asarray(offsets).tolist()),
           fixed(Sample((_F, T(np.array([1, 2, 2]), dtype="int32"), T(np.array([1, 1, 1]), dtype="int32")))),
           FLOATS),

    # -- shape queries ------------------------------------------------------------------------------------------
    OpCase("shape", "shape", lambda x: np.array(x.shape, dtype=np.int64), on(((2, 3, 4),), ((),), ((0, 2),)),
           ALL, grad=False),
    OpCase("rank", "rank", lambda x: np.array(x.ndim, dtype=np.int32), on(((2, 3, 4),), ((),)), ALL, grad=False),
    OpCase("is_empty", "is_empty", lambda x: np.array(x.size == 0), on(((2, 3),), ((0, 2),), ((),)), NUMERIC,
           grad=False),

    # -- repeat_interleave, complex views ---------------------------------------------------------------------
    OpCase("repeat_interleave", "repeat_interleave", np_repeat,
           on(((2, 3, 4), (2,)), ((2, 3, 4), (2,), {"axis": 1}), ((), (2,)), ((2, 3), (3,), {"axis": -1}),
              ((2, 3), (2,), {"axis": 0, "output_size": 4})), NUMERIC,
           errors=(Err((_F, -1, 1)), Err((_F, 0, 1)), Err((_F, 2, 3), exc=IndexError), Err((_F, 2.0, 1), exc=TypeError),
                   Err((_F, [1, 1, 2], 1), exc=TypeError))),
    OpCase("repeat_interleave_tensor", "repeat_interleave", np_repeat,
           fixed(Sample((T(np.arange(24.0).reshape(2, 3, 4)), T(np.array([1, 0, 2]), dtype="int64")), {"axis": 1}),
                 Sample((T(np.arange(6.0)), T(np.array([1, 2, 1, 1, 0, 3]), dtype="int32"))),
                 Sample((T(np.arange(6.0).reshape(2, 3)), T(np.array([1, 2]), dtype="int64")),
                        {"axis": 0, "output_size": 3})), NUMERIC,
           errors=(Err((_F, T(np.array([1, 2]), dtype="int64"), 1)), Err((_F, T(np.array([1, -1, 2]), dtype="int64"), 1)),
                   Err((_F, T(np.array([1.0, 1.0, 1.0])), 1)),
                   Err((_F, T(np.array([1, 1, 2]), dtype="int64"), 1), {"output_size": 5}))),
    OpCase("as_complex", "as_complex", np_as_complex, on(((3, 2),), ((2, 3, 2),), ((2,),)), FLOATS, grad=False,
           errors=(Err((T(np.ones((2, 3))),)), Err((T(np.ones((2, 2)), dtype="int64"),), exc=RuntimeError),
                   Err((T(np.array(1.0)),)))),
    OpCase("as_real", "as_real", lambda x: np.stack([x.real, x.imag], -1),
           fixed(Sample((T(np.array([1 + 2j, 3 - 1j]), dtype="complex64"),)),
                 Sample((T(np.array([[1 + 2j], [0.5 - 1j]]), dtype="complex128"),)),
                 Sample((T(np.array(1 + 2j), dtype="complex64"),))), ("complex64",), grad=False,
           errors=(Err((T(np.ones(2)),), exc=RuntimeError), Err((T(np.ones(2), dtype="int32"),), exc=RuntimeError))),

    # -- more reshaping, splitting and stacking -------------------------------------------------------------
    OpCase("cat", "cat", lambda x, axis=0: np.concatenate(x, axis), many(([(2, 3), (2, 2)], {"axis": 1})), ALL),
    OpCase("swapaxes", "swapaxes", lambda x, a, b: np.swapaxes(x, a, b),
           on(((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 1))), ALL, errors=(Err((_F, 0, 3), exc=IndexError),)),
    OpCase("permute", "permute", lambda x, *dims: np.transpose(x, dims[0] if len(dims) == 1 else dims),
           on(((2, 3, 4), ([2, 0, 1],)), ((2, 3, 4), (2, 0, 1)), ((2, 3), ((1, 0),))), ALL,
           errors=(Err((_F, [0, 0, 1])), Err((_F, [0, 1, 3])))),
    OpCase("ravel", "ravel", lambda x: x.reshape(-1), on(((2, 3, 4),), ((),)), ALL),
    OpCase("reverse", "reverse", lambda x, axis: np.flip(x, axis), on(((2, 3), (0,)), ((2, 3), ([0, 1],))), ALL),
    OpCase("unflatten", "unflatten", np_unflatten,
           on(((2, 3, 4), (2, [2, 2])), ((2, 3, 4), (-1, [-1, 2])), ((2, 3, 4), (1, (3, 1))), ((6,), (0, [2, 3]))),
           ALL, errors=(Err((_F, 2, [3, 2])), Err((_F, 2, [-1, -1])), Err((_F, 3, [2, 2]), exc=AssertionError),
                        Err((_F, 1, 3), exc=TypeError))),
    OpCase("unflatten_tensor_shape", "unflatten", np_unflatten,
           fixed(Sample((_F, 2, T(np.array([2, 2]), dtype="int64")))), FLOATS),
    OpCase("narrow", "narrow", np_narrow,
           on(((2, 3, 4), (1, 1, 2)), ((2, 3, 4), (-1, -2, 2)), ((2, 3, 4), (1, -3, 2)), ((2, 3, 4), (2, 4, 0))),
           ALL, errors=(Err((_F, 1, 2, 2), exc=AssertionError), Err((_F, 1, 0, -1), exc=AssertionError),
                        Err((_F, 3, 0, 1), exc=IndexError), Err((_F, 1, -4, 2), exc=AssertionError))),
    OpCase("narrow_tensor_start", "narrow", np_narrow, fixed(Sample((_F, 1, T(np.array(1), dtype="int64"), 2))),
           FLOATS),
    OpCase("tensor_split", "tensor_split", np_tensor_split,
           on(((2, 3, 4), (3,), {"axis": 2}), ((2, 3, 4), ([1, 3],), {"axis": 2}), ((2, 3, 4), (5,), {"axis": -1}),
              ((2, 3, 4), ([3, 10],), {"axis": 2}), ((2, 3, 4), ([3, 1],), {"axis": 2}), ((2, 3, 4), ([-1],), {"axis": 2}),
              ((6,), (4,))), ALL,
           errors=(Err((_F, 0), {"axis": 2}), Err((_F, 2.0)), Err((_F, 2), {"axis": 3}),
                   Err((_F, T(np.array([1, 2]), dtype="int64"))))),
    OpCase("hsplit", "hsplit", lambda x, n: np.array_split(x, n, 1 if x.ndim > 1 else 0),
           on(((2, 3, 4), (3,)), ((2, 3, 4), (2,)), ((4,), (2,)), ((2, 4), ([1, 3],))), ALL,
           errors=(Err((T(np.array(1.0)), 2)),)),
    OpCase("vsplit", "vsplit", lambda x, n: np.array_split(x, n, 0), on(((2, 3, 4), ([1],)), ((3, 4), (3,))), ALL,
           errors=(Err((T(np.ones(4)), 2)),)),
    OpCase("dsplit", "dsplit", lambda x, n: np.array_split(x, n, 2), on(((2, 3, 4), (2,))), ALL,
           errors=(Err((T(np.ones((3, 4))), 2)),)),
    OpCase("hstack", "hstack", np.hstack, many(([(2, 3, 4), (2, 1, 4)], {}), ([(4,), (2,)], {}), ([(), ()], {})), ALL,
           errors=(Err(([],)), Err(([T(np.ones((2, 3))), T(np.ones((3, 3)))],)))),
    OpCase("vstack", "vstack", np.vstack, many(([(2, 3), (1, 3)], {}), ([(4,), (4,)], {}), ([(), ()], {})), ALL,
           errors=(Err(([T(np.ones((2, 3))), T(np.ones((2, 2)))],)),)),
    OpCase("row_stack", "row_stack", np.vstack, many(([(2, 3), (1, 3)], {})), ALL),
    OpCase("dstack", "dstack", np.dstack, many(([(3, 4), (3, 4)], {}), ([(4,), (4,)], {}), ([(2, 3, 1), (2, 3, 2)], {})),
           ALL),
    OpCase("column_stack", "column_stack", np.column_stack, many(([(4,), (4,)], {}), ([(3, 4), (3, 1)], {})), ALL),
    OpCase("atleast_1d", "atleast_1d", np_atleast(np.atleast_1d),
           fixed(Sample((T(np.array(1.5)),)), Sample((T(np.ones((2, 3))), T(np.array(2.0))))), ALL),
    OpCase("atleast_2d", "atleast_2d", np_atleast(np.atleast_2d),
           fixed(Sample((T(np.array(1.5)),)), Sample((T(np.arange(3.0)), T(np.ones((2, 3, 1)))))), ALL),
    OpCase("atleast_3d", "atleast_3d", np_atleast(np.atleast_3d),
           fixed(Sample((T(np.array(1.5)),)), Sample((T(np.arange(3.0)),)), Sample((T(np.ones((2, 3))),))), ALL),
    OpCase("unfold", "unfold", np_unfold,
           on(((2, 3, 4), (2, 2, 1)), ((2, 3, 4), (-1, 2, 2)), ((5,), (0, 3, 2)), ((2, 3, 4), (1, 0, 2)), ((), (0, 1, 1))),
           ALL, errors=(Err((_F, 2, 5, 1)), Err((_F, 2, 2, 0)), Err((_F, 3, 2, 1)))),
    OpCase("as_strided", "as_strided", np_as_strided,
           on(((2, 3, 4), ([3, 2], [2, 1], 1)), ((6,), ([2, 2], [1, 1])), ((2, 3, 4), ([4], [6]))), ALL,
           conformance=False,  # Paddle reads from the wrong place (garbage values) for these
           errors=(Err((_F, [30], [1])), Err((_F, [2, 2], [1])), Err((_F, [2], [-1])))),
    OpCase("broadcast_tensors", "broadcast_tensors", lambda x: np.broadcast_arrays(*x),
           many(([(2, 1, 4), (3, 1)], {}), ([(3,), ()], {})), ALL,
           errors=(Err(([T(np.ones((2, 3))), T(np.ones(5))],)), Err(([],)))),
    OpCase("view_as_complex", "view_as_complex", np_as_complex, on(((3, 2),)), FLOATS, grad=False),
    OpCase("view_as_real", "view_as_real", lambda x: np.stack([x.real, x.imag], -1),
           fixed(Sample((T(np.array([1 + 2j, 3 - 1j]), dtype="complex64"),))), ("complex64",), grad=False),

    # -- Paddle 3's torch-style spellings ---------------------------------------------------------------------
    OpCase("reshape_varargs", "Tensor.reshape", lambda x, *s: x.reshape(s), on(((2, 3, 4), (4, 6)), ((2, 3, 4), (-1,))),
           FLOATS),
    OpCase("reshape_input_kw", "reshape", lambda input, shape: input.reshape(shape),
           lambda rng, dtype: [Sample((), {"input": T(data(rng, (2, 3), dtype)), "shape": [3, 2]})], FLOATS),
    OpCase("view_varargs", "Tensor.view", lambda x, *s: x.reshape(s), on(((2, 3, 4), (4, 6))), FLOATS),
    OpCase("expand_varargs", "Tensor.expand", lambda x, *s: np.broadcast_to(x, s), on(((1, 3), (2, 3))), FLOATS),
    OpCase("transpose_two_dims", "transpose", lambda x, a, b: np.swapaxes(x, a, b), on(((2, 3, 4), (0, 2))), FLOATS),
    OpCase("Tensor_transpose_two_dims", "Tensor.transpose", lambda x, a, b: np.swapaxes(x, a, b),
           on(((2, 3, 4), (1, 2))), FLOATS),
    OpCase("squeeze_dim_kw", "squeeze", lambda x, dim: np.squeeze(x, dim), on(((2, 1, 3), (), {"dim": 1})), FLOATS),
    OpCase("unsqueeze_dim_kw", "unsqueeze", lambda x, dim: np.expand_dims(x, dim), on(((2, 3), (), {"dim": 1})), FLOATS),
    OpCase("concat_dim_kw", "concat", lambda x, dim: np.concatenate(x, dim), many(([(2, 3), (2, 1)], {"dim": 1})), FLOATS),
    OpCase("stack_dim_kw", "stack", lambda x, dim: np.stack(x, dim), many(([(2, 3), (2, 3)], {"dim": 2})), FLOATS),
    OpCase("flatten_torch_kw", "flatten", lambda x, start_dim: np_flatten(x, start_dim),
           on(((2, 3, 4), (), {"start_dim": 1})), FLOATS),
    OpCase("roll_dims_kw", "roll", lambda x, s, dims: np.roll(x, s, dims), on(((2, 3, 4), (1,), {"dims": 0})), FLOATS),
    OpCase("chunk_dim_kw", "chunk", lambda x, c, dim: np.split(x, c, dim), on(((2, 4), (2,), {"dim": 1})), FLOATS),
    OpCase("tile_dims_kw", "tile", lambda x, dims: np.tile(x, dims), on(((2, 3), (), {"dims": [2, 1]})), FLOATS),
    OpCase("repeat_interleave_dim_kw", "repeat_interleave", lambda x, r, dim: np.repeat(x, r, dim),
           on(((2, 3), (2,), {"dim": 1})), FLOATS),
    OpCase("diagonal", "diagonal", lambda x, offset=0, axis1=0, axis2=1: np.diagonal(x, offset, axis1, axis2),
           on(((3, 4),), ((3, 4), (1,)), ((3, 4), (-1,)), ((3, 4), (10,)), ((2, 3, 4), (0, -1, 0)), ((2, 3, 4), (1, 1, 2))),
           ALL, errors=(Err((_F, 0, 3, 0), exc=IndexError), Err((_F, 0, 1, -2)), Err((T(np.ones(3)),), exc=IndexError),
                        Err((_F, 1.0), exc=TypeError))),
    OpCase("diagonal_tensor_args", "diagonal", lambda x, o, a, b: np.diagonal(x, int(o), int(a), int(b)),
           fixed(Sample((_F, T(np.array(1), dtype="int64"), T(np.array(1), dtype="int32"), T(np.array(2), dtype="int64")))),
           FLOATS),
]
