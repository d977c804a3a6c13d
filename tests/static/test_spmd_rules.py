"""The registry's SPMD rules per op family against Paddle 3.3.1's own rules (tests/static/spmd_reference.py: every
dims mapping on 1-D and 2-D meshes, forward and reverse), and hand-worked layouts where Paddle has no rule."""
import pytest

import paddle_ref
import torchpaddle  # noqa: F401 - registers the ops
from torchpaddle.framework.dist_attr import DistTensorSpec, ReduceType, TensorDistAttr
from torchpaddle.framework.process_mesh import ProcessMesh
from torchpaddle.ops.registry import REGISTRY, SPMD_RULES
from tests.static import spmd_reference as ref

_NAMES = {ReduceType.kRedSum: "SUM", ReduceType.kRedMax: "MAX", ReduceType.kRedMin: "MIN",
          ReduceType.kRedProd: "PROD", ReduceType.kRedAvg: "AVG", ReduceType.kRedAny: "ANY",
          ReduceType.kRedAll: "ALL"}
# Paddle's static rule registry holds the generic reduction rule, which always answers SUM; its dygraph ops use the
# typed variants (ReductionMeanInferSpmdDynamic, ...), which ours follow
_REDUCE_TYPE = {"reduce_mean": "AVG", "reduce_max": "MAX", "reduce_min": "MIN", "reduce_prod": "PROD"}


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.static.spmd_reference", timeout=300)


def _mesh(shape):
    size = 1
    for s in shape:
        size *= s
    return ProcessMesh(shape=list(shape), process_ids=list(range(size)))


def _spec(mesh, shape, dims):
    attr = TensorDistAttr()
    attr.process_mesh = mesh
    attr.dims_mapping = list(dims)
    return DistTensorSpec(shape, attr)


def _layout(attr):
    return (attr.dims_mapping, {d: _NAMES[t] for d, t in attr._partial_status().items()})


def _ours(case):
    """Our rule's answer, flattened in Paddle's argument order (positions our slots do not map are None)."""
    _, _, op_type, mesh_shape, inputs, _, attrs, outputs, (in_slots, out_slots) = case
    mesh = _mesh(mesh_shape)

    def spec(entry):
        if entry is None:
            return None
        if isinstance(entry, list):
            return [spec(e) for e in entry]
        return _spec(mesh, *entry)
    d = REGISTRY[op_type]
    full = dict(d.attrs, **attrs)
    ins = [None if i is None else spec(inputs[i]) for i in in_slots]
    try:
        if outputs is None:
            found = d.spmd_rule.forward(ins, full)
        else:
            outs = [None if i is None else spec(outputs[i]) for i in out_slots]
            found = d.spmd_rule.backward(ins, outs, full)
    except Exception as e:  # noqa: BLE001 - compared with Paddle's exception type
        return ("E", type(e).__name__)
    flat_in = [None] * len(inputs)
    for slot, i in enumerate(in_slots):
        if i is not None:
            flat_in[i] = found[0][slot]
    n_out = max([i for i in out_slots if i is not None] + [-1]) + 1
    flat_out = [None] * n_out
    for slot, i in enumerate(out_slots):
        if i is not None and slot < len(found[1]):
            flat_out[i] = found[1][slot]
    result = []
    for a in flat_in + flat_out:
        if isinstance(a, list):
            result.extend(_layout(x) for x in a)
        else:
            result.append(None if a is None else _layout(a))
    return result


def _theirs(case, found):
    if isinstance(found, tuple):
        return found[:2]
    found = [a for entry in found for a in (entry if isinstance(entry, list) else [entry])]   # list arguments
    reduce_type = _REDUCE_TYPE.get(case[2])
    if reduce_type:
        found = [(dims, {d: reduce_type for d in partial}) for dims, partial in found]
    return found


FAMILIES = sorted({case[0] for case in ref.CASES.values()})


