"""Distributed attributes as real PaddlePaddle 3.3.1 has them, for tests/static/test_dist_attr.py.

SPMD rule cases are answered by Paddle's own rules (``core.get_phi_spmd_rule(rule).infer_forward /
infer_backward``, one process, any mesh) and by torchpaddle's registry rules, then compared. A case: (group,
Paddle rule, our op type, mesh shape, inputs [(shape, dims_mapping, partial dims)], attrs in Paddle's argument
order, outputs for the reverse inference or None). A result: per input and per output ``(dims_mapping, sorted
partial dims)``, ``("E", exception type)``, or ``("coshard",)`` where Paddle splits a dim over several mesh dims,
which the IR does not model.

``SCENES`` are legacy-IR programs with dist attributes (printing, cloning, saving). Run in the reference venv:
``python -m tests.static.dist_attr_reference OUT.pkl``.
"""
import os
import itertools
import pickle
import sys


def _mappings(rank, mesh_ndim):
    """Every dims mapping of a rank-``rank`` tensor on a ``mesh_ndim``-D mesh (no mesh dim used twice)."""
    for dims in itertools.product(range(-1, mesh_ndim), repeat=rank):
        used = [d for d in dims if d >= 0]
        if len(used) == len(set(used)):
            yield list(dims)


def _partials(dims, mesh_ndim):
    """No partial, and each mesh dim the mapping leaves free as a partial one."""
    yield []
    for d in range(mesh_ndim):
        if d not in dims:
            yield [d]


def _forward_cases():
    cases = {}
    unary = [([4, 6], [2, 2]), ([3, 6], [2, 2]), ([2, 4, 6], [2, 2]), ([8], [4]), ([6, 4], [3, 2]), ([1, 6], [4])]
    for shape, mesh in unary:
        for dims in _mappings(len(shape), len(mesh)):
            for partial in _partials(dims, len(mesh)):
                cases[f"unary {mesh} {shape} {dims} p{partial}"] = ("unary", "relu", "relu", mesh,
                                                                   [(shape, dims, partial)], [], None)
    binary = [([4, 6], [4, 6]), ([4, 6], [6]), ([4, 6], [1, 6]), ([4, 6], [4, 1]), ([4, 1], [1, 6]),
              ([2, 4, 6], [4, 6]), ([2, 4, 6], [2, 1, 6]), ([3, 6], [3, 6]), ([8], [8])]
    for mesh in ([2, 2], [2, 4]):
        for x_shape, y_shape in binary:
            for x_dims in _mappings(len(x_shape), len(mesh)):
                for y_dims in _mappings(len(y_shape), len(mesh)):
                    name = f"binary {mesh} {x_shape}{x_dims} + {y_shape}{y_dims}"
                    cases[name] = ("binary", "add", "elementwise_add", mesh,
                                   [(x_shape, x_dims, []), (y_shape, y_dims, [])], [], None)
    for x_dims, y_dims, partial in (([0, -1], [-1, -1], [1]), ([-1, -1], [-1, 0], [0]), ([0, 1], [0, 1], [])):
        name = f"binary partial [2, 2] {x_dims}p{partial} + {y_dims}"
        cases[name] = ("binary", "add", "elementwise_add", [2, 2],
                       [([4, 6], x_dims, partial), ([4, 6], y_dims, [])], [], None)
    matmul = [([4, 6], [6, 8], False, False), ([8, 6], [6, 4], False, False), ([4, 6], [6, 6], False, False),
              ([4, 6], [6, 3], False, False), ([3, 6], [6, 8], False, False), ([4, 5], [5, 8], False, False),
              ([6, 4], [6, 8], True, False), ([4, 6], [8, 6], False, True), ([6, 4], [8, 6], True, True),
              ([6], [6, 8], False, False), ([4, 6], [6], False, False), ([6], [6], False, False),
              ([2, 4, 6], [6, 8], False, False), ([2, 4, 6], [2, 6, 8], False, False),
              ([2, 4, 6], [1, 6, 8], False, False), ([4, 6], [2, 6, 8], False, False)]
    for mesh in ([2, 2], [2], [4], [2, 4]):
        for x_shape, y_shape, trans_x, trans_y in matmul:
            if mesh != [2, 2] and len(x_shape) + len(y_shape) > 5:
                continue
            for x_dims in _mappings(len(x_shape), len(mesh)):
                for y_dims in _mappings(len(y_shape), len(mesh)):
                    name = f"matmul {mesh} {x_shape}{x_dims}{'T' * trans_x} @ {y_shape}{y_dims}{'T' * trans_y}"
                    cases[name] = ("matmul", "matmul", "matmul_v2", mesh,
                                   [(x_shape, x_dims, []), (y_shape, y_dims, [])], [trans_x, trans_y], None)
    cases["matmul partial input"] = ("matmul", "matmul", "matmul_v2", [2, 2],
                                     [([4, 6], [0, -1], [1]), ([6, 8], [-1, -1], [])], [False, False], None)
    return cases


