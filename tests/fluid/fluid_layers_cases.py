"""fluid.layers cases, run by real PaddlePaddle 1.8.5 (``python -m tests.fluid.fluid_layers_cases OUT.pkl`` in
.fluid_venv) and by torchpaddle (``run_all(torchpaddle.fluid)``). Each case builds a small static program on
fixed inputs (and fixed parameters), runs it with an Executor, and records the fetched outputs, the gradients of
a weighted sum of the first output, the variables the program holds, and build-time errors.
Python 3.8 + numpy<1.20 compatible: no newer syntax."""
import pickle
import sys

import numpy as np


def arr(*shape, **kw):
    rng = np.random.RandomState(kw.get("seed", sum(shape) + len(shape)))
    return rng.uniform(kw.get("lo", -1.0), kw.get("hi", 1.0), shape).astype(kw.get("dtype", "float32"))


def ints(*shape, **kw):
    rng = np.random.RandomState(kw.get("seed", 7))
    return rng.randint(kw.get("lo", 0), kw.get("hi", 5), shape).astype(kw.get("dtype", "int64"))


class Case(object):
    def __init__(self, build, grad=(), names=False, random=False, runs=1, rtol=1e-5, atol=1e-6):
        self.build, self.grad, self.names, self.random, self.runs = build, grad, names, random, runs
        self.rtol, self.atol = rtol, atol


CASES = {}


def case(name, **kw):
    def register(build):
        CASES[name] = Case(build, **kw)
        return build
    return register


def feed(fluid, name, value, grad=False):
    v = fluid.data(name, list(value.shape), str(value.dtype))
    v.stop_gradient = not grad
    FEEDS[name] = value
    return v


FEEDS = {}


def const_param(fluid, value):
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(value))


# -- layers with parameters --------------------------------------------------------------------------------------------
@case("fc", grad=("x",), names=True)
def _fc(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 2), grad=True)
    return [L.fc(x, 4, num_flatten_dims=2, param_attr=const_param(fluid, arr(2, 4, seed=1)),
                 bias_attr=const_param(fluid, arr(4, seed=2)), act="relu")]


@case("fc_two_inputs", grad=("x", "y"), names=True)
def _fc2(fluid, L):
    x = feed(fluid, "x", arr(2, 3), grad=True)
    y = feed(fluid, "y", arr(2, 5), grad=True)
    return [L.fc([x, y], 3, param_attr=[const_param(fluid, arr(3, 3, seed=3)), const_param(fluid, arr(5, 3, seed=4))],
                 bias_attr=False, act="tanh")]


@case("embedding", names=True)
def _embedding(fluid, L):
    ids = feed(fluid, "ids", np.array([[1], [3], [0], [3]], "int64"))
    return [L.embedding(ids, [5, 3], padding_idx=-2, param_attr=const_param(fluid, arr(5, 3, seed=5)))]


@case("conv2d", grad=("x",), names=True, rtol=1e-4, atol=1e-5)
def _conv2d(fluid, L):
    x = feed(fluid, "x", arr(1, 2, 5, 5), grad=True)
    return [L.conv2d(x, 3, 3, padding=1, stride=2, param_attr=const_param(fluid, arr(3, 2, 3, 3, seed=6)),
                     bias_attr=const_param(fluid, arr(3, seed=7)), act="sigmoid")]


@case("conv2d_transpose", grad=("x",), names=True, rtol=1e-4, atol=1e-5)
def _conv2d_t(fluid, L):
    x = feed(fluid, "x", arr(1, 2, 3, 3), grad=True)
    return [L.conv2d_transpose(x, 3, filter_size=2, stride=2, param_attr=const_param(fluid, arr(2, 3, 2, 2, seed=8)),
                               bias_attr=False)]


@case("batch_norm", grad=("x",), names=True, rtol=1e-4, atol=1e-5)
def _bn(fluid, L):
    x = feed(fluid, "x", arr(3, 2, 2, 2), grad=True)
    return [L.batch_norm(x, act="relu")]


@case("layer_norm", grad=("x",), rtol=1e-4, atol=1e-5)
def _ln(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 4), grad=True)
    return [L.layer_norm(x, begin_norm_axis=1)]


@case("instance_norm", grad=("x",), rtol=1e-4, atol=1e-5)
def _in(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 2, 2), grad=True)
    return [L.instance_norm(x)]


# Paddle 1.8's group_norm gradient without scale and bias is not the derivative (a constant off per group)
@case("group_norm", rtol=1e-4, atol=1e-5)
def _gn(fluid, L):
    x = feed(fluid, "x", arr(2, 4, 2, 2), grad=True)
    return [L.group_norm(x, 2)]


@case("prelu", grad=("x",), names=True)
def _prelu(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 2, 2), grad=True)
    return [L.prelu(x, "channel")]


@case("hsigmoid", grad=("x",), names=True, rtol=1e-4, atol=1e-5)
def _hsigmoid(fluid, L):
    x = feed(fluid, "x", arr(3, 4), grad=True)
    label = feed(fluid, "label", np.array([[1], [4], [5]], "int64"))
    return [L.hsigmoid(x, label, 6, param_attr=const_param(fluid, arr(5, 4, seed=9)),
                       bias_attr=const_param(fluid, arr(5, 1, seed=10)))]


# -- dropout, elementwise, reductions ----------------------------------------------------------------------------------
@case("dropout_infer")
def _dropout_infer(fluid, L):
    x = feed(fluid, "x", arr(3, 4), grad=True)
    return [L.dropout(x, 0.3, is_test=True)]


@case("dropout_train", random=True)
def _dropout_train(fluid, L):
    x = feed(fluid, "x", arr(3, 4))
    return [L.dropout(x, 0.3)]


@case("dropout_upscale_infer")
def _dropout_up(fluid, L):
    x = feed(fluid, "x", arr(3, 4))
    return [L.dropout(x, 0.3, is_test=True, dropout_implementation="upscale_in_train")]


