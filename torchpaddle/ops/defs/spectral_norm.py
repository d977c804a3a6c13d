"""spectral_norm: a weight divided by its largest singular value, estimated by power iteration (nn.SpectralNorm)."""
import torch

from ..registry import op


def _matrix(Weight, dim):
    """The weight as an [h, w] matrix with axis ``dim`` first."""
    return Weight.movedim(dim, 0).reshape(Weight.shape[dim], -1)


def _power_iteration(matrix, U, V, power_iters, eps):
    """Singular vectors u, v and sigma = u^T W v; U and V only seed the iteration (never written back)."""
    u, v = U.to(matrix.dtype), V.to(matrix.dtype)
    for _ in range(power_iters):
        v = matrix.t().mv(u)
        v = v / (v.norm() + eps)
        u = matrix.mv(v)
        u = u / (u.norm() + eps)
    return u, v, torch.dot(u, matrix.mv(v))


@op("spectral_norm", inputs=["Weight", "U", "V"], outputs=["Out"], attrs={"dim": 0, "power_iters": 1, "eps": 1e-12})
def spectral_norm(Weight, U, V, *, dim, power_iters, eps):
    if Weight.dtype not in (torch.float32, torch.float64):
        raise TypeError(f"spectral_norm: Weight must be float32 or float64, got {Weight.dtype}")
    rank = Weight.dim()
    if rank < 2:
        raise ValueError(f"spectral_norm: Weight must be at least 2-D, got shape {list(Weight.shape)}")
    if not -rank <= dim < rank:
        raise ValueError(f"spectral_norm: dim must be in [{-rank}, {rank}), got {dim} for Weight "
                         f"{list(Weight.shape)}")
    if power_iters < 0:
        raise ValueError(f"spectral_norm: power_iters must be >= 0, got {power_iters}")
    matrix = _matrix(Weight, dim)
    h, w = matrix.shape
    if list(U.shape) != [h] or list(V.shape) != [w]:
        raise ValueError(f"spectral_norm: U{list(U.shape)} and V{list(V.shape)} must be [{h}] and [{w}] for Weight "
                         f"{list(Weight.shape)} with dim={dim}")
    return Weight / _power_iteration(matrix, U, V, power_iters, eps)[2]


@spectral_norm.grad(uses=["Weight", "U", "V"])
def spectral_norm_grad(Weight, U, V, Out_grad, *, dim, power_iters, eps):
    # NOTE: Paddle's kernel computes dW = dOut * (1 - u v^T * sum(W / sigma)) / sigma, elementwise; this is not
    # the true derivative of W / sigma, but it is what Paddle trains with, so we match it.
    matrix = _matrix(Weight, dim)
    u, v, sigma = _power_iteration(matrix, U, V, power_iters, eps)
    grad = _matrix(Out_grad, dim) * (1 - torch.outer(u, v) * (matrix / sigma).sum()) / sigma
    moved = list(Weight.movedim(dim, 0).shape)
    return {"Weight": grad.reshape(moved).movedim(0, dim)}
