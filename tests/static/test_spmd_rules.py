"""The registry's SPMD rules per op family against Paddle 3.3.1's own rules (tests/static/spmd_reference.py: every
dims mapping on 1-D and 2-D meshes, forward and reverse), and hand-worked layouts where Paddle has no rule."""
import pytest

import paddle_ref
import torchpaddle  # noqa: F401 - registers the ops
from torchpaddle.framework.dist_attr import DistTensorSpec, ReduceType, TensorDistAttr
from torchpaddle.framework.process_mesh import ProcessMesh
from torchpaddle.ops.defs.spmd import grad_rule_of
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


_LINALG = "a whole-matrix factorization or solve: each rank needs the full matrices"
_RANDOM = "draws random numbers: replicated, every rank draws the same values"
_CREATE = "builds its output from attributes or metadata: the layout comes from its consumers"
_DATA_SHAPE = "its output's size depends on the values: nothing to shard ahead of the run"
_FFT = "a transform over whole axes: no rule written; replicated"
_NOT_YET = "no rule written yet: completed by replicating (always correct, slower)"
# op types the optable rows emit that have no rule, by reason (test_optable_ops_have_rules)
REPLICATED_BY_DEFAULT = {
    **dict.fromkeys("""cholesky cholesky_inverse cholesky_solve cond determinant eig eigh eigvals eigvalsh
        householder_product inverse lu lu_solve lu_unpack matrix_exp matrix_power matrix_rank ormqr pinv qr
        slogdeterminant solve svd svd_lowrank svdvals triangular_solve""".split(), _LINALG),
    **dict.fromkeys("""alpha_dropout bernoulli binomial dropout_nd gaussian_random gumbel_softmax multinomial poisson
        randint rrelu standard_gamma uniform_random""".split(), _RANDOM),
    **dict.fromkeys("""assign_value empty fill_any_like fill_constant linspace logspace range tril_indices triu_indices
        shape size is_empty meshgrid vander""".split(), _CREATE),
    **dict.fromkeys("""unique unique_consecutive masked_select where_index bincount histogram histogram_bin_edges
        histogramdd""".split(), _DATA_SHAPE),
    **dict.fromkeys("""fft_c2c fft_c2r fft_r2c stft istft frame overlap_add""".split(), _FFT),
    **dict.fromkeys("""accuracy addmm affine_grid allclose argsort as_complex as_real as_strided assign baddbmm batch_norm
        bce_loss bilinear_interp_v2 bilinear_tensor_product block_diag bmm broadcast_tensors cartesian_prod
        cdist channel_shuffle combinations complex conv2d_transpose conv3d conv3d_transpose corrcoef cov
        crop_tensor cross cross_entropy cross_entropy2 cumulative_trapezoid cvm diag_embed diag_v2 diagflat
        diagonal diagonal_scatter diff dist dot einsum embedding_renorm embedding_with_scaled_gradient
        equal_all flip fold frobenius_norm gather_nd gather_tree grid_sampler group_norm
        hierarchical_sigmoid huber_loss index_add index_fill index_put index_sample inner instance_norm
        interp_antialias isin kldiv_loss kron label_smooth local_response_norm log_loss lp_pool2d
        masked_fill masked_scatter max_pool3d_with_index maxout multi_dot multiplex mv nearest_interp_v2
        nll_loss outer p_norm pad3d pdist pixel_shuffle pixel_unshuffle polar prelu put_along_axis reduce_as
        renorm repeat_interleave roll scatter_nd_add searchsorted select_scatter shard_index
        sigmoid_cross_entropy_with_logits slice_scatter soft_relu strided_slice take take_along_axis
        temporal_shift tensor_unfold top_k_v2 trace trapezoid unbind unfold unpool unpool3d unstack vecdot
        view_dtype view_shape warpctc""".split(), _NOT_YET),
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
    missing = sorted(t for t in types if REGISTRY[t].spmd_rule is None and t not in REPLICATED_BY_DEFAULT)
    assert not missing, f"ops with neither a rule nor a reason to replicate: {missing}"


def test_listed_ops_have_no_rule():
    gained = sorted(t for t in REPLICATED_BY_DEFAULT if t in REGISTRY and REGISTRY[t].spmd_rule is not None)
    assert not gained, f"ops listed as replicated that have a rule now (unlist them): {gained}"


@pytest.mark.slow
def test_optable_ops_have_rules(static_mode):
    """Every op type the rows of tests/optable append (first sample, static mode) has a rule or a listed reason."""
    from tests.optable.runner import load_rows, resolve, samples_of
    from tests.test_optable_static import STATIC_UNSUPPORTED, _static_args
    types = {}
    for name, case in sorted(load_rows().items()):
        if name in STATIC_UNSUPPORTED or case.api.endswith("_"):
            continue
        sample = next(iter(samples_of(case, case.dtypes[0])), None)
        if sample is None:
            continue
        main, startup = torchpaddle.static.Program(), torchpaddle.static.Program()
        try:
            with torchpaddle.static.program_guard(main, startup):
                args = _static_args(sample.args, case.dtypes[0], {}, False)
                resolve(torchpaddle, case.api)(*args, **{k: _static_args(v, case.dtypes[0], {}, False)
                                                         for k, v in sample.kwargs.items()})
        except Exception:   # noqa: BLE001 - rows that refuse their sample are checked by test_optable_static
            pass
        for op in main.global_block().ops:
            types.setdefault(op.type, name)
    assert len(types) > 200
    missing = sorted(f"{t} (row {r})" for t, r in types.items()
                     if (t not in REGISTRY or REGISTRY[t].spmd_rule is None) and t not in REPLICATED_BY_DEFAULT)
    assert not missing, f"op types with neither a rule nor a reason to replicate: {missing}"


def test_grad_rule_of():
    assert grad_rule_of("matmul_v2_grad") == ("matmul_v2", SPMD_RULES["matmul"])
    assert grad_rule_of("conv2d_grad") == ("conv2d", SPMD_RULES["conv2d"])
    assert grad_rule_of("matmul_v2") is None and grad_rule_of("no_such_op_grad") is None
    assert grad_rule_of("cholesky_grad") is None   # its forward op is replicated by default


def test_expand_and_expand_as_without_y():
    found = _run("expand_v2", [_spec(MESH, [1, 6], [0, 1]), None, None], shape=[3, 4, -1])
    assert found == [[([-1, 1], {}), None, None], [([-1, -1, 1], {})]]   # the expanded dim and the new one: whole
    found = _run("expand_as_v2", [_spec(MESH, [4, 1], [0, 1]), None], target_shape=[4, 6])
    assert found == [[([0, -1], {}), None], [([0, -1], {})]]
    with pytest.raises(ValueError, match="given by a tensor"):
        _run("expand_v2", [_spec(MESH, [1, 6], [0, 1]), _spec(MESH, [2], [-1]), None], shape=[])
    rule = REGISTRY["expand_v2"].spmd_rule
    ins, outs = rule.backward([_spec(MESH, [1, 6], [-1, -1]), None, None], [_spec(MESH, [3, 4, 6], [0, 1, -1])],
                              {"shape": [3, 4, 6]})
    assert [_layout(a) for a in (ins[0], outs[0])] == [([-1, -1], {}), ([-1, -1, -1], {})]


def test_conv2d_groups_and_channels():
    x, w = _spec(MESH, [4, 6, 8, 8], [0, 1, -1, -1]), _spec(MESH, [6, 6, 3, 3], [-1, 1, -1, -1])
    assert _run("conv2d", [x, w])[1] == [([0, -1, -1, -1], {1: "SUM"})]   # in-channels sharded: partial
    found = _run("conv2d", [x, _spec(MESH, [6, 3, 3, 3], [1, -1, -1, -1])], groups=2)
    assert found == [[([0, -1, -1, -1], {}), ([-1, -1, -1, -1], {})], [([0, -1, -1, -1], {})]]
    with pytest.raises(ValueError, match="must agree"):
        _run("conv2d", [x, _spec(MESH, [6, 6, 3, 3], [-1, -1, -1, -1])])


def test_reverse_of_pool_and_index_select():
    rule = REGISTRY["pool2d"].spmd_rule
    ins, outs = rule.backward([_spec(MESH, [4, 6, 8, 8], [-1] * 4)], [_spec(MESH, [4, 6, 4, 4], [0, -1, 1, -1])],
                              {"data_format": "NCHW"})
    assert [_layout(a) for a in ins + outs] == [([0, -1, -1, -1], {}), ([0, -1, -1, -1], {})]
    rule = REGISTRY["index_select"].spmd_rule
    ins, outs = rule.backward([_spec(MESH, [4, 6], [-1, -1]), _spec(MESH, [3], [-1])], [_spec(MESH, [4, 3], [0, 1])],
                              {"dim": 1})
    assert [_layout(a) for a in ins + outs] == [([0, -1], {}), ([1], {}), ([0, 1], {})]