def _elementwise_case(op, y_shape, axis, act=None, lo=-1.0):
    def build(fluid, L):
        x = feed(fluid, "x", arr(2, 3, 4, lo=lo, hi=2.0), grad=True)
        y = feed(fluid, "y", arr(*y_shape, seed=3, lo=0.5, hi=2.0), grad=True)
        return [getattr(L, op)(x, y, axis=axis, act=act)]
    return build


for _op in ("add", "sub", "mul", "div", "max", "min"):
    case("elementwise_" + _op + "_axis1", grad=("x", "y"), names=True)(
        _elementwise_case("elementwise_" + _op, (3,), 1))
case("elementwise_add_act", grad=("x", "y"), names=True)(_elementwise_case("elementwise_add", (3, 4), 1, "relu"))
case("elementwise_pow", grad=("x", "y"))(_elementwise_case("elementwise_pow", (4,), -1, lo=0.5))
case("elementwise_mod")(_elementwise_case("elementwise_mod", (4,), -1, lo=0.5))


@case("elementwise_floordiv_int")
def _floordiv(fluid, L):
    x = feed(fluid, "x", ints(2, 3, 4, lo=-9, hi=9))
    y = feed(fluid, "y", ints(3, lo=1, hi=4, seed=3))
    return [L.elementwise_floordiv(x, y, axis=1), L.elementwise_mod(x, y, axis=1)]


def _reduce_case(op, dim, keep_dim, dtype="float32"):
    def build(fluid, L):
        value = arr(2, 3, 4) if dtype == "float32" else arr(2, 3, 4) > 0
        x = feed(fluid, "x", value, grad=dtype == "float32")
        return [getattr(L, op)(x, dim=dim, keep_dim=keep_dim)]
    return build


for _op in ("sum", "mean", "max", "min", "prod"):
    case("reduce_" + _op + "_dim", grad=("x",), names=True)(_reduce_case("reduce_" + _op, [0, 2], False))
    case("reduce_" + _op + "_all", grad=("x",))(_reduce_case("reduce_" + _op, None, False))
case("reduce_sum_keep", grad=("x",))(_reduce_case("reduce_sum", -1, True))
case("reduce_all")(_reduce_case("reduce_all", 1, False, "bool"))
case("reduce_any")(_reduce_case("reduce_any", None, False, "bool"))


@case("mean", grad=("x",), names=True)
def _mean(fluid, L):
    return [L.mean(feed(fluid, "x", arr(3, 4), grad=True))]


@case("mul", grad=("x", "y"), names=True)
def _mul(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 4), grad=True)
    y = feed(fluid, "y", arr(12, 5, seed=2), grad=True)
    return [L.mul(x, y, x_num_col_dims=1)]


@case("matmul", grad=("x", "y"), names=True)
def _matmul(fluid, L):
    x = feed(fluid, "x", arr(2, 4, 3), grad=True)
    y = feed(fluid, "y", arr(2, 5, 4, seed=2), grad=True)
    return [L.matmul(x, y, transpose_x=True, transpose_y=True, alpha=0.5)]


@case("topk", names=True)
def _topk(fluid, L):
    values, indices = L.topk(feed(fluid, "x", arr(3, 5)), 2)
    return [values, indices]


@case("argsort_argmax")
def _argsort(fluid, L):
    x = feed(fluid, "x", arr(3, 5))
    out, idx = L.argsort(x, axis=1, descending=True)
    return [out, idx, L.argmax(x, axis=1), L.argmin(x, axis=0)]


# -- losses ------------------------------------------------------------------------------------------------------------
@case("cross_entropy_hard", grad=("p",), names=True)
def _xent(fluid, L):
    p = feed(fluid, "p", arr(4, 3, lo=0.1, hi=1.0), grad=True)
    label = feed(fluid, "label", np.array([[0], [2], [1], [2]], "int64"))
    return [L.cross_entropy(p, label)]


@case("cross_entropy_ignore", grad=("p",))
def _xent_ignore(fluid, L):
    p = feed(fluid, "p", arr(4, 3, lo=0.1, hi=1.0), grad=True)
    label = feed(fluid, "label", np.array([[0], [2], [1], [2]], "int64"))
    return [L.cross_entropy(p, label, ignore_index=2)]


@case("cross_entropy_soft", grad=("p",))
def _xent_soft(fluid, L):
    p = feed(fluid, "p", arr(4, 3, lo=0.1, hi=1.0), grad=True)
    label = feed(fluid, "label", arr(4, 3, lo=0.0, hi=1.0, seed=3))
    return [L.cross_entropy(p, label, soft_label=True)]


@case("softmax_with_cross_entropy", grad=("logits",), names=True)
def _swce(fluid, L):
    logits = feed(fluid, "logits", arr(4, 3), grad=True)
    label = feed(fluid, "label", np.array([[0], [2], [1], [2]], "int64"))
    loss, softmax = L.softmax_with_cross_entropy(logits, label, return_softmax=True)
    return [loss, softmax]


def _loss_case(fn, shapes, grad=True):
    def build(fluid, L):
        args = [feed(fluid, "a%d" % i, value, grad=grad and value.dtype == np.float32)
                for i, value in enumerate(shapes())]
        return [fn(L, *args)]
    return build


case("square_error_cost", grad=("a0",))(_loss_case(lambda L, a, b: L.square_error_cost(a, b),
                                                     lambda: [arr(3, 2), arr(3, 2, seed=1)]))
case("mse_loss", grad=("a0",))(_loss_case(lambda L, a, b: L.mse_loss(a, b), lambda: [arr(3, 2), arr(3, 2, seed=1)]))
case("huber_loss", grad=("a0",))(_loss_case(lambda L, a, b: L.huber_loss(a, b, 0.5),
                                              lambda: [arr(3, 1), arr(3, 1, seed=1)]))
case("kldiv_loss", grad=("a0",))(_loss_case(lambda L, a, b: L.kldiv_loss(a, b, "batchmean"),
                                              lambda: [arr(3, 2), arr(3, 2, lo=0.1, seed=1)]))
