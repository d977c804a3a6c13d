"""paddle.sparse cases, run on real PaddlePaddle 3.3.1 (``python -m tests.sparse.sparse_cases OUT.pkl``) and on
torchpaddle by tests/sparse/test_sparse_reference.py. A sparse result is recorded as its layout, shape, dtype,
nnz, (coalesced) indices or crows/cols, and dense value; never through ``numpy()`` (Paddle crashes there)."""
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, record, stable_seed


def sp(x):
    """Plain data of a dense or sparse tensor."""
    if not (hasattr(x, "is_sparse") and x.is_sparse()):
        return record(x)
    out = {"layout": "coo" if x.is_sparse_coo() else "csr", "shape": list(x.shape),
           "dtype": str(x.dtype).replace("paddle.", ""), "nnz": int(x.nnz()),
           "dense": ("A", np.array(x.to_dense().numpy())), "stop_gradient": bool(x.stop_gradient)}
    if x.is_sparse_coo():
        # Paddle has no bool coalesce kernel; a bool result here comes from an already sorted input
        coalesced = x if out["dtype"] == "bool" else x.coalesce()
        out["indices"] = ("A", np.array(coalesced.indices().numpy()))
    else:
        out["crows"] = ("A", np.array(x.crows().numpy()))
        out["cols"] = ("A", np.array(x.cols().numpy()))
    return out


DENSE = [[0.0, 1.5, 0.0, -0.5], [2.0, 0.0, -3.0, 0.0], [0.0, 0.0, 0.0, 0.25]]
OTHER = [[1.0, 0.0, 0.0, 2.0], [2.0, 0.0, 0.5, 0.0], [0.0, 0.0, 0.0, -1.0]]
POSITIVE = [[0.0, 0.5, 0.0, 0.25], [0.75, 0.0, 0.125, 0.0], [0.0, 0.0, 0.0, 0.5]]


def _pair(paddle, data=DENSE, layout="coo", stop_gradient=True, dtype="float32"):
    d = paddle.to_tensor(np.array(data, dtype))
    s = d.to_sparse_coo(2) if layout == "coo" else d.to_sparse_csr()
    s.stop_gradient = stop_gradient
    return s


def _grad_case(paddle, fn, data=DENSE, layout="coo", dtype="float64"):
    """Forward and the gradient of sum(w * to_dense(fn(x))) with respect to sparse x."""
    rng = np.random.default_rng(7)
    x = _pair(paddle, data, layout, stop_gradient=False, dtype=dtype)
    y = fn(x)
    dense = y.to_dense() if hasattr(y, "is_sparse") and y.is_sparse() else y
    w = paddle.to_tensor(rng.uniform(-1, 1, list(dense.shape)).astype(dtype))
    (dense * w).sum().backward()
    return {"out": sp(y), "grad": sp(x.grad)}


def c_create_coo(paddle):
    s = paddle.sparse
    x = s.sparse_coo_tensor([[0, 1, 2, 0], [1, 2, 0, 1]], [1.0, 2.0, 3.0, 4.0], [3, 3])
    # NOTE: Paddle's to_dense of duplicate indices keeps one value where coalesce (and torchpaddle) sums them,
    # so the duplicated tensor is only read through indices/values/coalesce
    unsorted = s.sparse_coo_tensor([[2, 0, 1], [0, 1, 2]], [3.0, 1.0, 2.0], [3, 3])
    return {"x": sp(unsorted), "unsorted_indices": record(unsorted.indices()),
            "raw_indices": record(x.indices()), "raw_values": record(x.values()),
            "is_coalesced": x.is_coalesced(), "coalesced": sp(x.coalesce()),
            "coalesced_flag": x.coalesce().is_coalesced(), "flags": [x.is_sparse(), x.is_sparse_coo(),
                                                                       x.is_sparse_csr()],
            "repr": repr(x), "inferred": sp(s.sparse_coo_tensor([[0, 5], [1, 0]], [1.0, 2.0])),
            "ints": sp(s.sparse_coo_tensor([[0, 1]], [1, 2], [3])),
            "cast_dtype": sp(s.sparse_coo_tensor([[0, 1]], [1, 2], [3], dtype="float64")),
            "hybrid": sp(s.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], [3, 2])),
            "grad_flag": s.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3], stop_gradient=False).stop_gradient,
            "bad_shape": catch(lambda: s.sparse_coo_tensor([[0, 5]], [1.0, 2.0], [3])),
            "bad_nnz": catch(lambda: s.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], [3]))}


