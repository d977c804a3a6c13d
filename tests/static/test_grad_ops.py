"""Grad ops run on their own (static/grad_ops.py): the Executor's per-op backward gives what the fused autograd
step gives on the same programs (op families in float64 against finite differences, every op-table row against
eager mode), and the right gradients when the backward is no longer as append_backward made it (a grad op
deleted, duplicated, moved or written by hand with Paddle's slots), where the fused step cannot run."""
import numpy as np
import pytest

import torchpaddle as paddle
import torchpaddle.nn.functional as F
from torchpaddle.static.executor import run_grad_ops_one_by_one
from tests.optable.core import T, rng_for
from tests.optable.runner import flatten, load_rows, resolve, samples_of, tensor_args
from tests.test_optable_static import RANDOM_IN_STATIC, STATIC_UNSUPPORTED


def _plan(main):
    plans = list(main._plan_cache.values())
    assert len(plans) == 1
    return plans[0]


def _run_both(main, feed, fetch, startup=None):
    """``fetch`` by the fused backward, then one by one, in one scope; -> (fused values, per-op values)."""
    exe, scope = paddle.static.Executor(), paddle.static.Scope()   # the current place, as the eager run
    results = []
    with paddle.static.scope_guard(scope):
        if startup is not None:
            exe.run(startup)
        for per_op in (False, True):
            run_grad_ops_one_by_one(main, per_op)
            results.append(exe.run(main, feed=feed, fetch_list=fetch))
            assert _plan(main).per_op == per_op
    run_grad_ops_one_by_one(main, False)
    return results


# -- op families: float64 programs, both paths against finite differences ------------------------------------------
def _manipulations(v):
    x = v["x"]
    return [paddle.reshape(x, [6, 4]), paddle.transpose(x, [2, 0, 1]), paddle.concat([x, x * 2.0], axis=1),
            *paddle.split(x, 2, axis=2), x[:, 1:3, ::2], paddle.gather(x, v["index"], axis=1),
            paddle.squeeze(paddle.unsqueeze(x, 0), 0), paddle.flatten(x, 1)]


def _norms(v):
    return [paddle.nn.LayerNorm(2)(v["x"]), paddle.nn.BatchNorm1D(3)(v["x"]), paddle.nn.GroupNorm(3, 3)(v["x"]),
            paddle.nn.InstanceNorm1D(3)(v["x"])]


def _rnn(v):
    out, (h, c) = paddle.nn.LSTM(3, 4, direction="bidirect")(v["x"])
    gru_out, _ = paddle.nn.GRU(3, 2)(v["x"])
    return [out, h, c, gru_out]


def _indexing(v):
    x, u = v["x"], v["u"]
    return [paddle.gather(x, v["rows"]), paddle.gather_nd(x, v["points"]), paddle.index_select(x, v["cols"], axis=1),
            paddle.take_along_axis(x, v["along"], 1), paddle.scatter(x, v["rows"], u),
            paddle.scatter(x, v["rows"], u, overwrite=False), paddle.scatter_nd_add(x, v["points"], u[:, 0]),
            paddle.put_along_axis(x, v["along"], x[:, :2] * 2.0, 1, reduce="add"),
            paddle.index_sample(x, v["along"]), paddle.index_add(x, v["rows"], 0, u), x[v["rows"]], x[1:, ::2]]


def _control_flow(v):
    x, flag = v["x"], v["flag"]
    take = paddle.static.nn.cond(flag.sum() > 0, lambda: x * x + 1.0, lambda: paddle.tanh(x))
    skip = paddle.static.nn.cond(flag.sum() < 0, lambda: x * 3.0, lambda: paddle.exp(x) * x)
    i = paddle.full([1], 0, "int64")
    _, looped = paddle.static.nn.while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, paddle.sin(h) * x], [i, x])
    return [take, skip, looped]