case("margin_rank_loss", grad=("a1",))(_loss_case(lambda L, l, a, b: L.margin_rank_loss(l, a, b, 0.2),
                                                    lambda: [np.array([[1.], [-1.], [1.]], "float32"), arr(3, 1),
                                                             arr(3, 1, seed=1)]))
case("rank_loss", grad=("a1",))(_loss_case(lambda L, l, a, b: L.rank_loss(l, a, b),
                                             lambda: [np.array([[1.], [0.], [1.]], "float32"), arr(3, 1),
                                                      arr(3, 1, seed=1)]))
case("bpr_loss", grad=("a0",))(_loss_case(lambda L, a, b: L.bpr_loss(a, b),
                                            lambda: [arr(3, 4), np.array([[1], [3], [0]], "int64")]))
case("sigmoid_xent_logits", grad=("a0",))(_loss_case(
    lambda L, a, b: L.sigmoid_cross_entropy_with_logits(a, b, ignore_index=-1, normalize=True),
    lambda: [arr(3, 4), np.array([[1, 0, -1, 1], [0, 0, 1, -1], [1, 1, 1, 0]], "float32")]))
case("teacher_student_sigmoid_loss", grad=("a0",))(_loss_case(
    lambda L, a, b: L.teacher_student_sigmoid_loss(a, b),
    lambda: [arr(5, 1, lo=-3.0, hi=3.0), np.array([[-2.], [-0.5], [0.3], [1.4], [0.0]], "float32")]))
case("log_loss", grad=("a0",))(_loss_case(lambda L, a, b: L.log_loss(a, b),
                                            lambda: [arr(3, 1, lo=0.1, hi=0.9),
                                                     np.array([[1.], [0.], [1.]], "float32")]))
case("sigmoid_focal_loss", grad=("a0",))(_loss_case(
    lambda L, a, b, c: L.sigmoid_focal_loss(a, b, c),
    lambda: [arr(4, 3), np.array([[0], [1], [3], [2]], "int32"), np.array([3], "int32")]))
case("smooth_l1", grad=("a0",))(_loss_case(lambda L, a, b: L.smooth_l1(a, b, sigma=2.0),
                                             lambda: [arr(3, 4, lo=-2.0, hi=2.0), arr(3, 4, seed=1)]))
case("iou_similarity")(_loss_case(lambda L, a, b: L.iou_similarity(a, b),
                                  lambda: [np.array([[0, 0, 2, 2], [1, 1, 3, 4]], "float32"),
                                           np.array([[1, 1, 2, 2], [0, 0, 1, 1], [2, 2, 5, 5]], "float32")]))


# -- activations -------------------------------------------------------------------------------------------------------
def _unary_case(fn, lo=-2.0, hi=2.0, shape=(3, 4)):
    def build(fluid, L):
        return [fn(L, feed(fluid, "x", arr(*shape, lo=lo, hi=hi), grad=True))]
    return build


_UNARY = [
    ("relu", lambda L, x: L.relu(x)), ("relu6", lambda L, x: L.relu6(x, threshold=1.5)),
    ("brelu", lambda L, x: L.brelu(x, t_min=-0.5, t_max=1.0)), ("elu", lambda L, x: L.elu(x, alpha=0.7)),
    ("selu", lambda L, x: L.selu(x)), ("leaky_relu", lambda L, x: L.leaky_relu(x)),
    ("hard_sigmoid", lambda L, x: L.hard_sigmoid(x)), ("hard_swish", lambda L, x: L.hard_swish(x)),
    ("swish", lambda L, x: L.swish(x, beta=2.0)), ("soft_relu", lambda L, x: L.soft_relu(x, threshold=1.0)),
    ("logsigmoid", lambda L, x: L.logsigmoid(x)), ("softplus", lambda L, x: L.softplus(x)),
    ("softsign", lambda L, x: L.softsign(x)), ("tanh", lambda L, x: L.tanh(x)),
    ("tanh_shrink", lambda L, x: L.tanh_shrink(x)), ("gelu", lambda L, x: L.gelu(x)),
    ("hard_shrink", lambda L, x: L.hard_shrink(x, threshold=0.6)), ("softshrink", lambda L, x: L.softshrink(x)),
    ("thresholded_relu", lambda L, x: L.thresholded_relu(x, threshold=0.3)),
    ("softmax_axis0", lambda L, x: L.softmax(x, axis=0)), ("sigmoid", lambda L, x: L.sigmoid(x)),
    ("exp", lambda L, x: L.exp(x)), ("abs", lambda L, x: L.abs(x)), ("square", lambda L, x: L.square(x)),
    ("cumsum_exclusive_reverse", lambda L, x: L.cumsum(x, axis=1, exclusive=True, reverse=True)),
    ("cumsum_flat", lambda L, x: L.cumsum(x)), ("stanh", lambda L, x: L.stanh(x)),
    ("l2_normalize", lambda L, x: L.l2_normalize(x, axis=1)), ("scale", lambda L, x: L.scale(x, 2.0, 0.5, False)),
    ("clip", lambda L, x: L.clip(x, -0.5, 0.8)), ("clip_by_norm", lambda L, x: L.clip_by_norm(x, 1.0)),
    ("pow", lambda L, x: L.pow(x, 2.0)), ("sign", lambda L, x: L.sign(x)),
]
# Paddle 1.8 has no clip_by_norm gradient
for _name, _fn in _UNARY:
    case(_name, grad=() if _name == "clip_by_norm" else ("x",),
         names=_name in ("relu", "soft_relu", "leaky_relu", "swish"))(_unary_case(_fn))
