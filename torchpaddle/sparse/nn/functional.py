"""paddle.sparse.nn.functional. Activations work on the stored values. torch has no sparse convolution or
pooling kernels, so conv/subm_conv/max_pool densify the input, run torch's dense kernel and re-sparsify: a
regular conv or pool keeps every output site its window sees a stored input at; a submanifold conv keeps
exactly the input's sites. They cost the memory of the dense tensor."""
import math

import torch
import torch.nn.functional as tF

from ...framework.tensor import wrap
from ..creation import like, rewrap, values_of
from ..math import _dense, _sparse

__all__ = ["relu", "relu6", "leaky_relu", "softmax", "attention", "conv2d", "conv3d", "subm_conv2d",
           "subm_conv3d", "max_pool3d"]


def relu(x, name=None):
    t = _sparse(x, "relu")
    return rewrap(x, like(t, torch.relu(values_of(t))))


def relu6(x, name=None):
    t = _sparse(x, "relu6")
    return rewrap(x, like(t, tF.relu6(values_of(t))))


def leaky_relu(x, negative_slope=0.01, name=None):
    t = _sparse(x, "leaky_relu")
    return rewrap(x, like(t, tF.leaky_relu(values_of(t), negative_slope)))


def softmax(x, axis=-1, name=None):
    """Softmax over the stored entries along ``axis`` (absent entries count as -inf, not 0)."""
    t = _sparse(x, "softmax")
    if t.layout is torch.sparse_csr:
        if axis not in (-1, t.dim() - 1):
            raise ValueError(f"sparse.nn.functional.softmax: a CSR tensor supports axis=-1 only, got {axis}")
        return rewrap(x, torch.sparse.softmax(t.to_sparse_coo(), t.dim() - 1).to_sparse_csr())
    if not -t.dim() <= axis < t.dim():
        raise ValueError(f"sparse.nn.functional.softmax: axis {axis} is out of range for a {t.dim()}-D tensor")
    return rewrap(x, torch.sparse.softmax(t.coalesce(), axis % t.dim()))


def attention(query, key, value, sparse_mask, key_padding_mask=None, attn_mask=None, name=None):
    """softmax(q k^T / sqrt(d)) v over the pattern of ``sparse_mask`` (CSR [batch*heads, seq, seq]); q, k, v
    are dense [batch, heads, seq, d]; key_padding_mask [batch, seq] and attn_mask [seq, seq] hold 0 where
    attention is cut. Returns a dense [batch, heads, seq, d]. Computed densely."""
    q, k, v = (_dense(a, "attention", n) for a, n in ((query, "query"), (key, "key"), (value, "value")))
    m = _sparse(sparse_mask, "attention", "sparse_mask")
    if q.dim() != 4 or k.shape != q.shape or v.shape[:3] != q.shape[:3]:
        raise ValueError(f"sparse.nn.functional.attention: query, key, value must be [batch, heads, seq, d], "
                         f"got {list(q.shape)}, {list(k.shape)}, {list(v.shape)}")
    b, h, s, d = q.shape
    if list(m.shape) != [b * h, s, s]:
        raise ValueError(f"sparse.nn.functional.attention: sparse_mask must be [{b * h}, {s}, {s}], got "
                         f"{list(m.shape)}")
    keep = m.to_dense().reshape(b, h, s, s) != 0
    if key_padding_mask is not None:
        keep = keep & (key_padding_mask._t.reshape(b, 1, 1, s) != 0)
    if attn_mask is not None:
        keep = keep & (attn_mask._t.reshape(1, 1, s, s) != 0)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d)
    scores = scores.masked_fill(~keep, float("-inf"))
    probs = torch.softmax(scores, dim=-1).nan_to_num(0.0)   # a row with nothing kept attends to nothing
    return wrap(torch.matmul(probs, v))


# -- convolution and pooling (dense fallback) -----------------------------------------------------------
def _tuple(value, n, what, op):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"sparse.nn.functional.{op}: {what} must be an int or {n} ints, got {value}")
    return value