_LABEL = np.array([[1], [4], [0], [2]])
_SOFT = np.random.RandomState(2).dirichlet(np.ones(5), 4)
_IDS = np.array([[0, 3], [4, 4], [1, 0]])
# family -> ({input: shape (random data, differentiated), or an array fed as it is}, build(inputs) -> outputs)
FAMILIES = {
    "elementwise": ({"x": (3, 4), "y": (4,)},
                    lambda v: [v["x"] * v["y"] - v["x"] / (v["y"] * v["y"] + 1.0), v["x"] * v["x"],
                               paddle.maximum(v["x"], v["y"]), v["x"] ** 3]),
    "activations": ({"x": (3, 4)},
                    lambda v: [F.relu(v["x"]), paddle.tanh(v["x"]), F.sigmoid(v["x"]), F.gelu(v["x"]),
                               F.softplus(v["x"]), F.leaky_relu(v["x"], 0.1), F.elu(v["x"]), paddle.exp(v["x"])]),
    "matmul_linear": ({"x": (2, 3), "w": (3, 4), "b": (4,), "u": (2, 4, 3)},
                      lambda v: [F.linear(v["x"], v["w"], v["b"]), paddle.matmul(v["x"], v["x"], transpose_y=True),
                                 paddle.matmul(v["u"], v["w"]), paddle.matmul(v["w"], v["u"], transpose_x=True,
                                                                              transpose_y=True)]),
    "reductions": ({"x": (3, 4)},
                   lambda v: [paddle.mean(v["x"], axis=1), paddle.sum(v["x"], axis=0, keepdim=True),
                              paddle.max(v["x"], axis=1), paddle.logsumexp(v["x"]), paddle.prod(v["x"], axis=0),
                              paddle.mean(v["x"])]),
    "manipulation": ({"x": (2, 3, 4), "index": np.array([2, 0])}, _manipulations),
    "softmax_cross_entropy": ({"logits": (4, 5), "soft": _SOFT, "label": _LABEL},
                              lambda v: [F.softmax(v["logits"]), F.log_softmax(v["logits"], axis=0),
                                         F.cross_entropy(v["logits"], v["label"]),
                                         F.cross_entropy(v["logits"], v["soft"], soft_label=True),
                                         F.softmax_with_cross_entropy(v["logits"], v["label"])]),
    "conv_pool": ({"x": (1, 2, 5, 5), "w": (3, 2, 3, 3)},
                  lambda v: [F.conv2d(v["x"], v["w"], padding=1), F.max_pool2d(v["x"], 2), F.avg_pool2d(v["x"], 2),
                             F.conv2d_transpose(v["x"], paddle.transpose(v["w"], [1, 0, 2, 3]), stride=2)]),
    "norms": ({"x": (4, 3, 2)}, _norms),
    "embedding": ({"ids": _IDS, "w": (5, 4)}, lambda v: [F.embedding(v["ids"], v["w"])]),
    "dropout_fixed_mask": ({"x": (4, 5)}, lambda v: [F.dropout(v["x"], 0.4), F.dropout(v["x"], 0.5, mode="downscale_in_infer")]),
    "rnn": ({"x": (2, 5, 3)}, _rnn),
    "indexing_gather_scatter": ({"x": (4, 3), "u": (2, 3), "rows": np.array([2, 0]), "cols": np.array([2, 2, 0]),
                                 "points": np.array([[1, 2], [3, 0]]), "along": np.array([[0, 2], [1, 1], [2, 0],
                                                                                          [0, 0]])}, _indexing),
    "control_flow": ({"x": (2, 3), "flag": np.array([1.0])}, _control_flow),
}


