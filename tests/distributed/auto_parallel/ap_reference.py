"""Auto-parallel API as real PaddlePaddle 3.3.1 has it, for tests/distributed/auto_parallel.

``api_results(dist)`` runs the same probes on any ``paddle.distributed`` (real or torchpaddle's), one process,
no communication: ProcessMesh and placement behaviour. ``spmd_results(cases)`` answers SPMD cases recorded by
the rank workers with Paddle's own rules (``core.get_phi_spmd_rule(rule).infer_forward``). Run in the
reference venv: ``python -m tests.distributed.auto_parallel.ap_reference OUT.pkl [CASES.pkl]``.
"""
import pickle
import sys


def _mesh(m):
    return (list(m.shape), list(m.process_ids), list(m.dim_names))


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return ("E", type(e).__name__)


def api_results(dist):
    res = {}
    Shard, Replicate, Partial, ReduceType = dist.Shard, dist.Replicate, dist.Partial, dist.ReduceType
    places = {"S0": Shard(0), "S1": Shard(1), "S-1": Shard(-1), "S0o1": Shard(0, shard_order=1),
              "S0f2": Shard(0, split_factor=2), "R": Replicate(), "P": Partial(),
              "Pmax": Partial(ReduceType.kRedMax)}
    for name, reduce_type in ReduceType.__members__.items():
        places[f"P{name}"] = Partial(reduce_type)
        res[f"reduce_type {name}"] = (int(reduce_type), str(reduce_type))
    for name, p in places.items():
        res[f"repr {name}"] = (repr(p), str(p))
        res[f"is {name}"] = (p.is_shard(), p.is_replicated(), p.is_partial())
        if p.is_shard():
            res[f"shard {name}"] = (p.get_dim(), p.get_co_shard_order(), p.get_split_factor(), p.is_shard(0),
                                    p.is_shard(1))
        if p.is_partial():
            res[f"partial {name}"] = str(p.reduce_type())
        for other, q in places.items():
            res[f"eq {name} {other}"] = (p == q, p != q, (hash(p) == hash(q)) if p == q else None)
    res["reduce types"] = list(ReduceType.__members__)
    m = dist.ProcessMesh([[0, 1, 2], [3, 4, 5]], dim_names=["x", "y"])
    res["mesh"] = (_mesh(m), m.ndim, m.get_dim_size("x"), m.get_dim_size("y"), m.get_dim_size(1), m.size,
                   m.mesh.tolist(), m.contains(4), m.contains(9), str(m))
    res["mesh default names"] = _mesh(dist.ProcessMesh([[0, 1], [2, 3]]))
    res["mesh with dim y"] = _mesh(m.get_mesh_with_dim("y"))
    res["mesh with dim y 1"] = _mesh(m.get_mesh_with_dim("y", 1))
    res["mesh with dim x 0"] = _mesh(m.get_mesh_with_dim("x", 0))
    one = dist.ProcessMesh([2, 5, 7], dim_names=["z"])
    res["mesh 1d with dim z 1"] = _mesh(one.get_mesh_with_dim("z", 1))
    for key, index in [("0", 0), ("1", 1), ("slice", slice(0, 1)), ("col", (slice(None), 1)),
                       ("cell", (1, 2)), ("cols", (slice(None), slice(1, 3)))]:
        res[f"mesh index {key}"] = _mesh(m[index])
    res["mesh 1d index"] = _mesh(one[1])
    other = dist.ProcessMesh([[0, 1, 2], [3, 4, 5]], dim_names=["a", "b"])
    res["mesh eq"] = (m == other, m != other, m == dist.ProcessMesh([0, 1, 2, 3, 4, 5]), m == [0, 1],
                      m == dist.ProcessMesh([[0, 1, 2], [3, 4, 6]]))
    res["mesh dup ids"] = _try(lambda: dist.ProcessMesh([0, 0]))
    res["mesh names mismatch"] = _try(lambda: dist.ProcessMesh([[0, 1]], dim_names=["x"]))
    res["mesh bad dim"] = _try(lambda: m.get_mesh_with_dim("q"))
    res["mesh from shape"] = _mesh(dist.ProcessMesh(shape=[2, 2], process_ids=[3, 2, 1, 0]))
    d = dist.DistAttr(mesh=m, sharding_specs=["y", None, "x"])
    res["dist attr"] = (list(d.dims_mapping), list(d.sharding_specs), _mesh(d.process_mesh))
    res["dist attr bad"] = _try(lambda: dist.DistAttr(mesh=m, sharding_specs=["q"]))
    return res


def spmd_results(cases):
    from paddle.base import core
    from paddle.distributed.auto_parallel.static.dist_attribute import DistTensorSpec, TensorDistAttr

    out = {}
    for key, (rule, mesh_shape, specs, attrs) in cases.items():
        size = 1
        for s in mesh_shape:
            size *= s
        mesh = core.ProcessMesh(mesh_shape, list(range(size)), [f"d{i}" for i in range(len(mesh_shape))])
        tensors = []
        for shape, dims, partial in specs:
            attr = TensorDistAttr()
            attr.process_mesh = mesh
            attr.dims_mapping = dims
            if partial:
                attr._set_partial_dims(partial)
            tensors.append(DistTensorSpec(shape, attr))
        try:
            found = core.get_phi_spmd_rule(rule).infer_forward(*tensors, *attrs)
        except Exception as e:  # noqa: BLE001
            out[key] = ("E", type(e).__name__, str(e)[:300])
            continue
        out[key] = [(list(a.dims_mapping), sorted(a._partial_dims())) for a in found[1]]
    return out


if __name__ == "__main__":
    import paddle.distributed as dist
    results = {"api": api_results(dist)}
    if len(sys.argv) > 2:
        with open(sys.argv[2], "rb") as f:
            results["spmd"] = spmd_results(pickle.load(f))
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": results}, f)