def _reverse_cases():
    cases = {}
    for shape, mesh in (([4, 6], [2, 2]), ([3, 6], [2, 2]), ([8], [4])):
        for dims in _mappings(len(shape), len(mesh)):
            cases[f"reverse unary {mesh} {shape} {dims}"] = (
                "reverse", "relu", "relu", mesh, [(shape, [-1] * len(shape), [])], [], [(shape, dims, [])])
    for x_shape, y_shape in (([4, 6], [4, 6]), ([4, 6], [6]), ([1, 6], [4, 6]), ([2, 4, 6], [4, 1])):
        out_shape = [max(a, b) for a, b in itertools.zip_longest(x_shape[::-1], y_shape[::-1], fillvalue=1)][::-1]
        for dims in _mappings(len(out_shape), 2):
            cases[f"reverse binary {x_shape} + {y_shape} -> {dims}"] = (
                "reverse", "add", "elementwise_add", [2, 2],
                [(x_shape, [-1] * len(x_shape), []), (y_shape, [-1] * len(y_shape), [])], [],
                [(out_shape, dims, [])])
    for x_shape, y_shape, out_shape, trans_x, trans_y in (([4, 6], [6, 8], [4, 8], False, False),
                                                          ([6, 4], [8, 6], [4, 8], True, True),
                                                          ([1, 6], [6, 8], [1, 8], False, False),
                                                          ([2, 4, 6], [6, 8], [2, 4, 8], False, False)):
        # (no 1-D operand: Paddle's reverse rule requires the output rank to be the larger input rank and raises)
        for dims in _mappings(len(out_shape), 2):
            for partial in _partials(dims, 2):
                cases[f"reverse matmul {x_shape}{'T' * trans_x} @ {y_shape}{'T' * trans_y} -> {dims}p{partial}"] = (
                    "reverse", "matmul", "matmul_v2", [2, 2],
                    [(x_shape, [-1] * len(x_shape), []), (y_shape, [-1] * len(y_shape), [])], [trans_x, trans_y],
                    [(out_shape, dims, partial)])
    return cases


CASES = {**_forward_cases(), **_reverse_cases()}


def _paddle_results():
    from paddle.base import core
    from paddle.distributed.auto_parallel.static.dist_attribute import DistTensorSpec, TensorDistAttr

    def spec(mesh, shape, dims, partial):
        attr = TensorDistAttr()
        attr.process_mesh = mesh
        attr.dims_mapping = dims
        if partial:
            attr._set_partial_dims(partial)
        return DistTensorSpec(shape, attr)

    results = {}
    for name, (_, rule, _, mesh_shape, inputs, attrs, outputs) in CASES.items():
        size = 1
        for s in mesh_shape:
            size *= s
        mesh = core.ProcessMesh(mesh_shape, list(range(size)), [f"d{i}" for i in range(len(mesh_shape))])
        specs = [spec(mesh, *t) for t in inputs]
        try:
            if outputs is None:
                found = core.get_phi_spmd_rule(rule).infer_forward(*specs, *attrs)
            else:
                found = core.get_phi_spmd_rule(rule).infer_backward(*specs, *[spec(mesh, *t) for t in outputs],
                                                                   *attrs)
        except Exception as e:  # noqa: BLE001 - recorded, compared by the test
            results[name] = ("E", type(e).__name__)
            continue
        if any(len(d) > 1 for group in found for a in group for d in a.multi_dims_mapping):
            results[name] = ("coshard",)
        else:
            results[name] = [[(list(a.dims_mapping), sorted(a._partial_dims())) for a in group] for group in found]
    return results