case("sqrt", grad=("x",))(_unary_case(lambda L, x: L.sqrt(x), lo=0.5))
case("log", grad=("x",))(_unary_case(lambda L, x: L.log(x), lo=0.5))
case("maxout", grad=("x",))(_unary_case(lambda L, x: L.maxout(x, 2), shape=(2, 4, 2, 2)))
case("lrn", grad=("x",), rtol=1e-4)(_unary_case(lambda L, x: L.lrn(x, n=3, k=2.0, alpha=0.1), shape=(2, 4, 2, 2)))
case("pixel_shuffle", grad=("x",))(_unary_case(lambda L, x: L.pixel_shuffle(x, 2), shape=(1, 8, 2, 2)))
case("shuffle_channel", grad=("x",))(_unary_case(lambda L, x: L.shuffle_channel(x, 2), shape=(1, 4, 2, 2)))
case("space_to_depth", grad=("x",))(_unary_case(lambda L, x: L.space_to_depth(x, 2), shape=(1, 8, 4, 2)))
case("add_position_encoding", grad=("x",))(_unary_case(lambda L, x: L.add_position_encoding(x, 0.5, 2.0),
                                                        shape=(2, 3, 6)))
case("continuous_value_model", grad=("x",))(_unary_case(
    lambda L, x: L.continuous_value_model(x, L.assign(arr(3, 2, seed=4)), True), lo=0.1, hi=3.0, shape=(3, 5)))


@case("cvm_off", grad=("x",))
def _cvm_off(fluid, L):
    x = feed(fluid, "x", arr(3, 5), grad=True)
    return [L.continuous_value_model(x, feed(fluid, "cvm", arr(3, 2, seed=4)), False)]


# -- shape and indexing ------------------------------------------------------------------------------------------------
_SHAPE_OPS = [
    ("reshape", lambda L, x: L.reshape(x, [0, -1, 2])), ("flatten", lambda L, x: L.flatten(x, axis=2)),
    ("squeeze", lambda L, x: L.squeeze(L.unsqueeze(x, [0, 3]), [0])),
    ("split_default_dim", lambda L, x: L.split(x, 2)[1]), ("split_sections", lambda L, x: L.split(x, [1, 2], dim=1)[1]),
    ("stack", lambda L, x: L.stack([x, x], axis=1)), ("transpose", lambda L, x: L.transpose(x, [2, 0, 1])),
    ("slice", lambda L, x: L.slice(x, axes=[1, 2], starts=[1, 0], ends=[3, 3])),
    ("strided_slice", lambda L, x: L.strided_slice(x, [1, 2], [0, 3], [3, 0], [2, -1])),
    ("crop_tensor", lambda L, x: L.crop_tensor(x, [1, 2, 2], [1, 1, 1])),
    ("expand", lambda L, x: L.expand(x, [1, 2, 2])), ("pad", lambda L, x: L.pad(x, [0, 1, 1, 0, 2, 1], 0.5)),
    ("pad2d_edge", lambda L, x: L.pad2d(L.unsqueeze(x, [0]), [1, 0, 2, 1], mode="edge")),
    ("pad2d_reflect", lambda L, x: L.pad2d(L.unsqueeze(x, [0]), [1, 1, 1, 0], mode="reflect")),
    ("reverse", lambda L, x: L.reverse(x, [0, 2])), ("concat", lambda L, x: L.concat([x, x * 2.0], axis=2)),
    ("sums", lambda L, x: L.sums([x, x, x])), ("sum", lambda L, x: L.sum([x, x])),
    ("gather", lambda L, x: L.gather(x, L.assign(np.array([1, 0, 1], "int32")), overwrite=False)),
    ("gather_nd", lambda L, x: L.gather_nd(x, L.assign(np.array([[1, 2], [0, 0]], "int64")))),
    ("unstack", lambda L, x: L.unstack(x, axis=1)[2]),
    ("affine_channel", lambda L, x: L.affine_channel(L.unsqueeze(x, [0]), L.assign(np.array([1., 2.], "float32")),
                                                     L.assign(np.array([0.5, -1.], "float32")))),
]
for _name, _fn in _SHAPE_OPS:
    case(_name, grad=("x",))(_unary_case(_fn, shape=(2, 3, 4)))
# Paddle 1.8's scatter gradient passes the overwritten rows of x through; no gradient is compared here
case("scatter")(_unary_case(lambda L, x: L.scatter(x, L.assign(np.array([1], "int64")),
                                                   L.assign(np.ones((1, 3, 4), "float32"))), shape=(2, 3, 4)))


@case("shape_size_rank")
def _shape(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 4))
    return [L.shape(x), L.size(x), L.rank(x)]


@case("gather_overwrite", grad=("x",), names=True)
def _gather_overwrite(fluid, L):
    x = feed(fluid, "x", arr(4, 3), grad=True)
    index = feed(fluid, "index", np.array([1, 0, 1, 3, 1], "int64"))
    return [L.gather(x, index)]


@case("expand_as")
def _expand_as(fluid, L):
    x = feed(fluid, "x", arr(1, 3), grad=True)
    return [L.expand_as(x, feed(fluid, "t", arr(4, 3, seed=2)))]


@case("pad_constant_like", grad=("y",))
def _pad_like(fluid, L):
    x = feed(fluid, "x", arr(3, 4))
    return [L.pad_constant_like(x, feed(fluid, "y", arr(2, 3, seed=2), grad=True), 1.5)]


@case("where_unique")
def _where(fluid, L):
    x = feed(fluid, "x", np.array([2, 3, 3, 1, 5, 3], "int64"))
    out, index = L.unique(x)
    out2, index2, count = L.unique_with_counts(x, dtype="int64")
    return [L.where(L.greater_than(x, L.fill_constant([1], "int64", 2))), out, index, out2, index2, count]


@case("one_hot_label_smooth")
def _one_hot(fluid, L):
    ids = feed(fluid, "ids", np.array([[1], [0], [3]], "int64"))
    oh = L.one_hot(ids, 4)
    return [oh, L.label_smooth(oh, epsilon=0.2)]