def _input(x, n, op, data_format):
    expected = "NHWC" if n == 2 else "NDHWC"
    if data_format != expected:
        raise ValueError(f"sparse.nn.functional.{op}: data_format must be {expected!r}, got {data_format!r}")
    t = _sparse(x, op)
    if t.layout is not torch.sparse_coo or t.dim() != n + 2 or t.sparse_dim() != n + 1:
        raise ValueError(f"sparse.nn.functional.{op}: x must be a SparseCooTensor {expected} with the channel "
                         f"as its only dense dim (to_sparse_coo({n + 1})), got shape {list(t.shape)}")
    return t.coalesce()


def _sites(t, n):
    """Occupancy of the stored sites of COO ``t`` [N, *spatial, C] as a dense float [N, 1, *spatial]."""
    occ = torch.zeros(t.shape[:n + 1], dtype=t.dtype, device=t.device)
    occ[tuple(t._indices())] = 1
    return occ.unsqueeze(1)


def _channels_first(dense, n):
    return dense.permute(0, n + 1, *range(1, n + 1))


def _gather(out, index, n):
    """Dense channels-first ``out`` at sites ``index`` [n+1, nnz] -> a hybrid COO [N, *spatial, C]."""
    last = out.permute(0, *range(2, n + 2), 1)
    return torch.sparse_coo_tensor(index, last[tuple(index)], last.shape)


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, n, subm, op):
    t = _input(x, n, op, data_format)
    w = _dense(weight, op, "weight")
    if groups != 1:   # as Paddle's sparse convolutions
        raise ValueError(f"sparse.nn.functional.{op}: only groups=1 is supported, got {groups}")
    if w.dim() != n + 2 or w.shape[n] * groups != t.shape[-1]:
        raise ValueError(f"sparse.nn.functional.{op}: weight must be [*kernel, in_channels/groups, "
                         f"out_channels] matching x's {t.shape[-1]} channels, got {list(w.shape)}")
    stride, dilation = _tuple(stride, n, "stride", op), _tuple(dilation, n, "dilation", op)
    kernel = tuple(w.shape[:n])
    if subm:
        if any(s != 1 for s in stride):
            raise ValueError(f"sparse.nn.functional.{op}: a submanifold conv needs stride 1, got {stride}")
        padding = tuple(d * (k - 1) // 2 for d, k in zip(dilation, kernel))
    else:
        padding = _tuple(padding, n, "padding", op)
    conv = tF.conv2d if n == 2 else tF.conv3d
    w_torch = w.permute(n + 1, n, *range(n))          # [*k, Cin, Cout] -> [Cout, Cin, *k]
    b = None if bias is None else bias._t
    dense = _channels_first(t.to_dense(), n)
    out = conv(dense, w_torch, b, stride, padding, dilation, groups)
    if subm:
        index = t._indices()
    else:
        ones = torch.ones((1, 1) + kernel, dtype=t.dtype, device=t.device)
        reach = conv(_sites(t, n), ones, None, stride, padding, dilation)
        index = reach[:, 0].nonzero().T
    return rewrap(x, _gather(out, index, n))


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", name=None):
    """Sparse 2-D conv of a COO [N, H, W, C] with weight [kH, kW, C/groups, M] (dense fallback)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, False, "conv2d")


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    """Sparse 3-D conv of a COO [N, D, H, W, C] with weight [kD, kH, kW, C/groups, M] (dense fallback)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, False, "conv3d")


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                name=None):
    """Submanifold 2-D conv: outputs only at x's sites, kernel centred (padding is implied; dense fallback)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2, True, "subm_conv2d")


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    """Submanifold 3-D conv: outputs only at x's sites, kernel centred (padding is implied; dense fallback)."""
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3, True, "subm_conv3d")


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC", name=None):
    """Max over the stored entries in each window of a COO [N, D, H, W, C] (dense fallback)."""
    t = _input(x, 3, "max_pool3d", data_format)
    kernel = _tuple(kernel_size, 3, "kernel_size", "max_pool3d")
    stride = kernel if stride is None else _tuple(stride, 3, "stride", "max_pool3d")
    padding = _tuple(padding, 3, "padding", "max_pool3d")
    occ = _sites(t, 3)
    dense = _channels_first(t.to_dense(), 3).masked_fill(occ == 0, float("-inf"))
    out = tF.max_pool3d(dense, kernel, stride, padding, ceil_mode=ceil_mode)
    reach = tF.max_pool3d(occ, kernel, stride, padding, ceil_mode=ceil_mode)
    return rewrap(x, _gather(out, reach[:, 0].nonzero().T, 3))