def _family_program(family):
    shapes, build = FAMILIES[family]
    rng = np.random.RandomState(sum(map(ord, family)))
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = 11   # pins the random ops' seeds: every run draws the same dropout mask
    default = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    feed, inputs = {}, {}
    try:
        with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
            for name, spec in shapes.items():
                value = spec if isinstance(spec, np.ndarray) else rng.uniform(-1, 1, spec)
                inputs[name] = paddle.static.data(name, list(value.shape), value.dtype.name)
                inputs[name].stop_gradient = isinstance(spec, np.ndarray)
                feed[name] = value
            outs = [o for o in build(inputs)]
            loss = None
            for k, o in enumerate(outs):
                weight = paddle.static.data(f"weight{k}", list(o.shape), "float64")
                feed[weight.name] = rng.normal(size=o.shape)
                term = paddle.sum(o * weight)
                loss = term if loss is None else loss + term
            wrt = [v for v in inputs.values() if not v.stop_gradient] + [p for p in main.all_parameters()
                                                                         if p.trainable]
            grads = paddle.static.gradients([loss], wrt)
    finally:
        paddle.set_default_dtype(default)
    found = [(v.name, g) for v, g in zip(wrt, grads) if g is not None]
    return main, startup, feed, loss, [n for n, _ in found], [g for _, g in found]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_gradients_agree_and_match_finite_differences(family, static_mode):
    main, startup, feed, loss, names, grads = _family_program(family)
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        fused = exe.run(main, feed=feed, fetch_list=[loss] + grads)
        assert not _plan(main).per_op
        run_grad_ops_one_by_one(main)
        per_op = exe.run(main, feed=feed, fetch_list=[loss] + grads)
        assert _plan(main).per_op
        for name, a, b in zip(["loss"] + names, fused, per_op):
            np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12, err_msg=f"{family}: {name}")
        rng = np.random.RandomState(0)
        eps = 1e-6
        for name, analytic in zip(names, per_op[1:]):
            if name not in feed:
                continue   # a parameter: both paths agree above
            base = feed[name]
            positions = list(np.ndindex(base.shape))
            for i in rng.permutation(len(positions))[:12]:
                idx = positions[i]
                values = []
                for delta in (eps, -eps):
                    moved = base.copy()
                    moved[idx] += delta
                    values.append(exe.run(main, feed=dict(feed, **{name: moved}), fetch_list=[loss])[0])
                numeric = (values[0] - values[1]) / (2 * eps)
                np.testing.assert_allclose(analytic[idx], numeric, rtol=1e-5, atol=1e-7,
                                           err_msg=f"{family}: d loss / d {name}{list(idx)}")


# -- every op-table row: both paths against eager mode (whose gradients test_optable checks by finite differences)
ROWS = load_rows()
# samples whose static program differs from eager in what it differentiates, with the reason
_NOT_LIKE_EAGER = {("assign", 1): "assign(x, output=fed) writes into a fed variable, which stops the gradient"}
_GRAD_ROWS = sorted(n for n, c in ROWS.items() if c.grad and "float64" in c.dtypes and not c.random
                    and n not in STATIC_UNSUPPORTED and n not in RANDOM_IN_STATIC and not c.api.endswith("_"))


def _eager_gradients(case, sample, rng):
    tensors = []
    args = tensor_args(paddle, sample.args, "float64", tensors)
    kwargs = {k: tensor_args(paddle, v, "float64", tensors) for k, v in sample.kwargs.items()}
    outs = [o for o in flatten(resolve(paddle, case.api)(*args, **kwargs))
            if isinstance(o, paddle.Tensor) and o.dtype == paddle.float64]
    weights = [rng.normal(size=o.shape) for o in outs]
    wrt = [(spec, t) for spec, t in tensors if not t.stop_gradient and spec.grad]
    if not outs or not wrt:
        return None
    total = sum((o * paddle.to_tensor(w)).sum() for o, w in zip(outs, weights))
    if total.stop_gradient:
        return None
    grads = paddle.grad(total, [t for _, t in wrt], allow_unused=True)
    return weights, {id(spec): None if g is None else g.numpy() for (spec, _), g in zip(wrt, grads)}


def _static_gradients(case, sample, weights):
    main, startup = paddle.static.Program(), paddle.static.Program()
    feed, wrt = {}, []

    def variable(value):
        if isinstance(value, T):
            array = np.asarray(value.data).astype(value.dtype or "float64")
            var = paddle.static.data(f"in{len(feed)}", list(array.shape), array.dtype.name)
            feed[var.name] = array
            if array.dtype.kind == "f" and value.grad:
                var.stop_gradient = False
                wrt.append((id(value), var))
            return var
        if isinstance(value, (list, tuple)):
            return type(value)(variable(v) for v in value)
        return value

    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        args = variable(sample.args)
        kwargs = {k: variable(v) for k, v in sample.kwargs.items()}
        outs = [o for o in flatten(resolve(paddle, case.api)(*args, **kwargs))
                if isinstance(o, paddle.static.Variable) and o.dtype == paddle.float64]
        loss = None
        for k, (o, w) in enumerate(zip(outs, weights)):
            weight = paddle.static.data(f"weight{k}", list(w.shape), "float64")
            feed[weight.name] = w
            loss = paddle.sum(o * weight) if loss is None else loss + paddle.sum(o * weight)
        grads = paddle.static.gradients([loss], [v for _, v in wrt])
    fetch = [g for g in grads if g is not None]
    if not fetch:
        return [], [], [], []
    fused, per_op = _run_both(main, feed, fetch, startup)
    return [spec for spec, _ in wrt], [g is not None for g in grads], fused, per_op