@case("creation")
def _creation(fluid, L):
    x = feed(fluid, "x", arr(2, 3))
    return [L.fill_constant([2, 2], "int32", 7), L.zeros([3], "float32"), L.ones([1, 2], "int64"),
            L.zeros_like(x), L.ones_like(x), L.assign(np.array([[1.5, 2.5]], "float32")), L.cast(x, "int32"),
            L.range(0, 10, 3, "int64"), L.linspace(0.0, 1.0, 5, "float32"),
            L.diag(np.array([1.0, 2.0], "float32")), L.eye(2, 3), L.eye(2, batch_shape=[2]),
            L.create_global_var([2], 3.5, "float32", persistable=True, name="g")]


@case("has_inf_nan")
def _has(fluid, L):
    x = feed(fluid, "x", np.array([1.0, np.inf, 2.0], "float32"))
    y = feed(fluid, "y", np.array([1.0, 2.0], "float32"))
    return [L.has_inf(x), L.has_nan(x), L.isfinite(x), L.isfinite(y), L.has_inf(y)]


@case("compare_logical")
def _compare(fluid, L):
    x = feed(fluid, "x", np.array([1, 5, 3], "int64"))
    y = feed(fluid, "y", np.array([2, 5, 1], "int64"))
    c = L.fill_constant([3], "bool", False)
    L.less_than(x, y, cond=c)
    a, b = L.greater_equal(x, y), L.not_equal(x, y)
    return [c, L.less_equal(x, y), L.greater_than(x, y), a, L.equal(x, y), b, L.logical_and(a, b),
            L.logical_or(a, b), L.logical_xor(a, b), L.logical_not(a)]


@case("fsp_matrix", grad=("x",))
def _fsp(fluid, L):
    x = feed(fluid, "x", arr(2, 3, 2, 2), grad=True)
    return [L.fsp_matrix(x, feed(fluid, "y", arr(2, 2, 2, 2, seed=3)))]


@case("random_ops", random=True)
def _random(fluid, L):
    p = feed(fluid, "p", np.array([[0.1, 0.9], [1.0, 0.0]], "float32"))
    return [L.uniform_random([2, 3]), L.gaussian_random([3, 1], dtype="float64"), L.sampling_id(p)]


# -- pooling and resizing ----------------------------------------------------------------------------------------------
_POOL = [
    ("pool2d_max", lambda L, x: L.pool2d(x, 2, "max", 2)),
    ("pool2d_avg_pad_inclusive", lambda L, x: L.pool2d(x, 3, "avg", 2, 1, exclusive=False)),
    ("pool2d_avg_pad_exclusive_ceil", lambda L, x: L.pool2d(x, 2, "avg", 2, 1, ceil_mode=True)),
    ("pool2d_global", lambda L, x: L.pool2d(x, pool_type="avg", global_pooling=True)),
    ("adaptive_pool2d_avg", lambda L, x: L.adaptive_pool2d(x, [2, 3], "avg")),
    ("adaptive_pool2d_max", lambda L, x: L.adaptive_pool2d(x, 2)),
    ("resize_bilinear", lambda L, x: L.resize_bilinear(x, [7, 3])),
    ("resize_bilinear_mode0", lambda L, x: L.resize_bilinear(x, [7, 3], align_corners=False, align_mode=0)),
    ("resize_bilinear_scale", lambda L, x: L.resize_bilinear(x, scale=1.5, align_corners=False)),
    ("resize_nearest", lambda L, x: L.resize_nearest(x, [7, 9])),
    ("resize_nearest_noalign", lambda L, x: L.resize_nearest(x, [3, 9], align_corners=False)),
    ("image_resize_short", lambda L, x: L.image_resize_short(x, 7)),
]
for _name, _fn in _POOL:
    case(_name, grad=("x",), names=_name in ("pool2d_max", "resize_bilinear"), rtol=1e-4, atol=1e-5)(
        _unary_case(_fn, shape=(1, 2, 5, 4)))
case("pool3d", grad=("x",))(_unary_case(lambda L, x: L.pool3d(x, 2, "max", 1), shape=(1, 1, 3, 3, 3)))
case("resize_trilinear", grad=("x",), rtol=1e-4)(_unary_case(lambda L, x: L.resize_trilinear(x, [3, 2, 4]),
                                                             shape=(1, 1, 2, 3, 2)))


@case("adaptive_pool2d_index")
def _adaptive_index(fluid, L):
    out, mask = L.adaptive_pool2d(feed(fluid, "x", arr(1, 2, 5, 4)), [2, 2], require_index=True)
    return [out, mask]


# -- learning-rate decays: the lr over three runs of the main program -----------------------------------------------
_DECAYS = [
    ("exponential_decay", lambda L: L.exponential_decay(0.1, 2, 0.5)),
    ("exponential_decay_staircase", lambda L: L.exponential_decay(0.1, 2, 0.5, staircase=True)),
    ("natural_exp_decay", lambda L: L.natural_exp_decay(0.1, 2, 0.5)),
    ("inverse_time_decay", lambda L: L.inverse_time_decay(0.1, 2, 0.5, staircase=True)),
    ("polynomial_decay", lambda L: L.polynomial_decay(0.1, 2, 0.01, power=2.0)),
    ("polynomial_decay_cycle", lambda L: L.polynomial_decay(0.1, 1, 0.01, cycle=True)),
    ("piecewise_decay", lambda L: L.piecewise_decay([1, 2], [0.1, 0.05, 0.01])),
    ("noam_decay", lambda L: L.noam_decay(16, 2)),
    ("cosine_decay", lambda L: L.cosine_decay(0.1, 1, 4)),
    ("linear_lr_warmup", lambda L: L.linear_lr_warmup(0.1, 2, 0.0, 0.1)),
    ("warmup_of_decay", lambda L: L.linear_lr_warmup(L.exponential_decay(0.1, 1, 0.5), 1, 0.01, 0.1)),
]
for _name, _fn in _DECAYS:
    case(_name, runs=3)((lambda fn: lambda fluid, L: [fn(L)])(_fn))


