"""Common nn ops: dropout family, embedding lookup, one_hot, label_smooth. Random ones draw from torch's
default generator (seeded by ``paddle.seed``) unless the op's ``fix_seed``/``seed`` attributes pin one."""
import torch
import torch.nn.functional as F

from ...framework.dtype import from_torch_dtype, _FROM_PROTO
from ..registry import op
from .activation import float_only
from .manipulation import is_meta
from .math_unary import dtype_error
from .random import generator

_DROPOUT_ATTRS = {"dropout_prob": 0.5, "is_test": False, "dropout_implementation": "downgrade_in_infer",
                  "seed": 0, "fix_seed": False}


def _keep_mask(shape, p, X, seed, fix_seed):
    g = generator(seed, X.device) if fix_seed else None
    return torch.rand(shape, dtype=X.dtype, device=X.device, generator=g) >= p


def _eval_dropout(X, p, upscale):
    # A view, not X itself: the output must be a Tensor of its own (stop_gradient, in-place ops).
    return X.view_as(X) if upscale else X * (1.0 - p)


@op("dropout", inputs=["X", "Seed?"], outputs=["Out", "Mask"], attrs=_DROPOUT_ATTRS)
def dropout(X, Seed, *, dropout_prob, is_test, dropout_implementation, seed, fix_seed):
    float_only("dropout", X)
    p = dropout_prob
    upscale = dropout_implementation == "upscale_in_train"
    if is_test:
        return _eval_dropout(X, p, upscale), None
    if Seed is not None:
        seed, fix_seed = int(Seed.reshape(-1)[0]), True
    if p >= 1.0:
        return X * 0.0, torch.zeros(X.shape, dtype=torch.uint8, device=X.device)
    if fix_seed:
        mask = _keep_mask(X.shape, p, X, seed, fix_seed)
        out = X * mask / (1.0 - p) if upscale else X * mask
    else:
        out, mask = torch.native_dropout(X, p, True)
        if not upscale:
            out = X * mask
    # bool and uint8 share an element size: the view costs nothing.
    return out, mask.view(torch.uint8)


@op("dropout_nd", inputs=["X", "Seed?"], outputs=["Out", "Mask"], attrs=dict(_DROPOUT_ATTRS, axis=[]),
    own="Paddle 3.3.1 composes F.dropout with an axis from uniform_random and elementwise ops")
def dropout_nd(X, Seed, *, dropout_prob, is_test, dropout_implementation, seed, fix_seed, axis):
    """Dropout whose mask is shared along every dimension not in ``axis`` (dropout2d/3d drop whole maps)."""
    if X.dtype is torch.bool or X.is_complex():
        raise dtype_error("dropout_nd", "X", X.dtype, "float and integer")
    p = dropout_prob
    upscale = dropout_implementation == "upscale_in_train"
    for a in axis:
        if not 0 <= a < X.dim():
            raise ValueError(f"dropout_nd: axis {a} is out of range [0, {X.dim()}) for X{list(X.shape)}")
    # NOTE: Paddle scales an integer X by the factor cast to an integer (1/(1-p) = 2 for p = 0.5; 1-p -> 0).
    floating = X.is_floating_point()
    if is_test:
        if upscale:
            return X.view_as(X), None
        return X * ((1.0 - p) if floating else int(1.0 - p)), None
    if Seed is not None:
        seed, fix_seed = int(Seed.reshape(-1)[0]), True
    shape = [X.shape[i] if i in axis else 1 for i in range(X.dim())]
    if p >= 1.0:
        return X * 0, torch.zeros(shape, dtype=torch.uint8, device=X.device)
    g = generator(seed, X.device) if fix_seed else None
    mask = torch.rand(shape, device=X.device, generator=g,
                      dtype=X.dtype if floating else torch.float32) >= p
    if upscale:
        scale = 1.0 / (1.0 - p)
        out = X * (mask / (1.0 - p)).to(X.dtype) if floating else X * int(scale) * mask
    else:
        out = X * mask
    return out, mask.view(torch.uint8)


def _dropout_grad(Mask, Out_grad, *, dropout_prob, is_test, dropout_implementation, **_):
    # As Paddle's dropout_grad, from the Mask the forward drew: a recompute would draw another.
    if Out_grad is None or not Out_grad.is_floating_point():
        return None
    p = dropout_prob
    upscale = dropout_implementation == "upscale_in_train"
    if is_test:
        return {"X": Out_grad if upscale else Out_grad * (1.0 - p)}
    if p >= 1.0:
        return {"X": torch.zeros_like(Out_grad)}
    keep = Mask.to(Out_grad.dtype)
    return {"X": Out_grad * keep / (1.0 - p) if upscale else Out_grad * keep}


dropout.grad(uses=["Mask"], autograd=False)(_dropout_grad)
dropout_nd.grad(uses=["Mask"], autograd=False)(_dropout_grad)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@op("alpha_dropout", attrs={"p": 0.5, "is_test": False, "feature": False},
    own="Paddle 3.3.1 composes F.alpha_dropout from uniform_random and elementwise ops")
