"""Op types that programs saved by Paddle's static graph hold but nothing here emits: ``mul`` (what
``paddle.static.nn.fc`` writes), ``matmul`` (v1, with ``alpha``) and ``flatten2``, so that those run here too
(the optimizer ops of training programs are in optimizer.py)."""
import math

import torch

from ..registry import op


def _rows_cols(x, num_col_dims, op_type, slot):
    if not 1 <= num_col_dims < x.dim():
        raise ValueError(f"{op_type}: {slot.lower()}_num_col_dims must be in [1, {x.dim() - 1}] for {slot} of "
                         f"shape {list(x.shape)}, got {num_col_dims}")
    return math.prod(x.shape[:num_col_dims]), math.prod(x.shape[num_col_dims:])


@op("mul", inputs=["X", "Y"], outputs=["Out"], attrs={"x_num_col_dims": 1, "y_num_col_dims": 1})
def mul(X, Y, *, x_num_col_dims, y_num_col_dims):
    # X flattens to 2-D at x_num_col_dims, Y at y_num_col_dims; the product keeps both outer shapes
    x_rows, x_cols = _rows_cols(X, x_num_col_dims, "mul", "X")
    y_rows, y_cols = _rows_cols(Y, y_num_col_dims, "mul", "Y")
    if x_cols != y_rows:
        raise ValueError(f"mul: X{list(X.shape)} flattened at x_num_col_dims={x_num_col_dims} has {x_cols} "
                         f"columns, Y{list(Y.shape)} flattened at y_num_col_dims={y_num_col_dims} has {y_rows} rows")
    out = torch.matmul(X.reshape(x_rows, x_cols), Y.reshape(y_rows, y_cols))
    return out.reshape(list(X.shape[:x_num_col_dims]) + list(Y.shape[y_num_col_dims:]))


@op("matmul", inputs=["X", "Y"], outputs=["Out"],
    attrs={"transpose_X": False, "transpose_Y": False, "alpha": 1.0, "head_number": 1})
def matmul(X, Y, *, transpose_X, transpose_Y, alpha, head_number):
    if head_number != 1:
        raise NotImplementedError(f"matmul: head_number={head_number} (the fused multi-head form) is not supported "
                                  "by torchpaddle")
    if transpose_X and X.dim() > 1:
        X = X.mT
    if transpose_Y and Y.dim() > 1:
        Y = Y.mT
    try:
        out = torch.matmul(X, Y)
    except RuntimeError:
        raise ValueError(f"matmul: X{list(X.shape)} (transpose_X={transpose_X}) and Y{list(Y.shape)} "
                         f"(transpose_Y={transpose_Y}) cannot be multiplied") from None
    return out if alpha == 1.0 else out * alpha


@op("flatten2", inputs=["X"], outputs=["Out", "XShape"], attrs={"axis": 1})
def flatten2(X, *, axis):
    if not 0 <= axis <= X.dim():
        raise ValueError(f"flatten2: axis must be in [0, {X.dim()}] for X of shape {list(X.shape)}, got {axis}")
    out = X.reshape(math.prod(X.shape[:axis]), math.prod(X.shape[axis:]))
    # XShape carries only the input's shape (behind a leading 0), for the grad op
    return out, X.new_empty((0,) + tuple(X.shape))
