"""Rows for nn.functional linear, bilinear, the dropout family, embedding, one_hot, label_smooth,
cosine_similarity and diag_embed. Dropout draws cannot match Paddle's: those rows are ``random=True``; rows
whose outcome is forced (p=0, p=1, inference) compare values. Distributions are tested in
tests/nn/test_dropout.py."""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T, fixed

_INTS = ("int32", "int64")


def _f(name):
    return "nn.functional." + name


def _u(rng, *shape, low=-2.0, high=2.0, **kw):
    return T(rng.uniform(low, high, size=shape), **kw)


def _linear(x, weight, bias=None):
    out = x @ weight
    return out if bias is None else out + bias


def _linear_samples(rng, dtype):
    return [Sample((_u(rng, 2, 3), _u(rng, 3, 4), _u(rng, 4))),
            Sample((_u(rng, 2, 5, 3), _u(rng, 3, 4))),
            Sample((_u(rng, 3), _u(rng, 3, 4), _u(rng, 4))),
            Sample((_u(rng, 2, 3), _u(rng, 3, 4), _u(rng, 2, 4))),
            Sample((_u(rng, 2, 3), _u(rng, 3)))]


def _bilinear(x1, x2, weight, bias=None):
    out = np.einsum("bm,kmn,bn->bk", x1, weight, x2)
    return out if bias is None else out + bias


