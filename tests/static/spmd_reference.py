"""Paddle 3.3.1's SPMD rules answering the cases of tests/static/test_spmd_rules.py.

A case: (family, Paddle rule, our op type, mesh shape, inputs, Paddle attrs, our attrs, outputs, slots).
``inputs`` are in Paddle's argument order: ``(shape, dims_mapping)``, a list of them for a list argument, or None.
``outputs`` (None for the forward inference) are the layouts wanted of Paddle's outputs for ``infer_backward``.
``slots``: our op's input slots, then output slots, as indexes into Paddle's inputs / outputs (None: absent).
A result: the flat list of ``(dims_mapping, {partial mesh dim: reduce type})`` for Paddle's inputs then outputs,
``("E", exception type)``, or ``("coshard",)`` where Paddle splits a dim over several mesh dims (not modelled).
Run in the reference venv: ``python -m tests.static.spmd_reference OUT.pkl``.
"""
import itertools
import os
import pickle
import re
import sys

MESHES = ([2], [2, 2])


def _mappings(rank, mesh_ndim):
    """Every dims mapping of a rank-``rank`` tensor on a ``mesh_ndim``-D mesh (no mesh dim used twice)."""
    for dims in itertools.product(range(-1, mesh_ndim), repeat=rank):
        used = [d for d in dims if d >= 0]
        if len(used) == len(set(used)):
            yield list(dims)


def _sweep(cases, family, rule, op_type, shapes, attrs, ours, slots, reverse_shapes=None, meshes=MESHES):
    """Every combination of dims mappings of ``shapes`` (forward) and of ``reverse_shapes`` (backward, the
    inputs then replicated) on each mesh."""
    for mesh in meshes:
        flat = [t for s in shapes if s is not None for t in (s if isinstance(s[0], list) else [s])]
        for combo in itertools.product(*[list(_mappings(len(s), len(mesh))) for s in flat]):
            it = iter(combo)
            inputs = [None if s is None else [(t, next(it)) for t in s] if isinstance(s[0], list) else (s, next(it))
                      for s in shapes]
            name = f"{family} {rule} {mesh} {inputs} {attrs}"
            cases[name] = (family, rule, op_type, mesh, inputs, attrs, ours, None, slots)
        if reverse_shapes is None:
            continue
        inputs = [None if s is None else [(t, [-1] * len(t)) for t in s] if isinstance(s[0], list) else
                  (s, [-1] * len(s)) for s in shapes]
        for combo in itertools.product(*[list(_mappings(len(s), len(mesh))) for s in reverse_shapes]):
            outputs = [(s, d) for s, d in zip(reverse_shapes, combo)]
            name = f"reverse {family} {rule} {mesh} {inputs} -> {outputs} {attrs}"
            cases[name] = (family, rule, op_type, mesh, inputs, attrs, ours, outputs, slots)