@pytest.mark.conformance
@pytest.mark.parametrize("family", FAMILIES)
def test_rules_as_paddle(family, reference):
    compared, wrong = 0, []
    for name, case in ref.CASES.items():
        if case[0] != family or reference[name] == ("coshard",):
            continue
        compared += 1
        ours, theirs = _ours(case), _theirs(case, reference[name])
        if isinstance(theirs, list) and isinstance(ours, list) and len(ours) == len(theirs):
            keep = [i for i, o in enumerate(ours) if o is not None]   # Paddle arguments our op has no slot for
            ours, theirs = [ours[i] for i in keep], [theirs[i] for i in keep]
        if ours != theirs:
            wrong.append(f"{name}: ours {ours}, Paddle {theirs}")
    assert compared > 0
    assert not wrong, f"{len(wrong)} of {compared} differ:\n" + "\n".join(wrong[:20])


# -- hand-worked: ops Paddle 3.3.1 has no phi rule for ------------------------------------------------------------
MESH = _mesh([2, 2])


def _run(op_type, inputs, **attrs):
    d = REGISTRY[op_type]
    found = d.spmd_rule.forward(inputs, dict(d.attrs, **attrs))
    return [[None if a is None else _layout(a) for a in group] for group in found]


def test_optimizer_state_follows_param():
    param, grad = _spec(MESH, [6, 8], [-1, 1]), _spec(MESH, [6, 8], [0, 1])
    lr, m1, m2, b1, b2 = (_spec(MESH, [1], [-1]), _spec(MESH, [6, 8], [-1, -1]), _spec(MESH, [6, 8], [0, -1]),
                          _spec(MESH, [1], [-1]), _spec(MESH, [1], [-1]))
    col = ([-1, 1], {})
    found = _run("adamw", [param, grad, lr, m1, m2, None, b1, b2, None, None, None, None, None])
    assert found[0] == [col, col, ([-1], {}), col, col, None, ([-1], {}), ([-1], {}), None, None, None, None, None]
    assert found[1] == [col, col, col, col, ([-1], {}), ([-1], {}), col]
    found = _run("sgd", [param, lr, _spec(MESH, [6, 8], [-1, 1]), None])
    assert found == [[col, ([-1], {}), col, None], [col, col]]
    found = _run("momentum", [_spec(MESH, [6, 8], [0, -1]), grad, m1, lr, None], mu=0.9)
    assert found == [[([0, -1], {})] * 3 + [([-1], {}), None], [([0, -1], {})] * 3]


def test_pool_keeps_batch_and_channel():
    found = _run("pool2d", [_spec(MESH, [4, 6, 8, 8], [0, 1, -1, -1])], ksize=[2, 2])
    assert found == [[([0, 1, -1, -1], {})], [([0, 1, -1, -1], {})]]
    found = _run("pool2d", [_spec(MESH, [4, 8, 8, 6], [0, 1, -1, -1])], ksize=[2, 2], data_format="NHWC")
    assert found == [[([0, -1, -1, -1], {})], [([0, -1, -1, -1], {})]]   # H sharded -> replicated


def test_nonlinear_reductions_replicate_reduced_dims():
    found = _run("median", [_spec(MESH, [4, 6], [0, 1]), None, None], axis=[1], keepdim=False)
    assert found == [[([0, -1], {}), None, None], [([0], {}), ([0], {})]]   # never partial
    found = _run("kthvalue", [_spec(MESH, [4, 6], [0, 1])], axis=0, keepdim=True)
    assert found == [[([-1, 1], {})], [([-1, 1], {}), ([-1, 1], {})]]
    found = _run("logsumexp", [_spec(MESH, [4, 6], [0, 1])], axis=[], reduce_all=True)
    assert found == [[([-1, -1], {})], [([], {})]]