@pytest.mark.parametrize("name", _GRAD_ROWS)
def test_op_table_row_gradients_agree_with_eager(name, static_mode):
    case = ROWS[name]
    rng = rng_for(name, "per-op")
    for i, sample in enumerate(samples_of(case, "float64")[:2]):
        if (name, i) in _NOT_LIKE_EAGER:
            continue
        paddle.disable_static()
        try:
            eager = _eager_gradients(case, sample, rng)
        finally:
            paddle.enable_static()
        if eager is None:
            continue
        weights, expected = eager
        specs, present, fused, per_op = _static_gradients(case, sample, weights)
        for label, values in (("fused", fused), ("per op", per_op)):
            found = iter(values)
            for spec, has in zip(specs, present):
                got = next(found) if has else None
                want = expected.get(spec)
                if got is None and want is None:
                    continue
                got = np.zeros_like(want) if got is None else got
                want = np.zeros_like(got) if want is None else want
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10, err_msg=f"{name}[{i}] {label}")


# -- backward sections that are not as append_backward made them -----------------------------------------------------
def _two_branches(static_mode):
    """loss = sum(x * a + x * b): x@GRAD = a + b, from two elementwise_mul_grad parts and a sum."""
    main, _ = static_mode
    x = paddle.static.data("x", [3], "float64")
    x.stop_gradient = False
    a = paddle.static.data("a", [3], "float64")
    b = paddle.static.data("b", [3], "float64")
    gx, = paddle.static.gradients([paddle.sum(x * a + x * b)], [x])
    ops = main.global_block().ops
    parts = [op for op in ops if op.type == "elementwise_mul_grad"]
    total = next(op for op in ops if op.type == "sum")
    feed = {"x": np.array([1.0, 2.0, 3.0]), "a": np.array([0.5, -1.0, 2.0]), "b": np.array([4.0, 0.25, -3.0])}
    return main, gx, parts, total, feed


def _run(main, feed, fetch):
    values = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    return values, _plan(main)


def test_an_untouched_backward_runs_fused_and_a_clone_keeps_it(static_mode):
    main, gx, _, _, feed = _two_branches(static_mode)
    (got,), plan = _run(main, feed, [gx])
    assert not plan.per_op
    np.testing.assert_allclose(got, feed["a"] + feed["b"])
    clone = main.clone()
    (again,), plan = _run(clone, feed, [gx.name])
    assert not plan.per_op and np.array_equal(again, got)


def test_a_deleted_grad_op_drops_its_part(static_mode):
    main, gx, parts, total, feed = _two_branches(static_mode)
    block = main.global_block()
    # the part through ``x * b`` (the later forward op, so the first grad op) goes
    dropped = parts[0]
    assert dropped.input("Y") == ["b"]
    block._remove_op(block.ops.index(dropped))
    total.inputs["X"] = [n for n in total.input("X") if n not in dropped.output("X@GRAD")]
    (got,), plan = _run(main, feed, [gx])
    assert plan.per_op
    np.testing.assert_allclose(got, feed["a"])


def test_a_duplicated_grad_op_adds_its_part_again(static_mode):
    main, gx, parts, total, feed = _two_branches(static_mode)
    block = main.global_block()
    copy_name = "x@GRAD@RENAME@block0@2"
    block.create_var(name=copy_name, shape=[3], dtype="float64")
    block._insert_op(block.ops.index(parts[0]) + 1, parts[0].type, dict(parts[0].inputs),
                     {"X@GRAD": [copy_name]}, dict(parts[0].attrs))
    total.inputs["X"] = total.input("X") + [copy_name]
    (got,), plan = _run(main, feed, [gx])
    assert plan.per_op
    np.testing.assert_allclose(got, feed["a"] + 2 * feed["b"])