def _paddle_scenes():
    """A legacy program with a sharded input, a sharded parameter and a matmul whose output is partial, annotated
    as Paddle's auto-parallel does (the var/op desc attrs, and the default DistributedContext that printing
    reads); what it prints, clones and saves."""
    import paddle
    from paddle.base import core
    from paddle.distributed.auto_parallel.static.dist_context import get_default_distributed_context
    from paddle.distributed.auto_parallel.static.dist_op import DistributedOperator
    from paddle.distributed.auto_parallel.static.dist_tensor import DistributedTensor

    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 6], "float32")
        w = main.global_block().create_parameter(name="w", shape=[6, 8], dtype="float32")
        out = main.global_block().create_var(name="out", shape=[4, 8], dtype="float32")
        op = main.global_block().append_op(type="matmul_v2", inputs={"X": [x], "Y": [w]}, outputs={"Out": [out]},
                                           attrs={"trans_x": False, "trans_y": False})
    mesh = core.ProcessMesh([2, 2], [0, 1, 2, 3], ["x", "y"])
    context = get_default_distributed_context()
    for var, dims, annotate in ((x, [0, -1], ("process_mesh", "dims_mapping")), (w, [-1, 1], ("dims_mapping",))):
        tensor = DistributedTensor(var)
        tensor.dist_attr.process_mesh = mesh
        tensor.dist_attr.dims_mapping = dims
        for field in annotate:
            tensor.dist_attr.mark_annotated(field)
        context.add_dist_tensor_for_program(tensor)
    dist_op = DistributedOperator(op)
    dist_op.dist_attr.process_mesh = mesh
    dist_op.dist_attr.set_input_dims_mapping("x", [0, -1])
    dist_op.dist_attr.set_input_dims_mapping("w", [-1, 1])
    dist_op.dist_attr.set_output_dims_mapping("out", [0, 1])
    dist_op.dist_attr.set_output_dims_mapping("out", [0, -1])
    dist_op.dist_attr.get_output_dist_attr("out")._set_partial_dims([1])
    dist_op.dist_attr.impl_idx = 1
    context.add_dist_op_for_program(dist_op)
    scenes = {"print": [line.strip() for line in str(main).splitlines() if "dist_attr" in line],
              "tensor_str": str(x.dist_attr), "partial_str": str(op.dist_attr.get_output_dist_attr("out")),
              "op_str": str(op.dist_attr)}

    def layout(var):
        mesh = var.dist_attr.process_mesh   # None when it has none
        return (mesh.process_ids if mesh is not None else [], var.dist_attr.dims_mapping)

    def summary(program):
        block = program.global_block()
        op = block.ops[-1]
        return {"x": layout(block.var("x")),
                "w": block.var("w").dist_attr.dims_mapping, "impl_idx": op.dist_attr.impl_idx,
                "op_x": op.dist_attr.get_input_dims_mapping("x"),
                "out_partial": sorted(op.dist_attr.get_output_dist_attr("out")._partial_dims())}
    scenes["clone"] = summary(main.clone())
    scenes["clone_for_test"] = summary(main.clone(for_test=True))
    parsed = paddle.static.Program.parse_from_string(main.desc.serialize_to_string())
    scenes["saved"] = {"x": layout(parsed.global_block().var("x"))}
    paddle.disable_static()
    return scenes


if __name__ == "__main__":
    os.environ["FLAGS_enable_pir_api"] = "0"   # the legacy Program, whose Variables and ops carry dist attrs
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": {"spmd": _paddle_results(), "scenes": _paddle_scenes()}}, f)