def test_typed_reductions_and_replicated_fallback():
    assert _run("reduce_mean", [_spec(MESH, [4, 6], [0, 1])], dim=[0])[1] == [([1], {0: "AVG"})]
    assert _run("reduce_max", [_spec(MESH, [4, 6], [0, 1])], dim=[1])[1] == [([0], {1: "MAX"})]
    assert _run("reduce_all", [_spec(MESH, [4, 6], [0, -1])], dim=[0])[1] == [([-1], {0: "ALL"})]
    rule = SPMD_RULES["replicated"]
    ins, outs = rule.backward([_spec(MESH, [4, 6], [0, 1])], [_spec(MESH, [4], [1])], {})
    assert [_layout(a) for a in ins + outs] == [([-1, -1], {}), ([-1], {})]
    assert REGISTRY["dropout"].spmd_rule is REGISTRY["cast"].spmd_rule is SPMD_RULES["elementwise"]


def test_rule_errors():
    with pytest.raises(ValueError, match="axis 5 is out of range"):
        _run("reduce_sum", [_spec(MESH, [4, 6], [0, 1])], dim=[5])
    with pytest.raises(ValueError, match="the table must be 2-D"):
        _run("lookup_table_v2", [_spec(MESH, [4], [0]), _spec(MESH, [10], [-1])])
    with pytest.raises(ValueError, match="padding_idx"):
        _run("lookup_table_v2", [_spec(MESH, [4], [-1]), _spec(MESH, [10, 8], [0, -1])], padding_idx=0)
    with pytest.raises(ValueError, match="cannot reshape"):
        _run("reshape2", [_spec(MESH, [4, 6], [0, 1]), None, None], shape=[5, 5])
    with pytest.raises(ValueError, match="not a permutation"):
        _run("transpose2", [_spec(MESH, [4, 6], [0, 1])], axis=[0, 0])
    with pytest.raises(ValueError, match="begin_norm_axis 3 is out of range"):
        _run("layer_norm", [_spec(MESH, [4, 6], [0, 1]), None, None], begin_norm_axis=3)


# ops the nn layers emit that are completed by replicating, and why
REPLICATED = {
    "conv2d": "Paddle's conv2d rule ties the filter's spatial dims to the input's; not reproduced yet",
    "fill_constant": "no tensor input: the completion gives its output the layout its consumers want",
}


def test_nn_layers_ops_have_rules(static_mode):
    """Every forward op a small network of the common nn layers (+ loss, + AdamW) emits has a rule or a reason."""
    main, startup = torchpaddle.static.Program(), torchpaddle.static.Program()
    nn = torchpaddle.nn
    with torchpaddle.static.program_guard(main, startup):
        img = torchpaddle.static.data("img", [4, 3, 8, 8], "float32")
        ids = torchpaddle.static.data("ids", [4, 6], "int64")
        label = torchpaddle.static.data("label", [4, 1], "int64")
        x = nn.Flatten()(nn.MaxPool2D(2)(nn.ReLU()(nn.Conv2D(3, 4, 3, padding=1)(img))))
        x = nn.Dropout(0.1)(nn.LayerNorm(64)(x)) + nn.Embedding(10, 64)(ids).mean(axis=1)
        logits = nn.Linear(64, 5)(nn.GELU()(nn.Softmax()(x)))
        loss = nn.CrossEntropyLoss()(logits, label)
        torchpaddle.optimizer.AdamW(learning_rate=0.01).minimize(loss)
    types = {op.type for op in main.global_block().ops if not op.type.endswith("_grad")}
    assert {"adamw", "layer_norm", "lookup_table_v2", "softmax_with_cross_entropy", "pool2d"} <= types
    missing = sorted(t for t in types if REGISTRY[t].spmd_rule is None and t not in REPLICATED)
    assert not missing, f"ops with neither a rule nor a reason to replicate: {missing}"
    assert all(REGISTRY[t].spmd_rule is None for t in REPLICATED)   # a listed op that gained a rule: unlist it
