"""Search and sort ops: arg_max/arg_min, argsort, top_k_v2, where, where_index, searchsorted."""
import torch

from ...framework.dtype import check_binary_promotion
from ..registry import REQUIRED, op
from .linalg import KernelDtypeError, ShapeRuntimeError, check_axis, dtype_name

_INF = float("inf")
_INT32 = 2  # Paddle VarType of the arg_max/arg_min ``dtype`` attr; -1 and 3 mean int64


def _no_bool(op_type, X):
    if X.dtype is torch.bool:
        raise KernelDtypeError(f"{op_type}: bool Tensors are not supported; cast to an integer or float dtype")


def _register_arg(op_type, torch_fn, nan_fill):
    def kernel(X, *, axis, keepdims, flatten, dtype):
        _no_bool(op_type, X)
        if dtype not in (-1, 2, 3):
            raise ValueError(f"{op_type}: dtype must be int32 or int64")
        dim = None if flatten else check_axis(op_type, axis, X.dim())
        if X.is_floating_point():
            # NOTE: Paddle's CPU kernel skips NaN (all-NaN gives 0); torch would return the NaN's index.
            X = torch.nan_to_num(X, nan=nan_fill, posinf=_INF, neginf=-_INF)
        try:
            out = torch_fn(X, dim if X.dim() else None, keepdims)
        except (IndexError, RuntimeError):
            raise ValueError(f"{op_type}: cannot reduce an empty axis {axis} of X{list(X.shape)}") from None
        return out.to(torch.int32) if dtype == _INT32 else out
    kernel.__name__ = op_type
    return op(op_type, inputs=["X"], outputs=["Out"],
              attrs={"axis": REQUIRED, "keepdims": False, "flatten": False, "dtype": 3},
              differentiable=False)(kernel)


arg_max = _register_arg("arg_max", torch.argmax, -_INF)
arg_min = _register_arg("arg_min", torch.argmin, _INF)


@op("argsort", inputs=["X"], outputs=["Out", "Indices"], attrs={"axis": -1, "descending": False, "stable": False})
def argsort(X, *, axis, descending, stable):
    """Sorted values and their indices; NaN sorts as the largest value."""
    axis = check_axis("argsort", axis, X.dim())
    _no_bool("argsort", X)
    return tuple(torch.sort(X, dim=axis if X.dim() else -1, descending=descending, stable=stable))


@op("top_k_v2", inputs=["X", "K?"], outputs=["Out", "Indices"],
    attrs={"k": 1, "axis": -1, "largest": True, "sorted": True})
def top_k_v2(X, K, *, k, axis, largest, sorted):
    if K is not None:
        if K.numel() != 1:
            raise ValueError(f"top_k_v2: K must hold one value, got shape {list(K.shape)}")
        k = int(K.reshape(()).item())
    if k < 1:
        raise ValueError(f"top_k_v2: k must be >= 1, got {k}")
    axis = check_axis("top_k_v2", axis, X.dim())
    size = X.shape[axis] if X.dim() else 1
    if k > size:
        raise ValueError(f"top_k_v2: k={k} is larger than X{list(X.shape)}'s size {size} at axis {axis}")
    _no_bool("top_k_v2", X)
    return tuple(torch.topk(X, k, dim=axis if X.dim() else -1, largest=largest, sorted=sorted))


@op("where_index", inputs=["Condition"], outputs=["Out"], differentiable=False)
def where_index(Condition):
    """Indices of the non-zero elements, one row per element: shape [count, rank]."""
    if Condition.dim() == 0:
        raise ValueError("where_index (nonzero): Condition must have at least 1 dimension, got a 0-D tensor")
    return torch.nonzero(Condition)


@op("where", inputs=["Condition", "X", "Y"], outputs=["Out"], spmd="elementwise")
def where(Condition, X, Y):
    if Condition.dtype is not torch.bool:
        raise ValueError(f"where: condition must be a bool Tensor, got {dtype_name(Condition)}")
    if X.dtype is not Y.dtype:
        check_binary_promotion("where", X.dtype, Y.dtype)
    try:
        return torch.where(Condition, X, Y)
    except RuntimeError:
        raise ValueError(f"where: Condition{list(Condition.shape)}, X{list(X.shape)} and Y{list(Y.shape)} "
                         f"cannot broadcast") from None


@op("searchsorted", inputs=["SortedSequence", "Values"], outputs=["Out"],
    attrs={"out_int32": False, "right": False}, differentiable=False)
def searchsorted(SortedSequence, Values, *, out_int32, right):
    """Insertion points of Values in the innermost axis of SortedSequence (paddle.searchsorted's ``sorter``
    reorders SortedSequence with a take_along_axis op first, as Paddle does)."""
    seq = SortedSequence
    if seq.dim() == 0:
        raise ValueError("searchsorted: SortedSequence must have at least 1 dimension, got a 0-D tensor")
    if seq.dim() > 1 and (Values.dim() != seq.dim() or Values.shape[:-1] != seq.shape[:-1]):
        raise ShapeRuntimeError(f"searchsorted: SortedSequence{list(seq.shape)} and Values{list(Values.shape)} "
                                f"must agree in all but the last dimension when SortedSequence is not 1-D")
    _no_bool("searchsorted", seq)
    _no_bool("searchsorted", Values)
    if Values.dtype is not seq.dtype:
        common = torch.promote_types(seq.dtype, Values.dtype)
        seq, Values = seq.to(common), Values.to(common)
    return torch.searchsorted(seq, Values, out_int32=out_int32, right=right)