def test_moved_grad_ops_give_the_same_gradient(static_mode):
    main, gx, parts, _, feed = _two_branches(static_mode)
    ops = main.global_block().ops
    i, j = ops.index(parts[0]), ops.index(parts[1])
    ops[i], ops[j] = ops[j], ops[i]
    main._invalidate()
    (got,), plan = _run(main, feed, [gx])
    assert plan.per_op
    np.testing.assert_allclose(got, feed["a"] + feed["b"])


def test_grad_ops_written_by_hand_with_paddles_slots(static_mode):
    # Paddle's grad ops carry only what their kernels read: tanh_grad and relu_grad have Out but no X, and
    # reshape2_grad has XShape; the missing forward inputs come from the forward ops of the block
    main, _ = static_mode
    block = main.global_block()
    x = paddle.static.data("x", [2, 3], "float64")
    t = paddle.tanh(x)
    s = paddle.reshape(t, [3, 2])
    r = F.relu(s)
    seed = paddle.static.data("seed", [3, 2], "float64")
    reshape = next(op for op in block.ops if op.type == "reshape2")
    for v in (s, t, x):
        block.create_var(name=v.name + "@GRAD", dtype="float64")
    block.append_op("relu_grad", {"Out": [r.name], "Out@GRAD": [seed.name]}, {"X@GRAD": [s.name + "@GRAD"]})
    block.append_op("reshape2_grad", {"XShape": reshape.output("XShape"), "Out@GRAD": [s.name + "@GRAD"]},
                    {"X@GRAD": [t.name + "@GRAD"]})
    block.append_op("tanh_grad", {"Out": [t.name], "Out@GRAD": [t.name + "@GRAD"]}, {"X@GRAD": ["x@GRAD"]})
    X = np.array([[0.5, -1.0, 2.0], [-0.2, 0.3, 1.5]])
    S = np.arange(1.0, 7.0).reshape(3, 2)
    (got,), plan = _run(main, {"x": X, "seed": S}, ["x@GRAD"])
    assert plan.per_op
    T_ = np.tanh(X)
    np.testing.assert_allclose(got, (S * (T_.reshape(3, 2) > 0)).reshape(2, 3) * (1 - T_ ** 2), rtol=1e-12)


def test_a_grad_op_that_cannot_run_alone_says_why(static_mode):
    main, _ = static_mode
    block = main.global_block()
    y = paddle.static.data("y", [3], "float64")
    block.create_var(name="x@GRAD", dtype="float64")
    # no softsign op in the block: nothing to recompute its vjp from
    block.append_op("softsign_grad", {"Out": [y.name], "Out@GRAD": [y.name]}, {"X@GRAD": ["x@GRAD"]})
    with pytest.raises(NotImplementedError, match="softsign_grad .* lacks the forward input X"):
        paddle.static.Executor().run(main, feed={"y": np.ones(3)}, fetch_list=["x@GRAD"])


# -- random forwards: the per-op backward uses the draws of the forward it follows ----------------------------------
@pytest.mark.parametrize("api", ["dropout", "alpha_dropout", "rrelu"])
def test_random_forwards_give_both_paths_the_same_gradient(api, static_mode):
    main, _ = static_mode
    x = paddle.static.data("x", [6, 5], "float64")
    x.stop_gradient = False
    w = paddle.static.data("w", [6, 5], "float64")
    y = {"dropout": lambda: F.dropout(x, 0.5), "alpha_dropout": lambda: F.alpha_dropout(x, 0.5, training=True),
         "rrelu": lambda: F.rrelu(x, training=True)}[api]()
    gx, = paddle.static.gradients([paddle.sum(paddle.tanh(y) * w)], [x])
    rng = np.random.RandomState(3)
    feed = {"x": rng.uniform(-1, 1, (6, 5)), "w": rng.normal(size=(6, 5))}
    results = []
    exe = paddle.static.Executor(paddle.CPUPlace())
    for per_op in (False, True):
        run_grad_ops_one_by_one(main, per_op)
        paddle.seed(5)
        results.append(exe.run(main, feed=feed, fetch_list=[y, gx]))
    (y0, g0), (y1, g1) = results
    np.testing.assert_array_equal(y1, y0)        # the same draws
    np.testing.assert_allclose(g1, g0, rtol=1e-12)
    assert np.count_nonzero(g0) and not np.allclose(g0, g0.flat[0])