def c_create_csr(paddle):
    s = paddle.sparse
    x = s.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1.0, 2.0, 3.0, 4.0, 5.0], [3, 4])
    return {"x": sp(x), "values": record(x.values()), "repr": repr(x), "flags": [x.is_sparse(), x.is_sparse_coo(),
                                                                                x.is_sparse_csr()],
            "to_coo": sp(x.to_sparse_coo(2)), "batched": sp(paddle.ones([2, 2, 3]).to_sparse_csr()),
            "bad_last": catch(lambda: s.sparse_csr_tensor([0, 1, 3], [1, 0], [1.0, 2.0], [2, 2]))}


def c_convert(paddle):
    d = paddle.to_tensor(np.array(DENSE, "float32"))
    coo, csr = d.to_sparse_coo(2), d.to_sparse_csr()
    return {"coo": sp(coo), "csr": sp(csr), "coo_to_csr": sp(coo.to_sparse_csr()), "csr_to_coo":
            sp(csr.to_sparse_coo(2)), "back": record(coo.to_dense()), "hybrid": sp(d.to_sparse_coo(1)),
            "coo_repr": repr(coo), "csr_repr": repr(csr), "hybrid_repr": repr(d.to_sparse_coo(1))}


UNARY = ["abs", "asin", "asinh", "atan", "atanh", "sin", "sinh", "sqrt", "square", "tan", "tanh", "log1p",
         "expm1", "neg", "deg2rad", "rad2deg"]


def _unary_case(op):
    def case(paddle):
        fn = getattr(paddle.sparse, op)
        return {"coo": _grad_case(paddle, fn, POSITIVE), "csr": sp(fn(_pair(paddle, POSITIVE, "csr"))),
                "f32": sp(fn(_pair(paddle, POSITIVE)))}
    return case


for _op in UNARY:
    globals()[f"c_unary_{_op}"] = _unary_case(_op)


def c_pow_isnan_cast(paddle):
    s = paddle.sparse
    x = _pair(paddle)
    cast = s.cast(x, "int32", "float64")
    cast_csr = s.cast(_pair(paddle, layout="csr"), "int32", "float64")
    return {"pow": _grad_case(paddle, lambda v: s.pow(v, 3)), "isnan": sp(s.isnan(x)),
            "cast": sp(cast), "cast_index": str(cast.indices().dtype).replace("paddle.", ""),
            "cast_csr": sp(cast_csr), "cast_csr_index": str(cast_csr.crows().dtype).replace("paddle.", "")}


def _binary_case(op):
    def case(paddle):
        s = paddle.sparse
        fn = getattr(s, op)
        y = _pair(paddle, OTHER)
        return {"coo": _grad_case(paddle, lambda x: fn(x, y)),
                "csr": sp(fn(_pair(paddle, layout="csr"), _pair(paddle, OTHER, "csr"))),
                "mixed": catch(lambda: fn(_pair(paddle), _pair(paddle, OTHER, "csr"))),
                "scalar": catch(lambda: sp(fn(_pair(paddle), 2.0)))}
    return case


for _op in ["add", "subtract", "multiply", "divide"]:
    globals()[f"c_binary_{_op}"] = _binary_case(_op)


def c_sum(paddle):
    s = paddle.sparse
    return {"all": sp(s.sum(_pair(paddle))), "axis0": _grad_case(paddle, lambda x: s.sum(x, axis=0)),
            "axis1_keep": sp(s.sum(_pair(paddle), axis=1, keepdim=True)),
            "dtype": sp(s.sum(_pair(paddle), dtype="float64")),
            "csr_last": sp(s.sum(_pair(paddle, layout="csr"), axis=-1, keepdim=True)),
            "csr_all": sp(s.sum(_pair(paddle, layout="csr")))}


