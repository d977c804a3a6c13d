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
]