def _cases():
    c = {}
    one = ([0], [0])   # one input slot, one output slot
    # reductions: X -> Out
    for op_type, rule in (("reduce_sum", "sum"), ("reduce_max", "max"), ("reduce_min", "min"),
                          ("reduce_prod", "prod"), ("reduce_mean", "sum")):
        for axis, keep in (([1], False), ([0], True), ([], False), ([-1, 0], False), ([0, 2], True)):
            shape = [4, 6, 2]
            out = [s for i, s in enumerate(shape) if i not in [a % 3 for a in axis] and axis] if not keep else \
                [1 if (i in [a % 3 for a in axis] or not axis) else s for i, s in enumerate(shape)]
            ours = {"dim": axis or [0], "keep_dim": keep, "reduce_all": not axis}
            _sweep(c, "reduction", rule, op_type, [shape], [axis, keep], ours, one,
                   [out] if rule == "sum" else None)
    for axis in (-1, 0):
        _sweep(c, "softmax", "softmax", "softmax", [[4, 6, 2]], [axis], {"axis": axis}, one, [[4, 6, 2]])
        _sweep(c, "softmax", "log_softmax", "log_softmax", [[4, 6]], [axis], {"axis": axis}, one, None)
    # layer_norm: X, Scale, Bias -> Y, Mean, Variance
    for axis in (1, 2):
        norm = {1: [48], 2: [8]}[axis]
        _sweep(c, "layer_norm", "layer_norm", "layer_norm", [[4, 6, 8], norm, norm], [1e-5, axis],
               {"epsilon": 1e-5, "begin_norm_axis": axis}, ([0, 1, 2], [0, 1, 2]),
               [[4, 6, 8], [4] if axis == 1 else [4, 6], [4] if axis == 1 else [4, 6]])
    # embedding: Ids, W -> Out (lookup_table_v2); c_embedding: W, Ids -> Out
    _sweep(c, "embedding", "embedding", "lookup_table_v2", [[4, 6], [10, 8]], [-1, False],
           {"padding_idx": -1}, ([0, 1], [0]), [[4, 6, 8]])
    _sweep(c, "embedding", "c_embedding", "c_embedding", [[10, 8], [4, 6]], [0, 10],
           {"start_index": 0, "vocab_size": 10}, ([0, 1], [0]), None)
    # softmax_with_cross_entropy: Logits, Label -> Softmax, Loss
    for soft, axis in ((False, -1), (True, -1), (False, 0)):
        label = ([4, 6] if soft else [4, 1]) if axis == -1 else [1, 6]
        _sweep(c, "cross_entropy", "cross_entropy_with_softmax", "softmax_with_cross_entropy", [[4, 6], label],
               [soft, True, True, -100, axis], {"soft_label": soft, "axis": axis, "ignore_index": -100},
               ([0, 1], [0, 1]), [[4, 6], [4, 1] if axis == -1 else [1, 6]])
    # shape changes
    for shape, target in (([4, 6], [2, 12]), ([4, 6], [24]), ([4, 6, 2], [4, 12]), ([8, 6], [2, 4, 6]),
                          ([4, 6], [-1, 3]), ([6, 4], [4, 6])):
        out = list(target)
        if -1 in out:
            out[out.index(-1)] = 24 // 3
        _sweep(c, "reshape", "reshape", "reshape2", [shape], [target], {"shape": target}, ([0, None, None], [0]),
               [out])
    for shape, start, stop in (([4, 6, 2], 1, 2), ([4, 6, 2], 0, 1), ([4, 6, 2], 0, -1), ([2, 4, 6, 2], 1, 2)):
        out = shape[:start] + [eval("*".join(map(str, shape[start:(stop % len(shape)) + 1])))] + \
            shape[(stop % len(shape)) + 1:]
        _sweep(c, "reshape", "flatten", "flatten_contiguous_range", [shape], [start, stop],
               {"start_axis": start, "stop_axis": stop}, one, [out])
    for shape, axes, out in (([4, 1, 6], [1], [4, 6]), ([1, 4, 1], [], [4]), ([4, 1, 6], [0], [4, 1, 6])):
        _sweep(c, "reshape", "squeeze", "squeeze2", [shape], [axes], {"axes": axes}, one, [out])
    # NOTE: not [0, -1]: Paddle's rule reads a later negative axis against the rank so far ([4, 6] -> [1, 4, 1, 6])
    # where its kernel gives [1, 4, 6, 1]
    for shape, axes, out in (([4, 6], [1], [4, 1, 6]), ([4, 6], [0, 3], [1, 4, 6, 1]), ([4, 6], [-1], [4, 6, 1])):
        _sweep(c, "reshape", "unsqueeze", "unsqueeze2", [shape], [axes], {"axes": axes}, one, [out])
    for perm in ([1, 0, 2], [2, 0, 1]):
        shape = [4, 6, 2]
        _sweep(c, "transpose", "transpose", "transpose2", [shape], [perm], {"axis": perm}, one,
               [[shape[p] for p in perm]])
    # concat / stack: a list input aligned by cost (AlignDimsSharding)
    for shapes, axis, out in ((([4, 6], [4, 6]), 0, [8, 6]), (([4, 6], [2, 6]), 0, [6, 6]),
                              (([4, 6], [4, 6]), 1, [4, 12]), (([4, 1], [4, 6]), -1, [4, 7])):
        _sweep(c, "concat", "concat", "concat", [list(shapes)], [axis], {"axis": axis}, ([0], [0]), [out])
    for axis, out in ((0, [2, 4, 6]), (-1, [4, 6, 2]), (1, [4, 2, 6])):
        _sweep(c, "concat", "stack", "stack", [[[4, 6], [4, 6]]], [axis], {"axis": axis}, ([0], [0]), [out])
    # where / expand_as: broadcasts
    for shapes in (([4, 6], [4, 6], [4, 6]), ([4, 6], [4, 6], [6]), ([4, 6], [1, 6], [4, 6])):
        _sweep(c, "where", "where", "where", list(shapes), [], {}, ([0, 1, 2], [0]), [[4, 6]])
    for x in ([1, 6], [6], [4, 6]):
        # NOTE: no reverse: Paddle 3.3.1 registers expand_as's gradient rule as its infer_backward
        _sweep(c, "where", "expand_as", "expand_as_v2", [x, [4, 6]], [[4, 6]], {"target_shape": [4, 6]},
               ([0, 1], [0]), None)
    # conv2d: Input, Filter -> Output (NCHW, groups 1)
    _sweep(c, "conv2d", "conv2d", "conv2d", [[4, 6, 8, 8], [4, 6, 3, 3]], [[1, 1], [0, 0], "EXPLICIT", [1, 1], 1,
           "NCHW"], {}, ([0, 1], [0]), [[4, 4, 6, 6]], meshes=([2, 2],))
    # split / slice
    for axis in (0, 1):
        _sweep(c, "concat", "split", "split", [[4, 6]], [[2, 2] if axis == 0 else [2, 2, 2], axis], {"sections": [2, 2] if axis == 0 else []
               , "num": 0 if axis == 0 else 3, "axis": axis}, ([0], [0]), None)
    for axes, starts, ends in (([1], [0], [3]), ([0], [0], [4]), ([0, 1], [1, 0], [3, 6])):
        _sweep(c, "concat", "slice", "slice", [[4, 6]], [axes, starts, ends, [1] * len(axes), []],
               {"axes": axes, "starts": starts, "ends": ends}, ([0, None, None, None, None], [0]),
               [[e - b if a in axes else n for a, n in enumerate([4, 6])
                 for b, e in [dict(zip(axes, zip(starts, ends))).get(a, (0, n))]]])
    # gather / index_select / scatter
    for axis in (0, 1):
        _sweep(c, "gather", "gather", "gather", [[4, 6], [3]], [axis], {"axis": axis}, ([0, 1, None], [0]),
               [[3, 6] if axis == 0 else [4, 3]])
        _sweep(c, "gather", "index_select", "index_select", [[4, 6], [3]], [axis], {"dim": axis}, ([0, 1], [0]),
               None)
    _sweep(c, "gather", "scatter", "scatter", [[4, 6], [3], [3, 6]], [True], {"overwrite": True},
           ([0, 1, 2], [0]), [[4, 6]])
    # where, cumsum, tile, argmax, one_hot, triu, dropout
    for axis in (0, 1):
        _sweep(c, "cumsum", "cumsum", "cumsum", [[4, 6]], [axis, False, False, False], {"axis": axis}, one,
               [[4, 6]])
        _sweep(c, "argmax", "argmax", "arg_max", [[4, 6]], [axis, False, False, 3], {"axis": axis}, one, None)
    for repeat, out in (([2, 1], [8, 6]), ([1, 2], [4, 12]), ([2, 1, 1], [2, 4, 6]), ([1, 2, 3], [1, 8, 18])):
        _sweep(c, "tile", "tile", "tile", [[4, 6]], [repeat], {"repeat_times": repeat}, one, [out])
    _sweep(c, "one_hot", "one_hot", "one_hot_v2", [[4, 6]], [10], {"depth": 10}, one, None)
    _sweep(c, "triu", "triu", "tril_triu", [[4, 6]], [0], {"diagonal": 0, "lower": False}, one, [[4, 6]])
    _sweep(c, "triu", "triu", "tril_triu", [[2, 4, 6]], [1], {"diagonal": 1, "lower": False}, one, [[2, 4, 6]])
    _sweep(c, "dropout", "dropout", "dropout", [[4, 6]], [], {}, ([0, None], [0]), None)
    return c