def c_reshape_transpose(paddle):
    s = paddle.sparse
    return {"reshape": _grad_case(paddle, lambda x: s.reshape(x, [2, -1, 2])),
            "reshape_csr": sp(s.reshape(_pair(paddle, layout="csr"), [4, 3])),
            "transpose": _grad_case(paddle, lambda x: s.transpose(x, [1, 0])),
            "transpose_csr": sp(s.transpose(_pair(paddle, layout="csr"), [1, 0]))}


def c_slice(paddle):
    s = paddle.sparse
    coo = _grad_case(paddle, lambda x: s.slice(x, [0, 1], [1, -3], [3, 10]))
    # Paddle's gradient stores only the sliced-in entries, ours every entry of x (zeros outside): compare values
    coo["grad"] = coo["grad"]["dense"]
    return {"coo": coo,
            "csr": sp(s.slice(_pair(paddle, layout="csr"), [1], [1], [3]))}


def c_mask_as(paddle):
    s = paddle.sparse
    rng = np.random.default_rng(3)
    d = paddle.to_tensor(rng.uniform(-1, 1, [3, 4]).astype("float64"), stop_gradient=False)
    out = s.mask_as(d, _pair(paddle, dtype="float64"))
    (out.to_dense() * 2).sum().backward()
    return {"coo": sp(out), "grad": record(d.grad), "csr": sp(s.mask_as(d.detach(), _pair(paddle, layout="csr",
                                                                                         dtype="float64"))),
            "same": [s.is_same_shape(d, _pair(paddle)), s.is_same_shape(d, paddle.ones([4, 3]))]}


def c_activations(paddle):
    F = paddle.sparse.nn.functional
    nn = paddle.sparse.nn
    return {"relu": _grad_case(paddle, F.relu), "relu_csr": sp(F.relu(_pair(paddle, layout="csr"))),
            "relu6": sp(nn.ReLU6()(_pair(paddle, [[0.0, 7.0], [-1.0, 3.0]]))),
            "leaky": sp(nn.LeakyReLU(0.2)(_pair(paddle))),
            "softmax": _grad_case(paddle, F.softmax), "softmax_csr": sp(nn.Softmax()(_pair(paddle, layout="csr"))),
            "softmax_axis0": sp(F.softmax(_pair(paddle), axis=0))}


def _voxels(paddle, shape, nnz, channels, seed, stop_gradient=True):
    rng = np.random.default_rng(seed)
    flat = rng.choice(int(np.prod(shape)), nnz, replace=False)
    index = np.stack(np.unravel_index(np.sort(flat), shape)).astype("int64")
    dense = np.zeros(list(shape) + [channels], "float32")
    dense[tuple(index)] = rng.uniform(0.1, 1, [nnz, channels]) * rng.choice([-1, 1], [nnz, channels])
    # built from a dense tensor: Paddle gives no x.grad to a leaf made by sparse_coo_tensor(stop_gradient=False)
    x = paddle.to_tensor(dense).to_sparse_coo(len(shape))
    x.stop_gradient = stop_gradient
    return x


def _conv_case(paddle, layer_fn, shape, nnz, channels, name):
    rng = np.random.default_rng(stable_seed(name))
    x = _voxels(paddle, shape, nnz, channels, stable_seed(name) % 1000, stop_gradient=False)
    with paddle.utils.unique_name.guard():
        layer = layer_fn(paddle.sparse.nn)
    for p in layer.parameters():
        p.set_value(rng.uniform(-0.5, 0.5, list(p.shape)).astype("float32"))
    y = layer(x)
    w = paddle.to_tensor(rng.uniform(-1, 1, list(y.shape)).astype("float32"))
    (y.to_dense() * w).sum().backward()
    return {"out": sp(y), "x_grad": sp(x.grad),
            "param_grads": {n: record(p.grad) for n, p in layer.named_parameters()}}


def c_conv3d(paddle):
    return _conv_case(paddle, lambda nn: nn.Conv3D(3, 4, 3, stride=1, padding=1), [2, 4, 4, 4], 12, 3, "conv3d")