@case("sgd_with_decayed_lr", runs=3)
def _sgd_decay(fluid, L):
    x = feed(fluid, "x", arr(4, 3))
    y = feed(fluid, "y", arr(4, 1, seed=5))
    pred = L.fc(x, 1, param_attr=const_param(fluid, arr(3, 1, seed=6)), bias_attr=False)
    loss = L.mean(L.square_error_cost(pred, y))
    lr = L.linear_lr_warmup(L.piecewise_decay([2], [0.1, 0.01]), 1, 0.5, 0.1)
    fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    return [loss, lr]


@case("autoincreased_step_counter", runs=3, names=True)
def _counter(fluid, L):
    return [L.autoincreased_step_counter(begin=5, step=2)]


# -- control flow ------------------------------------------------------------------------------------------------------
@case("while_block")
def _while(fluid, L):
    i = L.fill_constant([1], "int64", 0)
    n = L.fill_constant([1], "int64", 5)
    total = L.fill_constant([1], "float32", 0.0)
    cond = L.less_than(i, n)
    loop = L.While(cond)
    with loop.block():
        L.assign(L.elementwise_add(total, L.cast(i, "float32")), total)
        L.increment(i, in_place=True)
        L.less_than(i, n, cond=cond)
    return [total, i]


@case("static_rnn", grad=("x", "h0"), rtol=1e-4, atol=1e-5)
def _static_rnn(fluid, L):
    x = feed(fluid, "x", arr(3, 2, 4), grad=True)          # [steps, batch, size]
    h0 = feed(fluid, "h0", arr(2, 5, seed=2), grad=True)
    rnn = L.StaticRNN()
    with rnn.step():
        word = rnn.step_input(x)
        prev = rnn.memory(init=h0)
        counter = rnn.memory(shape=[-1, 1], batch_ref=word, init_value=1.0)
        hidden = L.fc([word, prev], 5, param_attr=[const_param(fluid, arr(4, 5, seed=3)),
                                                   const_param(fluid, arr(5, 5, seed=4))],
                      bias_attr=const_param(fluid, arr(5, seed=5)), act="tanh")
        rnn.update_memory(prev, hidden)
        rnn.update_memory(counter, L.scale(counter, 2.0))
        rnn.step_output(hidden)
        rnn.step_output(counter)
    hidden_seq, counters = rnn()
    return [hidden_seq, counters]


@case("while_tensor_array")
def _while_array(fluid, L):
    x = feed(fluid, "x", np.array([1.0, 2.0], "float32"))
    array = L.create_array("float32")
    i = L.fill_constant([1], "int64", 0)
    n = L.fill_constant([1], "int64", 3)
    cond = L.less_than(i, n)
    loop = L.While(cond)
    with loop.block():
        L.array_write(L.scale(x, 2.0) + L.cast(i, "float32"), i, array)
        L.increment(i, in_place=True)
        L.less_than(i, n, cond=cond)
    joined, lengths = L.tensor_array_to_tensor(array, axis=0)
    return [joined, lengths, L.array_length(array),
            L.array_read(array, L.fill_constant([1], "int64", 1))]


def _switch_case(value):
    def build(fluid, L):
        x = feed(fluid, "x", np.array([value], "float32"))
        lr = L.create_global_var([1], 0.0, "float32", persistable=True, name="lr")
        with L.Switch() as switch:
            with switch.case(L.less_than(x, L.fill_constant([1], "float32", 2.0))):
                L.assign(L.fill_constant([1], "float32", 1.0), lr)
            with switch.case(L.less_than(x, L.fill_constant([1], "float32", 4.0))):
                L.assign(L.fill_constant([1], "float32", 2.0), lr)
            with switch.default():
                L.assign(L.fill_constant([1], "float32", 3.0), lr)
        return [lr]
    return build


case("switch_first")(_switch_case(1.0))
case("switch_second")(_switch_case(3.0))
case("switch_default")(_switch_case(9.0))


@case("cond_while_loop_case")
def _cond(fluid, L):
    x = feed(fluid, "x", np.array([3.0], "float32"))
    big = L.greater_than(x, L.fill_constant([1], "float32", 2.0))
    c = L.cond(big, lambda: x * 2.0, lambda: x - 1.0)
    i = L.fill_constant([1], "int64", 0)
    ten = L.fill_constant([1], "int64", 10)
    j, = L.while_loop(lambda k: L.less_than(k, ten), lambda k: [k + 3], [i])
    k = L.case([(big, lambda: L.fill_constant([1], "float32", 7.0))],
               default=lambda: L.fill_constant([1], "float32", 8.0))
    s = L.switch_case(L.fill_constant([1], "int32", 1), {0: lambda: x, 1: lambda: x * 3.0})
    inc = L.increment(L.fill_constant([1], "float32", 1.5), value=2.0, in_place=False)
    return [c, j, k, s, inc]


# -- more layers with parameters, vision, detection, creation ------------------------------------------------------
@case("conv3d", grad=("x",), names=True, rtol=1e-4, atol=1e-5)
def _conv3d(fluid, L):
    x = feed(fluid, "x", arr(1, 2, 3, 3, 3), grad=True)
    return [L.conv3d(x, 2, 2, param_attr=const_param(fluid, arr(2, 2, 2, 2, 2, seed=12)), bias_attr=False)]


@case("conv3d_transpose", grad=("x",), rtol=1e-4, atol=1e-5)
def _conv3d_t(fluid, L):
    x = feed(fluid, "x", arr(1, 2, 2, 2, 2), grad=True)
    return [L.conv3d_transpose(x, 1, filter_size=2, param_attr=const_param(fluid, arr(2, 1, 2, 2, 2, seed=13)),
                               bias_attr=False)]


@case("bilinear_tensor_product", grad=("x", "y"), names=True, rtol=1e-4, atol=1e-5)
def _btp(fluid, L):
    x = feed(fluid, "x", arr(2, 3), grad=True)
    y = feed(fluid, "y", arr(2, 4, seed=3), grad=True)
    return [L.bilinear_tensor_product(x, y, 2, param_attr=const_param(fluid, arr(2, 3, 4, seed=14)),
                                      bias_attr=const_param(fluid, arr(1, 2, seed=15)))]