CASES = _cases()


def _paddle_results():
    from paddle.base import core
    from paddle.distributed.auto_parallel.static.dist_attribute import DistTensorSpec, TensorDistAttr

    partial_re = re.compile(r"Partial\(dims:(\d+), (\w+)\)")

    def spec(mesh, entry):
        if entry is None:
            return None
        if isinstance(entry, list):
            return [spec(mesh, e) for e in entry]
        shape, dims = entry
        attr = TensorDistAttr()
        attr.process_mesh = mesh
        attr.dims_mapping = dims
        return DistTensorSpec(shape, attr)

    def layout(attr):
        if isinstance(attr, (list, tuple)):
            return [layout(a) for a in attr]
        if any(len(d) > 1 for d in attr.multi_dims_mapping):
            raise _Coshard
        return (list(attr.dims_mapping), {int(d): t for d, t in partial_re.findall(str(attr))})

    class _Coshard(Exception):
        pass

    results = {}
    for name, (_, rule, _, mesh_shape, inputs, attrs, _, outputs, _) in CASES.items():
        size = 1
        for s in mesh_shape:
            size *= s
        mesh = core.ProcessMesh(mesh_shape, list(range(size)), [f"d{i}" for i in range(len(mesh_shape))])
        args = [spec(mesh, e) for e in inputs]
        try:
            if outputs is None:
                found = core.get_phi_spmd_rule(rule).infer_forward(*args, *attrs)
            else:
                out_specs = [spec(mesh, e) for e in outputs]
                if rule in ("split", "split_with_num"):
                    out_specs = [out_specs]
                found = core.get_phi_spmd_rule(rule).infer_backward(*args, *out_specs, *attrs)
            results[name] = [layout(a) for group in found for a in group]
        except _Coshard:
            results[name] = ("coshard",)
        except Exception as e:  # noqa: BLE001 - recorded, compared by the test
            results[name] = ("E", type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")
    return results


if __name__ == "__main__":
    os.environ["FLAGS_enable_pir_api"] = "0"
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": _paddle_results()}, f)