def c_conv3d_stride(paddle):
    return _conv_case(paddle, lambda nn: nn.Conv3D(2, 3, 2, stride=2, padding=0, bias_attr=False),
                      [1, 4, 4, 4], 10, 2, "conv3d_stride")


def c_subm_conv3d(paddle):
    return _conv_case(paddle, lambda nn: nn.SubmConv3D(3, 4, 3, padding=1), [2, 4, 4, 4], 12, 3, "subm3d")


def c_conv2d(paddle):
    return _conv_case(paddle, lambda nn: nn.Conv2D(3, 2, 3, padding=1), [2, 5, 5], 8, 3, "conv2d")


def c_subm_conv2d(paddle):
    return _conv_case(paddle, lambda nn: nn.SubmConv2D(3, 2, 3, padding=1), [2, 5, 5], 8, 3, "subm2d")


def c_conv3d_groups_dilation(paddle):
    out = _conv_case(paddle, lambda nn: nn.Conv3D(4, 2, [1, 3, 3], padding=[0, 2, 2], dilation=[1, 2, 2]),
                     [1, 3, 5, 5], 9, 4, "conv3d_gd")
    return out


def c_max_pool3d_padded(paddle):
    x = _voxels(paddle, [2, 5, 5, 5], 20, 3, 11)
    return sp(paddle.sparse.nn.functional.max_pool3d(x, 3, stride=2, padding=1))


def c_layer_reprs(paddle):
    nn = paddle.sparse.nn
    with paddle.utils.unique_name.guard():
        layers = [nn.Conv3D(3, 4, 3, stride=2, padding=1), nn.SubmConv3D(3, 4, (1, 3, 3), dilation=2),
                  nn.Conv2D(2, 4, 3, padding=[1, 0]), nn.SubmConv2D(2, 3, 3, bias_attr=False), nn.MaxPool3D(2, 1, 1),
                  nn.BatchNorm(4), nn.SyncBatchNorm(4, data_format="NDHWC"), nn.ReLU(), nn.ReLU6(),
                  nn.LeakyReLU(0.2), nn.Softmax(-1)]
        converted = nn.SyncBatchNorm.convert_sync_batchnorm(paddle.nn.Sequential(nn.BatchNorm(3), nn.ReLU()))
    return {"reprs": [repr(layer) for layer in layers], "converted": repr(converted),
            "state": [[(k, list(v.shape), str(v.dtype).replace("paddle.", "")) for k, v in layer.state_dict().items()]
                      for layer in layers]}


def c_max_pool3d(paddle):
    x = _voxels(paddle, [1, 4, 4, 4], 14, 2, 5, stop_gradient=False)
    y = paddle.sparse.nn.MaxPool3D(2, 2)(x)
    (y.to_dense() * 3).sum().backward()
    return {"out": sp(y), "x_grad": sp(x.grad)}


def c_batch_norm(paddle):
    x = _voxels(paddle, [2, 3, 3, 3], 10, 4, 9, stop_gradient=False)
    with paddle.utils.unique_name.guard():
        bn = paddle.sparse.nn.BatchNorm(4)
    y = bn(x)
    rng = np.random.default_rng(2)
    (y.to_dense() * paddle.to_tensor(rng.uniform(-1, 1, list(y.shape)).astype("float32"))).sum().backward()
    out = {"out": sp(y), "x_grad": sp(x.grad), "weight_grad": record(bn.weight.grad),
           # values only: Paddle's sparse BatchNorm reports stop_gradient=False on its running statistics
           "state": {k: ("A", np.array(v.numpy())) for k, v in bn.state_dict().items()}}
    # NOTE: Paddle's layer keeps using batch statistics in eval once it has run in training (its forward pins
    # use_global_stats=False); a fresh layer holding the trained state uses the running ones, as here
    with paddle.utils.unique_name.guard():
        fresh = paddle.sparse.nn.BatchNorm(4)
    fresh.set_state_dict(bn.state_dict())
    fresh.eval()
    out["eval"] = sp(fresh(x.detach()))
    return out


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