def _embedding(x, weight, padding_idx=None, sparse=False, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    if max_norm is not None:   # the rows looked up are renormalised to max_norm first
        weight = weight.copy()
        for i in np.unique(x):
            norm = np.linalg.norm(weight[i], ord=norm_type)
            if norm > max_norm:
                weight[i] *= max_norm / (norm + 1e-7)
    out = weight[x]
    if padding_idx is not None:
        padding_idx = padding_idx if padding_idx >= 0 else weight.shape[0] + padding_idx
        out = np.where((x == padding_idx)[..., None], 0, out)
    return out


def _embedding_samples(rng, dtype):
    ids = T(np.array([[0, 2], [1, 2]]), dtype="int64")
    return [Sample((ids, _u(rng, 3, 4))),
            Sample((ids, _u(rng, 3, 4)), {"padding_idx": 2}),
            Sample((ids, _u(rng, 3, 4)), {"padding_idx": -1}),
            Sample((T(np.array([4, 0, 4, 1]), dtype="int32"), _u(rng, 5, 2)), {"sparse": True}),
            Sample((T(np.array(3), dtype="int64"), _u(rng, 5, 2)))]


def _one_hot(x, num_classes=-1):
    if num_classes == -1:
        num_classes = int(x.max()) + 1
    return np.eye(num_classes, dtype=np.float32)[x]


def _label_smooth(label, prior_dist=None, epsilon=0.1):
    prior = 1 / label.shape[-1] if prior_dist is None else prior_dist
    return (1 - epsilon) * label + epsilon * prior


def _cosine(x1, x2, axis=1, eps=1e-8):
    x1, x2 = np.broadcast_arrays(x1, x2)
    w12 = (x1 * x2).sum(axis)
    return w12 / np.sqrt(np.maximum((x1 * x1).sum(axis) * (x2 * x2).sum(axis), eps * eps))


def _cosine_samples(rng, dtype):
    return [Sample((_u(rng, 3, 4), _u(rng, 3, 4))),
            Sample((_u(rng, 3, 4), _u(rng, 3, 4)), {"axis": 0}),
            Sample((_u(rng, 2, 3, 4), _u(rng, 2, 3, 4)), {"axis": -1}),
            Sample((_u(rng, 3, 4), _u(rng, 1, 4))),
            Sample((_u(rng, 3, 4), _u(rng, 3, 1)), {"axis": 1})]


def _pairwise(x, y, p=2.0, epsilon=1e-6, keepdim=False):
    return (np.abs(x - y + epsilon) ** p).sum(-1, keepdims=keepdim) ** (1 / p)


def _diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.shape[-1] + abs(offset)
    out = np.zeros(input.shape[:-1] + (n, n), dtype=input.dtype)
    idx = np.arange(input.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = input
    return np.moveaxis(out, (-2, -1), (dim1, dim2)) if (dim1, dim2) != (-2, -1) else out


def _ones(*shape):
    return T(np.ones(shape))


_DROP_ERRORS = (Err((_ones(4),), {"p": 1.5}, exc=ValueError),
                Err((_ones(4),), {"p": "a"}, exc=TypeError),
                Err((_ones(4),), {"mode": "x"}, exc=ValueError),
                Err((_ones(2, 3),), {"axis": 2}, exc=ValueError, note="axis out of range"),
                Err((_ones(2, 3),), {"axis": -1}, exc=ValueError, note="negative axis"),
                Err((_ones(2, 3),), {"axis": "a"}, exc=TypeError),
                Err((T(np.ones(4), dtype="int64"),), exc=RuntimeError, note="no integer kernel"))


def _dropout_samples(rng, dtype):
    return [Sample((_u(rng, 50),)), Sample((_u(rng, 4, 5),), {"p": 0.3}),
            Sample((_u(rng, 4, 5),), {"mode": "downscale_in_infer"}),
            Sample((_u(rng, 4, 5),), {"axis": 1}), Sample((_u(rng, 4, 5, 2),), {"axis": [0, 2], "p": 0.2}),
            Sample((_u(rng, 4, 5),), {"axis": 0, "mode": "downscale_in_infer"})]


def _dropout_forced(x, p=0.5, axis=None, training=True, mode="upscale_in_train"):
    if p == 0:
        return x
    if not training:
        return x * (1 - p) if mode == "downscale_in_infer" else x
    return x * 0


def _dropout_forced_samples(rng, dtype):
    return [Sample((_u(rng, 4, 5),), {"p": 0.0}), Sample((_u(rng, 4, 5),), {"training": False}),
            Sample((_u(rng, 2, 4, 5),), {"training": False, "mode": "downscale_in_infer", "p": 0.3}),
            Sample((_u(rng, 4, 5),), {"training": False, "axis": 1, "mode": "downscale_in_infer"}),
            Sample((_u(rng, 4, 5),), {"p": 1.0}), Sample((_u(rng, 4, 5),), {"p": 1.0, "axis": 0})]


def _feature_errors(rank, fmt):
    return (Err((_ones(*([2] * (rank - 1))),), exc=ValueError, note="wrong rank"),
            Err((_ones(*([2] * rank)),), {"data_format": "NCL"}, exc=ValueError),
            Err((_ones(*([2] * rank)),), {"p": 2.0}, exc=ValueError),
            Err(([1.0, 2.0],), exc=ValueError, note="a list is not a Tensor"))


OPS = [
    OpCase("linear", _f("linear"), _linear, _linear_samples, FLOATS,
           errors=(Err((_ones(2, 3), _ones(4, 3)), exc=ValueError, note="in_features mismatch"),
                   Err((_ones(2, 3), _ones(3, 4), _ones(3)), exc=ValueError, note="bias size"),
                   Err((_ones(2, 3), T(np.ones((3, 4)), dtype="float32")), exc=ValueError, note="dtype mismatch"),
                   Err(([1.0, 2.0, 3.0], _ones(3, 4)), exc=ValueError, note="a list is not a Tensor"))),
    OpCase("linear_int", _f("linear"), _linear, fixed(Sample((T(np.ones((2, 3))), T(np.ones((3, 4)))))), _INTS,
           grad=False),
    OpCase("bilinear", _f("bilinear"), _bilinear,
           lambda rng, dtype: [Sample((_u(rng, 2, 3), _u(rng, 2, 4), _u(rng, 5, 3, 4), _u(rng, 1, 5))),
                               Sample((_u(rng, 3, 2), _u(rng, 3, 2), _u(rng, 1, 2, 2)))],
           FLOATS,
           errors=(Err((_ones(2, 3), _ones(2, 4), _ones(5, 3, 4), _ones(5)), exc=ValueError, note="1-D bias"),
                   Err((_ones(2, 3), _ones(2, 4), _ones(5, 4, 4)), exc=ValueError, note="weight dim 1"),
                   Err((_ones(2, 3), _ones(3, 4), _ones(5, 3, 4)), exc=ValueError, note="batch mismatch"),
                   Err((_ones(2, 3), T(np.ones((2, 4)), dtype="float32"), _ones(5, 3, 4)), exc=ValueError,
                       note="dtype mismatch"))),
    OpCase("dropout", _f("dropout"), None, _dropout_samples, FLOATS, grad=False, random=True, errors=_DROP_ERRORS),
    OpCase("dropout_forced", _f("dropout"), _dropout_forced, _dropout_forced_samples, FLOATS),
    OpCase("dropout2d", _f("dropout2d"), None,
           fixed(Sample((_ones(2, 3, 4, 4),)), Sample((_ones(2, 4, 4, 3),), {"data_format": "NHWC", "p": 0.2})),
           FLOATS, grad=False, random=True, errors=_feature_errors(4, "NCHW")),
    OpCase("dropout2d_eval", _f("dropout2d"), lambda x, training=True: x,
           lambda rng, dtype: [Sample((_u(rng, 2, 3, 2, 2),), {"training": False})], FLOATS),
    # Paddle's composite feature dropout accepts integer tensors (scaled by the integer factor).
    OpCase("dropout2d_int", _f("dropout2d"), None, fixed(Sample((_ones(2, 3, 2, 2),))), _INTS, grad=False,
           random=True),
    OpCase("dropout_axis_int_forced", _f("dropout"), lambda x, **kw: x * 0 if kw.get("p") == 1.0 else x,
           fixed(Sample((T(np.arange(6).reshape(2, 3)),), {"axis": 1, "training": False}),
                 Sample((T(np.arange(6).reshape(2, 3)),), {"axis": 1, "p": 1.0})), _INTS, grad=False),
    OpCase("dropout3d", _f("dropout3d"), None,
           fixed(Sample((_ones(2, 3, 2, 2, 2),)), Sample((_ones(2, 2, 2, 2, 3),), {"data_format": "NDHWC"})),
           FLOATS, grad=False, random=True, errors=_feature_errors(5, "NCDHW")),
    OpCase("dropout1d", _f("dropout1d"), None, fixed(Sample((_ones(2, 3, 4),)), Sample((_ones(3, 4),))),
           FLOATS, grad=False, random=True,
           errors=(Err((_ones(2, 3, 4, 5),), exc=RuntimeError, note="4-D"), Err((_ones(2),), exc=RuntimeError),
                   Err((_ones(2, 3),), {"p": -0.5}, exc=ValueError))),
    OpCase("alpha_dropout", _f("alpha_dropout"), None, fixed(Sample((_ones(20),)), Sample((_ones(4, 5),), {"p": 0.2})),
           FLOATS, grad=False, random=True,
           errors=(Err((_ones(4),), {"p": 1.5}, exc=ValueError), Err((_ones(4),), {"p": "a"}, exc=TypeError),
                   Err((_ones(4),), {"p": -0.1}, exc=ValueError))),
    OpCase("alpha_dropout_forced", _f("alpha_dropout"), lambda x, p=0.5, training=True: x * 0 if training else x,
           lambda rng, dtype: [Sample((_u(rng, 4, 5),), {"training": False}), Sample((_u(rng, 4, 5),), {"p": 1.0})],
           FLOATS),
    OpCase("feature_alpha_dropout", _f("feature_alpha_dropout"), None, fixed(Sample((_ones(2, 3, 4),))), FLOATS,
           grad=False, random=True,
           errors=(Err((_ones(4),), {"p": 1.5}, exc=ValueError), Err((_ones(4),), {"p": "a"}, exc=TypeError),
                   Err((_ones(4),), exc=ValueError, note="1-D input"))),
    OpCase("embedding", _f("embedding"), _embedding, _embedding_samples, FLOATS,
           errors=(Err((T(np.array([[0, 3]]), dtype="int64"), _ones(3, 4)), exc=ValueError, note="id out of range"),
                   Err((T(np.array([[0, 1]]), dtype="int64"), _ones(3, 4)), {"padding_idx": 3}, exc=ValueError),
                   Err((T(np.array([[0.0, 1.0]]), dtype="float32"), _ones(3, 4)), exc=NotImplementedError,
                       note="float ids"),
                   Err((T(np.array([[0, 1]]), dtype="int64"), _ones(3)), exc=ValueError, note="1-D table"),
                   Err((T(np.array([[0, 1]]), dtype="int64"), T(np.ones((3, 2)), dtype="int64")),
                       exc=RuntimeError, note="integer table"),
                   Err((T(np.array([0]), dtype="int64"), _ones(3, 2)), {"scale_grad_by_freq": True, "sparse": True},
                       exc=AttributeError))),
    OpCase("embedding_max_norm", _f("embedding"), _embedding,
           lambda rng, dtype: [Sample((T(np.array([[0, 2], [1, 2]]), dtype="int64"), _u(rng, 3, 4, low=-6.0, high=6.0)),
                                      {"max_norm": 1.0})], FLOATS, grad=False),
    # The scaled gradient is not the finite-difference one: it is divided by each id's count.
    OpCase("embedding_scale_grad_by_freq", _f("embedding"), _embedding,
           lambda rng, dtype: [Sample((T(np.array([[0, 2], [1, 2]]), dtype="int64"), _u(rng, 3, 4)),
                                      {"scale_grad_by_freq": True, "padding_idx": 0})], FLOATS, grad=False),
    # NOTE: Paddle reads out of bounds for a negative id (garbage values); it is an error here.
    OpCase("embedding_negative_id", _f("embedding"), None, None, FLOATS, grad=False, conformance=False,
           errors=(Err((T(np.array([[0, -1]]), dtype="int64"), _ones(3, 4)), exc=ValueError),)),
    OpCase("one_hot", _f("one_hot"), _one_hot,
           fixed(Sample((T(np.array([0, 1, 4, 2])), 6)), Sample((T(np.array([[0, 1], [3, 2]])),)),
                 Sample((T(np.array(1)), 3)), Sample((T(np.array([1, 0])),), {"num_classes": 2})),
           _INTS, grad=False,
           errors=(Err((T(np.array([0, 1, 4]), dtype="int64"), 3), exc=ValueError, note="value >= num_classes"),
                   Err((T(np.array([-1, 0]), dtype="int64"), 3), exc=ValueError, note="negative value"),
                   Err((T(np.array([1.0, 0.0]), dtype="float32"), 3), exc=RuntimeError, note="float input"),
                   Err(([1, 0], 3), exc=ValueError, note="a list is not a Tensor"))),
    OpCase("label_smooth", _f("label_smooth"), _label_smooth,
           lambda rng, dtype: [Sample((T(np.eye(5)[[0, 1, 4, 2]]),)),
                               Sample((T(np.eye(3)[[0, 2]]),), {"epsilon": 0.3}),
                               Sample((T(np.eye(4)[[3, 1, 2]]), _u(rng, 1, 4, low=0, high=1))),
                               Sample((_u(rng, 2, 3, 4, low=0, high=1),))],
           FLOATS,
           errors=(Err((_ones(2, 3),), {"epsilon": 2.0}, exc=ValueError),
                   Err((_ones(2, 3),), {"epsilon": -0.1}, exc=ValueError),
                   Err((T(np.ones((2, 3)), dtype="int64"),), exc=RuntimeError, note="integer label"))),
    OpCase("cosine_similarity", _f("cosine_similarity"), _cosine, _cosine_samples, FLOATS,
           errors=(Err((_ones(3, 4), _ones(2, 4)), exc=ValueError, note="cannot broadcast"),
                   Err((_ones(3, 4), _ones(3, 4)), {"axis": 4}, exc=IndexError),
                   Err((T(np.ones((3, 4)), dtype="int64"), T(np.ones((3, 4)), dtype="int64")), exc=TypeError))),
    OpCase("pairwise_distance", _f("pairwise_distance"), _pairwise,
           lambda rng, dtype: [Sample((_u(rng, 3, 4), _u(rng, 3, 4))),
                               Sample((_u(rng, 3, 4), _u(rng, 4)), {"p": 1.0, "keepdim": True}),
                               Sample((_u(rng, 2, 3, 4), _u(rng, 2, 3, 4)), {"p": 3.0, "epsilon": 0.0})],
           FLOATS,
           errors=(Err((_ones(3, 4), _ones(3, 5)), exc=ValueError, note="cannot broadcast"),
                   Err((T(np.ones((2, 2)), dtype="int64"), T(np.ones((2, 2)), dtype="int64")), exc=RuntimeError),
                   Err(([1.0, 2.0], _ones(2)), exc=ValueError, note="a list is not a Tensor"))),
    OpCase("diag_embed_functional", _f("diag_embed"), _diag_embed,
           lambda rng, dtype: [Sample((_u(rng, 2, 3),)), Sample((_u(rng, 3),), {"offset": 1})],
           FLOATS, grad=False),
]
