"""Op types that programs saved by Paddle's static graph hold but nothing here emits: ``mul`` (what
``paddle.static.nn.fc`` writes), ``matmul`` (v1, with ``alpha``), ``flatten2``, and the optimizer ops of
Paddle's training programs (``sgd``, ``momentum``, ``adam``), so that those run here too."""
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
    attrs={"transpose_X": False, "transpose_Y": False, "alpha": 1.0})
def matmul(X, Y, *, transpose_X, transpose_Y, alpha):
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


# -- the optimizer ops of Paddle's training programs (torchpaddle's own minimize uses optimizer_step) -------
def _lr(LearningRate, Param):
    return LearningRate.reshape(()).to(Param.dtype)


@op("sgd", inputs=["Param", "LearningRate", "Grad"], outputs=["ParamOut"], attrs={"multi_precision": False},
    differentiable=False)
def sgd(Param, LearningRate, Grad, *, multi_precision):
    return Param - _lr(LearningRate, Param) * Grad.to(Param.dtype)


@op("momentum", inputs=["Param", "Grad", "Velocity", "LearningRate"], outputs=["ParamOut", "VelocityOut"],
    attrs={"mu": 0.0, "use_nesterov": False, "regularization_method": "", "regularization_coeff": 0.0,
           "multi_precision": False, "rescale_grad": 1.0}, differentiable=False)
def momentum(Param, Grad, Velocity, LearningRate, *, mu, use_nesterov, regularization_method,
             regularization_coeff, multi_precision, rescale_grad):
    grad = Grad.to(Param.dtype) * rescale_grad
    if regularization_method == "l2_decay":
        grad = grad + regularization_coeff * Param
    velocity = mu * Velocity + grad
    lr = _lr(LearningRate, Param)
    if use_nesterov:
        return Param - (grad + mu * velocity) * lr, velocity
    return Param - lr * velocity, velocity


@op("adam", inputs=["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow", "Moment2Max?"],
    outputs=["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut", "Moment2MaxOut"],
    attrs={"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False,
           "min_row_size_to_use_multithread": 1000, "multi_precision": False, "use_global_beta_pow": False,
           "amsgrad": False}, differentiable=False)
def adam(Param, Grad, LearningRate, Moment1, Moment2, Beta1Pow, Beta2Pow, Moment2Max, *, beta1, beta2, epsilon,
         lazy_mode, min_row_size_to_use_multithread, multi_precision, use_global_beta_pow, amsgrad):
    grad = Grad.to(Param.dtype)
    b1pow, b2pow = Beta1Pow.to(Param.dtype), Beta2Pow.to(Param.dtype)
    # Paddle folds the bias corrections into the step size and scales epsilon the same way
    lr = _lr(LearningRate, Param) * torch.sqrt(1 - b2pow) / (1 - b1pow)
    m1 = beta1 * Moment1 + (1 - beta1) * grad
    m2 = beta2 * Moment2 + (1 - beta2) * grad * grad
    m2max = torch.maximum(Moment2Max, m2) if amsgrad and Moment2Max is not None else None
    denom = torch.sqrt(m2 if m2max is None else m2max) + epsilon * torch.sqrt(1 - b2pow)
    param = Param - lr * (m1 / denom)
    if use_global_beta_pow:
        return param, m1, m2, Beta1Pow, Beta2Pow, m2max
    return param, m1, m2, Beta1Pow * beta1, Beta2Pow * beta2, m2max