@case("embedding_sparse", names=True)
def _embedding_sparse(fluid, L):
    ids = feed(fluid, "ids", np.array([[[1], [2]], [[0], [4]]], "int64"))
    return [L.embedding(ids, [5, 2], is_sparse=True, padding_idx=0, param_attr=const_param(fluid, arr(5, 2)))]


@case("adaptive_pool3d", grad=("x",))
def _ap3(fluid, L):
    return [L.adaptive_pool3d(feed(fluid, "x", arr(1, 2, 3, 4, 5), grad=True), [1, 2, 2], "avg")]


@case("image_resize_nearest", grad=("x",))
def _ir(fluid, L):
    return [L.image_resize(feed(fluid, "x", arr(1, 1, 3, 3), grad=True), [5, 4], resample="NEAREST")]


@case("crop_old")
def _crop(fluid, L):
    x = feed(fluid, "x", arr(3, 4))
    return [L.crop(x, shape=feed(fluid, "y", arr(2, 2, seed=3)), offsets=[1, 1]), L.crop(x, [2, 3])]


@case("affine_grid_grid_sampler", grad=("x",), rtol=1e-4, atol=1e-5)
def _grid(fluid, L):
    theta = feed(fluid, "theta", np.array([[[0.9, 0.1, 0.05], [-0.1, 1.1, 0.0]]], "float32"))
    grid = L.affine_grid(theta, [1, 1, 3, 4])
    x = feed(fluid, "x", arr(1, 1, 3, 4), grad=True)
    return [L.grid_sampler(x, grid), grid]


@case("dice_kldiv_losses", grad=("p",))
def _dice(fluid, L):
    p = feed(fluid, "p", arr(3, 4, lo=0.05, hi=1.0), grad=True)
    label = feed(fluid, "label", np.array([[1], [3], [0]], "int64"))
    return [L.dice_loss(p, label), L.kldiv_loss(L.log(p), L.softmax(p), "sum"),
            L.kldiv_loss(L.log(p), L.softmax(p), "none")]


@case("detection_mapped")
def _detection(fluid, L):
    image = feed(fluid, "image", arr(1, 3, 8, 8))
    feature = feed(fluid, "feature", arr(1, 2, 2, 2))
    boxes, variances = L.prior_box(feature, image, [2.0], [4.0], [1.0, 2.0], flip=True, clip=True)
    prior = feed(fluid, "prior", np.array([[0.1, 0.1, 0.5, 0.6], [0.2, 0.3, 0.7, 0.9]], "float32"))
    target = feed(fluid, "target", np.array([[0.15, 0.1, 0.45, 0.7], [0.3, 0.3, 0.6, 0.8]], "float32"))
    # (box_clip needs a LoD input on Paddle 1.8, where a dense one crashes it: tested in test_fluid_layers)
    return [boxes, variances, L.box_coder(prior, [0.1, 0.1, 0.2, 0.2], target)]


@case("yolo_box")
def _yolo_box(fluid, L):
    x = feed(fluid, "x", arr(1, 14, 2, 2))
    size = feed(fluid, "size", np.array([[32, 32]], "int32"))
    b, s = L.yolo_box(x, size, [10, 13, 16, 30], 2, 0.01, 16)
    return [b, s]


@case("creation_more")
def _creation_more(fluid, L):
    x = feed(fluid, "x", arr(3, 2))
    p = L.create_parameter([2, 3], "float32", name="p0",
                           default_initializer=fluid.initializer.ConstantInitializer(0.5))
    d = L.data("d", [4], dtype="float32")
    FEEDS["d"] = np.arange(8, dtype="float32").reshape(2, 4)
    return [p, L.fill_constant_batch_size_like(x, [1, 5], "int64", 7), d,
            L.is_empty(x), L.log_softmax(x, axis=0), L.mish(x),
            L.label_smooth(L.one_hot(L.assign(np.array([[1], [0]], "int64")), 3), epsilon=0.1,
                           prior_dist=L.assign(np.array([[0.2, 0.3, 0.5]], "float32")))]


@case("distributions", rtol=1e-4, atol=1e-5)
def _distributions(fluid, L):
    loc = L.assign(np.array([0.5, -1.0], "float32"))
    scale = L.assign(np.array([1.5, 0.5], "float32"))
    normal = L.Normal(loc, scale)
    other = L.Normal(L.assign(np.array([0.0, 0.0], "float32")), L.assign(np.array([1.0, 2.0], "float32")))
    value = L.assign(np.array([0.3, 0.2], "float32"))
    uniform = L.Uniform(L.assign(np.array([0.0, 1.0], "float32")), L.assign(np.array([2.0, 4.0], "float32")))
    cat = L.Categorical(L.assign(np.array([[0.2, 1.0, -0.5]], "float32")))
    cat2 = L.Categorical(L.assign(np.array([[1.0, 0.0, 0.5]], "float32")))
    mvn = L.MultivariateNormalDiag(L.assign(np.array([0.3, 0.5], "float32")),
                                   L.assign(np.array([[0.4, 0.0], [0.0, 0.5]], "float32")))
    mvn2 = L.MultivariateNormalDiag(L.assign(np.array([0.2, 0.4], "float32")),
                                    L.assign(np.array([[0.3, 0.0], [0.0, 0.6]], "float32")))
    return [normal.entropy(), normal.log_prob(value), normal.kl_divergence(other), uniform.entropy(),
            uniform.log_prob(value), cat.entropy(), cat.kl_divergence(cat2), mvn.entropy(), mvn.kl_divergence(mvn2)]


@case("random_shapes", random=True)
def _random_shapes(fluid, L):
    x = feed(fluid, "x", arr(2, 3))
    return [L.dropout(x, 0.5, seed=3), L.uniform_random([4], min=2.0, max=3.0, seed=5),
            L.gaussian_random([2, 2], mean=1.0, std=0.1, seed=4), L.Normal(0.0, 1.0).sample([3]),
            L.Uniform(1.0, 2.0).sample([2, 2], seed=2)]