def alpha_dropout(X, *, p, is_test, feature):
    """Dropout that keeps SELU's self-normalising mean and variance (no legacy Paddle op; Paddle composes it)."""
    float_only("alpha_dropout", X)
    if is_test:
        return X.view_as(X)
    if p >= 1.0:
        return X * 0.0
    if feature:
        if X.dim() < 2:
            raise ValueError(f"feature_alpha_dropout: X must be at least 2-D, got {list(X.shape)}")
        shape = list(X.shape[:2]) + [1] * (X.dim() - 2)
    else:
        shape = X.shape
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = (torch.rand(shape, dtype=X.dtype, device=X.device) >= p).to(X.dtype)
    return a * (X * keep + alpha_p * (1.0 - keep)) + b


def _check_ids(op_type, Ids, W):
    if Ids.dtype not in (torch.int32, torch.int64):
        raise NotImplementedError(f"{op_type}: Ids must be int32 or int64, got {from_torch_dtype(Ids.dtype).name}")
    if W.dim() != 2:
        raise ValueError(f"{op_type}: W (the lookup table) must be 2-D, got shape {list(W.shape)}")
    float_only(op_type, W, "W")
    rows = W.shape[0]
    if Ids.numel() and not is_meta(Ids):
        low, high = torch.stack(torch.aminmax(Ids)).tolist()
        # NOTE: Paddle reads out of bounds for negative ids; they are an error here.
        if low < 0 or high >= rows:
            raise ValueError(f"{op_type}: Ids must lie in [0, {rows}), got values in [{low}, {high}]")


def _lookup(Ids, W, padding_idx, scale_grad_by_freq=False):
    out = F.embedding(Ids, W, scale_grad_by_freq=scale_grad_by_freq)
    if padding_idx >= 0:
        # NOTE: Paddle's output row for padding_idx is zero (torch only zeroes its gradient).
        out = out.masked_fill((Ids == padding_idx).unsqueeze(-1), 0.0)
    return out


@op("lookup_table_v2", inputs=["Ids", "W"], outputs=["Out"],
    attrs={"is_sparse": False, "is_distributed": False, "remote_prefetch": False, "padding_idx": -1})
def lookup_table_v2(Ids, W, *, is_sparse, is_distributed, remote_prefetch, padding_idx):
    _check_ids("lookup_table_v2", Ids, W)
    return _lookup(Ids, W, padding_idx)


@op("embedding_with_scaled_gradient", inputs=["x", "weight"], outputs=["out"], attrs={"padding_idx": -1})
def embedding_with_scaled_gradient(x, weight, *, padding_idx):
    _check_ids("embedding_with_scaled_gradient", x, weight)
    return _lookup(x, weight, padding_idx, scale_grad_by_freq=True)


@op("embedding_renorm", inputs=["x", "weight"], outputs=["out"], attrs={"max_norm": 1.0, "norm_type": 2.0},
    differentiable=False, own="F.embedding's max_norm renormalisation is a PIR-only op (no OpProto) in Paddle 3.3.1")
def embedding_renorm(x, weight, *, max_norm, norm_type):
    """Rescale, in place, the rows of ``weight`` that ``x`` looks up whose norm exceeds ``max_norm``."""
    _check_ids("embedding_renorm", x, weight)
    with torch.no_grad():
        torch.embedding_renorm_(weight, x.reshape(-1).to(torch.int64), max_norm, norm_type)
    return weight


@op("one_hot_v2", outputs=["Out"], attrs={"depth": -1, "dtype": 5, "allow_out_of_range": False},
    differentiable=False)
def one_hot_v2(X, *, depth, dtype, allow_out_of_range):
    if X.dtype not in (torch.int32, torch.int64):
        raise dtype_error("one_hot_v2", "X", X.dtype, "int32 and int64")
    if depth < 0:
        raise ValueError(f"one_hot_v2: depth must be >= 0, got {depth}")
    index = X.to(torch.int64)
    inside = None
    if X.numel() and not is_meta(X):
        low, high = torch.stack(torch.aminmax(index)).tolist()
        if low < 0 or high >= depth:
            if not allow_out_of_range:
                raise ValueError(f"one_hot_v2: X must lie in [0, {depth}), got values in [{low}, {high}]")
            inside = (index >= 0) & (index < depth)
            index = torch.where(inside, index, 0)
    out = F.one_hot(index, depth).to(_FROM_PROTO[dtype].torch)
    if inside is not None:
        out = out * inside.unsqueeze(-1)
    return out


@op("label_smooth", inputs=["X", "PriorDist?"], outputs=["Out"], attrs={"epsilon": 0.0})
def label_smooth(X, PriorDist, *, epsilon):
    float_only("label_smooth", X)
    if X.dim() == 0:
        raise ValueError("label_smooth: X must have at least one dimension")
    if PriorDist is None:
        return (1.0 - epsilon) * X + epsilon / X.shape[-1]
    if PriorDist.dtype is not X.dtype:
        raise ValueError(f"label_smooth: PriorDist has dtype {PriorDist.dtype} but X has {X.dtype}")
    if PriorDist.numel() != X.shape[-1]:
        raise ValueError(f"label_smooth: PriorDist{list(PriorDist.shape)} must hold {X.shape[-1]} values")
    return (1.0 - epsilon) * X + epsilon * PriorDist.reshape(-1)
