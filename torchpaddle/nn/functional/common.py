"""linear, bilinear, the dropout family, embedding, one_hot, label_smooth and cosine_similarity."""
import numbers

from ... import ops as _ops
from ... import tensor as _pt
from ...framework.tensor import Tensor
from ...ops.registry import AMP as _AMP
from ...tensor._inplace import commit
from ...tensor.creation import diag_embed
from ...tensor.manipulation import _compat
from .activation import _tensor

__all__ = ["linear", "bilinear", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout", "embedding", "one_hot", "label_smooth", "cosine_similarity", "diag_embed"]


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` laid out [in_features, out_features], as in Paddle."""
    _tensor(x, "linear")
    if _AMP.linear is not None and bias is not None:   # under paddle.amp.auto_cast
        return _AMP.linear(x, weight, bias)
    out = _ops.matmul_v2(x, weight, trans_x=False, trans_y=False)
    return out if bias is None else _ops.elementwise_add(out, bias, axis=-1)


def bilinear(x1, x2, weight, bias=None, name=None):
    _tensor(x1, "bilinear")
    return _ops.bilinear_tensor_product(x1, x2, weight, bias)


# -- dropout --------------------------------------------------------------------------------------------------
_MODES = ("downscale_in_infer", "upscale_in_train")


def _probability(p, api, exc=TypeError):
    if isinstance(p, Tensor):
        p = float(p)
    if not isinstance(p, numbers.Real):
        raise exc(f"{api}(): p must be a number, got {type(p).__name__}")
    if p < 0 or p > 1:
        raise ValueError(f"{api}(): p must lie in [0, 1], got {p}")
    return float(p)


@_compat(input="x")
def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode="upscale_in_train", name=None):
    """Zero elements with probability ``p``. ``axis`` shares one draw along the other dimensions.
    'upscale_in_train' scales kept values by 1/(1-p) in training; 'downscale_in_infer' scales by (1-p) at
    inference. Draws come from torch's generator, which ``paddle.seed`` seeds."""
    if isinstance(p, Tensor):
        p = float(p)
    if not isinstance(p, numbers.Real):
        raise TypeError(f"dropout(): p must be a number or a Tensor, got {type(p).__name__}")
    if p == 0:
        return x
    if p < 0 or p > 1:
        raise ValueError(f"dropout(): p must lie in [0, 1], got {p}")
    if mode not in _MODES:
        raise ValueError(f"dropout(): mode must be 'downscale_in_infer' or 'upscale_in_train', got {mode!r}")
    if axis and not isinstance(axis, (int, list, tuple)):
        raise TypeError(f"dropout(): axis must be an int or a list of ints, got {type(axis).__name__}")
    _tensor(x, "dropout")
    implementation = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
    if axis is None:
        out = _ops.dropout(x, None, dropout_prob=float(p), is_test=not training,
                           dropout_implementation=implementation, seed=0, fix_seed=False)[0]
        return commit(x, out, "dropout") if inplace else out
    if inplace:
        raise NotImplementedError("dropout(): inplace is not supported together with axis")
    axes = [axis] if isinstance(axis, int) else list(axis)
    rank = len(x.shape)
    if min(axes) < 0 or max(axes) > rank - 1:
        raise ValueError(f"dropout(): axis values must lie in [0, {rank}) for x of rank {rank}, got {axis}")
    if len(axes) > rank:
        raise ValueError(f"dropout(): axis {axis} has more entries than x has dimensions ({rank})")
    return _ops.dropout_nd(x, None, dropout_prob=float(p), is_test=not training,
                           dropout_implementation=implementation, seed=0, fix_seed=False, axis=axes)[0]


def dropout1d(input, p=0.5, training=True, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout1d(): p must lie in [0, 1], got {p}")
    rank = len(input.shape)
    if rank not in (2, 3):
        raise RuntimeError(f"dropout1d(): expects a 2-D or 3-D input, got {rank}-D")
    if rank == 2:
        return _pt.squeeze(dropout(_pt.unsqueeze(input, 0), p=p, axis=1, training=training), 0)
    return dropout(input, p=p, axis=1, training=training)


def _feature_dropout(api, rank, formats, x, p, training, data_format, name):
    _tensor(x, api)
    if len(x.shape) != rank:
        raise ValueError(f"{api}(): x must be {rank}-D, got shape {list(x.shape)}")
    if data_format not in formats:
        raise ValueError(f"{api}(): data_format must be {formats[0]!r} or {formats[1]!r}, got {data_format!r}")
    axis = [0, 1] if data_format == formats[0] else [0, rank - 1]
    return dropout(x, p=p, axis=axis, training=training, mode="upscale_in_train", name=name)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    return _feature_dropout("dropout2d", 4, ("NCHW", "NHWC"), x, p, training, data_format, name)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    return _feature_dropout("dropout3d", 5, ("NCDHW", "NDHWC"), x, p, training, data_format, name)


def _alpha_dropout(api, feature, x, p, training):
    p = _probability(p, api)
    _tensor(x, api)
    if not training:
        return x
    return _ops.alpha_dropout(x, p=p, is_test=False, feature=feature)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout for SELU networks: dropped values become SELU's negative saturation, then an affine map restores
    zero mean and unit variance."""
    return _alpha_dropout("alpha_dropout", False, x, p, training)


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    return _alpha_dropout("feature_alpha_dropout", True, x, p, training)


# -- lookups --------------------------------------------------------------------------------------------------
@_compat(input="x")
def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False, scale_grad_by_freq=False,
              name=None):
    """Rows of ``weight`` [num_embeddings, dim] picked by the integer ids ``x``. The output row of
    ``padding_idx`` is zero and gets no gradient. Ids outside [0, num_embeddings) raise ValueError."""
    _tensor(x, "embedding")
    rows = weight.shape[0]
    padding_idx = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else rows + padding_idx)
    if rows != 0 and (padding_idx >= rows or padding_idx < -rows):
        raise ValueError(f"embedding(): padding_idx must lie in [-{rows}, {rows}), got {padding_idx}")
    if max_norm and weight.size != 0:
        _ops.embedding_renorm(x, weight, max_norm=float(max_norm), norm_type=float(norm_type))
    if scale_grad_by_freq:
        if sparse:
            raise AttributeError("embedding(): scale_grad_by_freq=True is not supported with sparse update")
        return _ops.embedding_with_scaled_gradient(x, weight, padding_idx=padding_idx)
    return _ops.lookup_table_v2(x, weight, is_sparse=bool(sparse), is_distributed=False, remote_prefetch=bool(sparse),
                                padding_idx=padding_idx)


@_compat(input="x")
def one_hot(x, num_classes=-1, name=None):
    """float32 one-hot rows; ``num_classes=-1`` means ``max(x) + 1``. Values outside [0, num_classes) raise."""
    _tensor(x, "one_hot")
    if isinstance(num_classes, Tensor):
        num_classes = int(num_classes.item())
    if num_classes == -1:
        num_classes = int(x.max()) + 1
    return _ops.one_hot_v2(x, depth=int(num_classes), dtype=5, allow_out_of_range=False)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    if epsilon > 1.0 or epsilon < 0.0:
        raise ValueError(f"label_smooth(): epsilon must lie in [0, 1], got {epsilon}")
    _tensor(label, "label_smooth")
    return _ops.label_smooth(label, prior_dist, epsilon=float(epsilon))


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """Cosine of the angle between x1 and x2 along ``axis`` (broadcasting), the norms' product floored at eps**2."""
    _tensor(x1, "cosine_similarity")
    size1, size2 = x1.shape[axis], x2.shape[axis]
    if size1 == 0 or size2 == 0:
        return _pt.sum(x1 * x2, axis=axis)
    w12 = _pt.sum(x1 * x2, axis=axis)
    w1 = _pt.sum(x1 * x1, axis=axis)
    w2 = _pt.sum(x2 * x2, axis=axis)
    # A broadcast size-1 side counts once per partner element in the norm, as in Paddle.
    size = max(size1, size2)
    if size != size1:
        w1 = w1 * (size / size1)
    if size != size2:
        w2 = w2 * (size / size2)
    return w12 / _pt.sqrt(_pt.clip(w1 * w2, min=eps * eps))