# (Paddle 1.8's inplace_abn overwrites x and restores it in its backward: its fetched output after a backward
# pass is not the forward value, so only the forward is compared)
@case("lstm_unit", grad=("x", "h", "c"), rtol=1e-4, atol=1e-5)
def _lstm_unit(fluid, L):
    x = feed(fluid, "x", arr(2, 3), grad=True)
    h = feed(fluid, "h", arr(2, 4, seed=2), grad=True)
    c = feed(fluid, "c", arr(2, 4, seed=3), grad=True)
    new_h, new_c = L.lstm_unit(x, h, c, forget_bias=0.5, param_attr=const_param(fluid, arr(7, 16, seed=4)),
                               bias_attr=const_param(fluid, arr(16, seed=5)))
    return [new_h, new_c]


def _gru_unit_case(origin_mode, activation):
    def build(fluid, L):
        x = feed(fluid, "x", arr(2, 9), grad=True)
        h = feed(fluid, "h", arr(2, 3, seed=2), grad=True)
        out, reset, gate = L.gru_unit(x, h, 9, param_attr=const_param(fluid, arr(3, 9, seed=6)),
                                      bias_attr=const_param(fluid, arr(1, 9, seed=7)), activation=activation,
                                      origin_mode=origin_mode)
        return [out, reset, gate]
    return build


case("gru_unit", grad=("x", "h"), rtol=1e-4, atol=1e-5)(_gru_unit_case(False, "tanh"))
case("gru_unit_origin_relu", grad=("x", "h"), rtol=1e-4, atol=1e-5)(_gru_unit_case(True, "relu"))


@case("print")
def _print(fluid, L):
    x = feed(fluid, "x", arr(2, 2))
    return [L.Print(x, message="fluid print case", summarize=2) * 2.0]


@case("inplace_abn", rtol=1e-4, atol=1e-5)
def _abn(fluid, L):
    x = feed(fluid, "x", arr(3, 2, 2, 2), grad=True)
    return [L.inplace_abn(x, act="leaky_relu", act_alpha=0.1)]


# -- bad input: fluid's error types ------------------------------------------------------------------------------------
_ERRORS = [
    ("fc_numpy_input", lambda fluid, L: L.fc(np.ones((2, 3), "float32"), 3)),
    ("elementwise_add_numpy", lambda fluid, L: L.elementwise_add(feed(fluid, "x", arr(2, 3)), np.ones(3, "float32"))),
    ("pool2d_bad_type", lambda fluid, L: L.pool2d(feed(fluid, "x", arr(1, 1, 4, 4)), 2, "min")),
    ("pool2d_no_size", lambda fluid, L: L.pool2d(feed(fluid, "x", arr(1, 1, 4, 4)))),
    ("dropout_bad_impl", lambda fluid, L: L.dropout(feed(fluid, "x", arr(2, 3)), 0.5, dropout_implementation="x")),
    ("cross_entropy_int_input", lambda fluid, L: L.cross_entropy(feed(fluid, "x", ints(2, 3)),
                                                                 feed(fluid, "l", ints(2, 1)))),
    ("mean_int", lambda fluid, L: L.mean(feed(fluid, "x", ints(2, 3)))),
    ("reduce_sum_list", lambda fluid, L: L.reduce_sum([1.0, 2.0])),
    ("embedding_float_ids", lambda fluid, L: L.embedding(feed(fluid, "x", arr(2, 1)), [4, 3])),
    ("image_resize_bad_resample", lambda fluid, L: L.image_resize(feed(fluid, "x", arr(1, 1, 2, 2)), [3, 3],
                                                                  resample="CUBIC")),
    ("softmax_with_xent_int", lambda fluid, L: L.softmax_with_cross_entropy(feed(fluid, "x", ints(2, 3)),
                                                                            feed(fluid, "l", ints(2, 1)))),
    ("sequence_pool_needs_lod", None),
]
for _name, _fn in _ERRORS:
    if _fn is not None:
        case("error_" + _name)((lambda fn: lambda fluid, L: [fn(fluid, L)])(_fn))


# -- the runner --------------------------------------------------------------------------------------------------------
def _error(e):
    return ("E", type(e).__name__, str(e)[:300])


def run_case(fluid, c):
    L = fluid.layers
    FEEDS.clear()
    main, startup = fluid.Program(), fluid.Program()
    try:
        with fluid.unique_name.guard():
            with fluid.program_guard(main, startup):
                outs = c.build(fluid, L)
                grad_names = []
                if c.grad:
                    first = outs[0]
                    weight = L.assign(arr(*[int(d) for d in first.shape], seed=11))
                    loss = L.reduce_sum(L.elementwise_mul(first, weight))
                    fluid.backward.append_backward(loss)
                    grad_names = [n + "@GRAD" for n in c.grad]
    except Exception as e:  # noqa: BLE001 - the error type is the result
        return {"build": _error(e)}
    names = sorted(v.name for v in main.list_vars() if "@GRAD" not in v.name and not v.name.startswith("_generated"))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    fetched = []
    try:
        with fluid.scope_guard(scope):
            exe.run(startup)
            for _ in range(c.runs):
                fetched.append(exe.run(main, feed=dict(FEEDS), fetch_list=list(outs) + grad_names))
    except Exception as e:  # noqa: BLE001
        return {"run": _error(e)}
    values = [[(np.asarray(v).shape, str(np.asarray(v).dtype), None if c.random else np.asarray(v)) for v in run]
              for run in fetched]
    return {"values": values, "names": names if c.names else None}


def run_all(fluid, only=None):
    results = {}
    for name in sorted(CASES):
        if only is None or name in only:
            results[name] = run_case(fluid, CASES[name])
    return results


if __name__ == "__main__":
    import paddle.fluid as _fluid
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": run_all(_fluid)}, f, protocol=2)
