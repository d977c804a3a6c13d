"""Rows for nn.functional losses: cross_entropy (hard/soft labels, weights, ignore_index, label smoothing),
binary cross entropies, regression losses, nll, kl_div, focal, dice, npair, ctc and hsigmoid."""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T, fixed

_REDUCTIONS = ("mean", "sum", "none")


def _f(name):
    return "nn.functional." + name


def _log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# -- cross entropy --------------------------------------------------------------------------------------------
def _ce(input, label, weight=None, ignore_index=-100, reduction="mean", soft_label=False, axis=-1,
        use_softmax=True, label_smoothing=0.0):
    axis = axis % input.ndim
    squeeze = label.ndim == input.ndim - 1
    if squeeze:
        label = np.expand_dims(label, axis)
    classes = input.shape[axis]
    if label_smoothing > 0:
        if squeeze:
            label = np.moveaxis(np.eye(classes)[np.squeeze(label, axis)], -1, axis)
        label = (1 - label_smoothing) * label + label_smoothing / classes
        soft_label, squeeze = True, False
    logp = _log_softmax(input, axis) if use_softmax else np.log(input)
    w = None
    if soft_label:
        loss = -(label * logp).sum(axis=axis, keepdims=True)
        if weight is not None:
            w = np.expand_dims(np.tensordot(np.moveaxis(label, axis, -1), weight, axes=([-1], [0])), axis)
    else:
        valid = label != ignore_index
        safe = np.where(valid, label, 0).astype(np.int64)
        loss = -np.take_along_axis(logp, safe, axis) * valid
        if weight is not None:
            w = weight[safe] * valid
    if w is not None:
        loss = loss * w
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        if ignore_index >= 0:
            count = (label != ignore_index).sum() if w is None else (w * (label != ignore_index)).sum()
            return loss.sum() / (count if count != 0 else 1)
        if w is not None:
            return loss.sum() / w.sum()
        return loss.mean()
    return np.squeeze(loss, axis) if squeeze else loss


def _probs(rng, shape, axis=-1):
    p = rng.uniform(0.1, 1.0, size=shape)
    return p / p.sum(axis=axis, keepdims=True)


def _ce_samples(rng, dtype):
    x = lambda *s: T(rng.uniform(-2, 2, size=s))  # noqa: E731
    hard = T(np.array([0, 1, 4, 2]), dtype="int64")
    out = [Sample((x(4, 5), hard), {"reduction": r}) for r in _REDUCTIONS]
    out += [
        Sample((x(4, 5), T(np.array([[0], [3], [4], [2]]), dtype="int64")), {"reduction": "none"}),
        Sample((x(4, 5), T(np.array([[0], [3], [4], [2]]), dtype="int64"))),
        Sample((x(2, 3, 4), T(np.array([[0, 1, 2, 0], [2, 2, 1, 0]]), dtype="int64")), {"axis": 1,
                                                                                         "reduction": "none"}),
        Sample((x(2, 3, 4), T(np.array([[0, 1, 2, 0], [2, 2, 1, 0]]), dtype="int64")), {"axis": 1}),
        Sample((x(4, 5), T(np.array([0, -100, 4, 2]), dtype="int64"))),
        Sample((x(4, 5), T(np.array([0, 1, 1, 2]), dtype="int64")), {"ignore_index": 1}),
        Sample((x(4, 5), T(np.array([1, 1, 1, 1]), dtype="int64")), {"ignore_index": 1}),
        Sample((x(4, 5), hard), {"label_smoothing": 0.1}),
        Sample((x(4, 5), hard), {"label_smoothing": 0.2, "reduction": "none"}),
        Sample((T(_probs(rng, (4, 5))), hard), {"use_softmax": False}),
        Sample((x(4, 5), T(np.array([0, 1, 4, 2]), dtype="int32")), {"reduction": "sum"}),
    ]
    return out


def _ce_weighted_samples(rng, dtype):
    x = lambda *s: T(rng.uniform(-2, 2, size=s))  # noqa: E731
    weight = T(rng.uniform(0.2, 2.0, size=5), grad=False)
    hard = T(np.array([0, 1, 4, 2]), dtype="int64")
    out = [Sample((x(4, 5), hard), {"weight": weight, "reduction": r}) for r in _REDUCTIONS]
    out += [Sample((x(4, 5), T(np.array([0, 1, 1, 3]), dtype="int64")), {"weight": weight, "ignore_index": 1}),
            Sample((x(4, 5), T(np.array([0, -100, 4, 3]), dtype="int64")), {"weight": weight}),
            Sample((x(4, 5), T(_probs(rng, (4, 5)), grad=False)), {"weight": weight, "soft_label": True}),
            Sample((x(4, 5), T(_probs(rng, (4, 5)), grad=False)), {"weight": weight, "soft_label": True,
                                                                    "reduction": "none"})]
    return out


def _soft_samples(rng, dtype):
    x = lambda *s: T(rng.uniform(-2, 2, size=s))  # noqa: E731
    return [Sample((x(4, 5), T(_probs(rng, (4, 5)), grad=False)), {"soft_label": True, "reduction": r})
            for r in _REDUCTIONS] + \
        [Sample((x(3, 2, 4), T(_probs(rng, (3, 2, 4), axis=1), grad=False)), {"soft_label": True, "axis": 1,
                                                                               "reduction": "none"})]


_X45 = T(np.ones((4, 5)))
_CE_ERRORS = (
    Err((_X45, T(np.array([0, 1, 7, 2]), dtype="int64")), exc=IndexError, note="label >= classes"),
    Err((_X45, T(np.array([0, 1, -3, 2]), dtype="int64")), exc=IndexError, note="negative label"),
    Err((_X45, T(np.array([0, 1, 2]), dtype="int64")), exc=ValueError, note="batch mismatch"),
    Err((_X45, T(np.zeros((4, 1, 1)), dtype="int64")), exc=ValueError, note="label rank"),
    Err((_X45, T(np.array([0, 1, 2, 3]), dtype="int64")), {"reduction": "avg"}, exc=ValueError),
    Err((_X45, T(np.array([0, 1, 2, 3]), dtype="int64")), {"weight": T(np.ones(4))}, exc=ValueError,
        note="weight size"),
    Err((_X45, T(np.ones((4, 4)) / 4)), {"soft_label": True}, exc=ValueError, note="soft label classes"),
    Err((T(np.array(1.0)), T(np.array(0), dtype="int64")), exc=ValueError, note="0-d input"),
    Err((T(np.ones((2, 2)), dtype="int64"), T(np.array([0, 1]), dtype="int64")), exc=RuntimeError,
        note="integer logits"),
)


def _swce(logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True, return_softmax=False,
          axis=-1):
    if label.ndim == logits.ndim - 1:
        label = label.reshape(label.shape[0], logits.shape[1])
    loss = _ce(logits, label, ignore_index=ignore_index, reduction="none", soft_label=soft_label, axis=axis)
    if return_softmax:
        return loss, np.exp(_log_softmax(logits, axis))
    return loss


# -- other losses ---------------------------------------------------------------------------------------------
def _bce(input, label, weight=None, reduction="mean"):
    loss = -(label * np.maximum(np.log(input), -100) + (1 - label) * np.maximum(np.log(1 - input), -100))
    return _reduce(loss if weight is None else loss * weight, reduction)


def _bce_logits(logit, label, weight=None, reduction="mean", pos_weight=None):
    log_weight = 1 if pos_weight is None else 1 + (pos_weight - 1) * label
    loss = (1 - label) * logit + log_weight * (np.log1p(np.exp(-np.abs(logit))) + np.maximum(-logit, 0))
    return _reduce(loss if weight is None else loss * weight, reduction)


def _huber(input, label, reduction="mean", delta=1.0, is_huber=True):
    r = np.abs(input - label)
    loss = np.where(r <= delta, 0.5 * r * r, delta * (r - 0.5 * delta))
    return _reduce(loss if is_huber else loss / delta, reduction)


def _nll(input, label, weight=None, ignore_index=-100, reduction="mean"):
    x = np.moveaxis(input, 1, -1)
    valid = label != ignore_index
    safe = np.where(valid, label, 0)
    w = (np.ones(input.shape[1]) if weight is None else weight)[safe] * valid
    loss = -np.take_along_axis(x, safe[..., None], -1)[..., 0] * w
    if reduction == "mean":
        return loss.sum() / (w.sum() if w.sum() != 0 else 1)
    return _reduce(loss, reduction)


def _kl(input, label, reduction="mean", log_target=False):
    if log_target:
        loss = np.exp(label) * (label - input)
    else:
        loss = np.where(label > 0, label * (np.log(np.where(label > 0, label, 1)) - input), 0)
    if reduction == "batchmean":
        return loss.sum() / input.shape[0]
    return _reduce(loss, reduction)


def _focal(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum"):
    ce = _bce_logits(logit, label, reduction="none")
    p = _sigmoid(logit)
    p_t = p * label + (1 - p) * (1 - label)
    loss = (alpha * label + (1 - alpha) * (1 - label)) * ce * (1 - p_t) ** gamma
    return _reduce(loss if normalizer is None else loss / normalizer, reduction)


def _dice(input, label, epsilon=1e-5):
    one_hot = np.eye(input.shape[-1])[label[..., 0]]
    axes = tuple(range(1, input.ndim))
    inse = (input * one_hot).sum(axis=axes)
    return (1 - 2 * inse / (input.sum(axis=axes) + one_hot.sum(axis=axes) + epsilon)).mean()


def _npair(anchor, positive, labels, l2_reg=0.002):
    same = (labels[:, None] == labels[None, :]).astype(np.float64)
    same = same / same.sum(axis=1, keepdims=True)
    l2 = ((anchor ** 2).sum(1).mean() + (positive ** 2).sum(1).mean()) * 0.25 * l2_reg
    ce = -(same * _log_softmax(anchor @ positive.T)).sum(1)
    return l2 + (same * ce[:, None]).sum(0).mean()


def _ctc_one(logits, labels, blank):
    logp = _log_softmax(logits)
    ext = [blank]
    for c in labels:
        ext += [int(c), blank]
    alpha = np.full(len(ext), -np.inf)
    alpha[0] = logp[0, blank]
    if len(ext) > 1:
        alpha[1] = logp[0, ext[1]]
    for t in range(1, len(logits)):
        prev = alpha.copy()
        for s in range(len(ext)):
            a = prev[s]
            if s > 0:
                a = np.logaddexp(a, prev[s - 1])
            if s > 1 and ext[s] != blank and ext[s] != ext[s - 2]:
                a = np.logaddexp(a, prev[s - 2])
            alpha[s] = a + logp[t, ext[s]]
    ll = np.logaddexp(alpha[-1], alpha[-2]) if len(ext) > 1 else alpha[-1]
    return 0.0 if np.isinf(ll) else -ll


def _ctc(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean", norm_by_times=False,
         zero_infinity=False):
    loss = np.array([_ctc_one(log_probs[:input_lengths[b], b], labels[b, :label_lengths[b]], blank)
                     for b in range(log_probs.shape[1])], dtype=log_probs.dtype)
    if reduction == "mean":
        return (loss / label_lengths).mean()
    return _reduce(loss, reduction)


def _hsigmoid(input, label, num_classes, weight, bias=None, path_table=None, path_code=None):
    out = []
    for i, c in enumerate(np.asarray(label).reshape(-1)):
        if path_table is None:
            code = int(c) + num_classes
            depth = (num_classes - 1).bit_length()
            steps = [((code >> (j + 1)) - 1, (code >> j) & 1, j < code.bit_length() - 1) for j in range(depth)]
        else:
            ended = np.cumprod(path_table[i] >= 0).astype(bool)
            steps = list(zip(path_table[i], path_code[i], ended))
        total = 0.0
        for node, bit, valid in steps:
            if not valid:
                total += np.log(2.0)
                continue
            pre = np.clip(input[i] @ weight[node] + (0 if bias is None else bias.reshape(-1)[node]), -40, 40)
            total += np.log1p(np.exp(pre)) - bit * pre
        out.append([total])
    return np.array(out)


def _f32(array):
    return T(array, dtype="float32")


def _log_loss(input, label, epsilon=1e-4):
    return -label * np.log(input + epsilon) - (1 - label) * np.log(1 - input + epsilon)


def _log_loss_samples(rng, dtype):
    return [Sample((_uniform(rng, (4, 1), 0.05, 0.95), _uniform(rng, (4, 1), 0, 1, grad=False))),
            Sample((_uniform(rng, (3, 1), 0.05, 0.95), _uniform(rng, (3, 1), 0, 1, grad=False)), {"epsilon": 0.01})]


def _uniform(rng, shape, low=-2.0, high=2.0, **kw):
    return T(rng.uniform(low, high, size=shape), **kw)


def _pair_samples(extra=(), low=-2.0, high=2.0, label_grad=True, reductions=_REDUCTIONS):
    def make(rng, dtype):
        out = []
        for shape in ((3, 4), (2, 3, 4), (5,)):
            for kw in [{"reduction": r} for r in reductions] + list(extra) or [{}]:
                out.append(Sample((_uniform(rng, shape, low, high),
                                   _uniform(rng, shape, low, high, grad=label_grad)), dict(kw)))
        return out
    return make


def _shape_mismatch():
    return Err((T(np.ones((3, 4))), T(np.ones((3, 5)))), exc=ValueError, note="shapes differ")


def _bad_reduction():
    return Err((T(np.ones((3, 4))), T(np.ones((3, 4)))), {"reduction": "avg"}, exc=ValueError)


_LIST = Err(([0.5, 0.5], T(np.ones(2))), exc=ValueError, note="a list is not a Tensor")


def _bce_samples(rng, dtype):
    out = []
    for shape in ((3, 4), (5,)):
        for r in _REDUCTIONS:
            out.append(Sample((_uniform(rng, shape, 0.05, 0.95), _uniform(rng, shape, 0, 1, grad=False)),
                              {"reduction": r}))
    out.append(Sample((_uniform(rng, (3, 4), 0.05, 0.95), _uniform(rng, (3, 4), 0, 1, grad=False)),
                      {"weight": _uniform(rng, (4,), 0.5, 2.0)}))
    return out


def _bce_logits_samples(rng, dtype):
    out = []
    for r in _REDUCTIONS:
        out.append(Sample((_uniform(rng, (3, 4)), _uniform(rng, (3, 4), 0, 1, grad=False)), {"reduction": r}))
    out.append(Sample((_uniform(rng, (3, 4)), _uniform(rng, (3, 4), 0, 1, grad=False)),
                      {"weight": _uniform(rng, (3, 4), 0.5, 2.0), "pos_weight": _uniform(rng, (4,), 0.5, 3.0,
                                                                                         grad=False)}))
    out.append(Sample((_uniform(rng, (5,)), _uniform(rng, (5,), 0, 1, grad=False)),
                      {"pos_weight": _uniform(rng, (5,), 0.5, 3.0, grad=False), "reduction": "none"}))
    return out


def _nll_samples(rng, dtype):
    logp = lambda *s: T(_log_softmax(rng.uniform(-2, 2, size=s), 1))  # noqa: E731
    label = T(np.array([0, 2, 1, 2]), dtype="int64")
    out = [Sample((logp(4, 3), label), {"reduction": r}) for r in _REDUCTIONS]
    out += [Sample((logp(4, 3), label), {"weight": T(np.array([0.5, 1.0, 2.0]), grad=False)}),
            Sample((logp(4, 3), T(np.array([0, -100, 1, 2]), dtype="int64"))),
            Sample((logp(2, 3, 2, 2), T(rng.integers(0, 3, size=(2, 2, 2)), dtype="int64")), {"reduction": "none"}),
            Sample((logp(2, 3, 4), T(rng.integers(0, 3, size=(2, 4)), dtype="int64")), {"reduction": "none"}),
            Sample((logp(2, 3, 4), T(rng.integers(0, 3, size=(2, 4)), dtype="int64"))),
            Sample((logp(2, 3, 2, 1, 2), T(rng.integers(0, 3, size=(2, 2, 1, 2)), dtype="int64")),
                   {"reduction": "sum"})]
    return out


def _ctc_samples(rng, dtype):
    logits = T(rng.normal(size=(5, 2, 4)))
    labels = T(np.array([[1, 2], [3, 0]]), dtype="int32")
    lengths = (T(np.array([5, 4]), dtype="int64"), T(np.array([2, 1]), dtype="int64"))
    out = [Sample((logits, labels) + lengths, {"reduction": r}) for r in _REDUCTIONS]
    out.append(Sample((logits, T(np.array([[1, 2], [0, 0]]), dtype="int32")) + lengths, {"blank": 3,
                                                                                       "reduction": "none"}))
    out.append(Sample((logits, T(np.array([[1, 1], [3, 0]]), dtype="int32"), T(np.array([2, 4]), dtype="int64"),
                       lengths[1]), {"reduction": "none"}))
    return out


def _hs_samples(rng, dtype):
    x = _uniform(rng, (3, 4), 0, 1)
    w = _uniform(rng, (5, 4), 0, 1)
    b = _uniform(rng, (5, 1), 0, 1)
    label = T(np.array([0, 3, 5]), dtype="int64")
    table = T(np.array([[0, 1, -1], [0, 2, -1], [0, 1, 3]]), dtype="int64")
    code = T(np.array([[1, 0, -1], [0, 1, -1], [1, 1, 0]]), dtype="int64")
    return [Sample((x, label, 6, w, b)), Sample((x, label, 6, w)),
            Sample((x, T(np.array([[0], [3], [5]]), dtype="int64"), 6, w, b)),
            Sample((x, T(np.array([0, 3, 3]), dtype="int64"), 6, w, b), {"path_table": table, "path_code": code})]


def _adaptive(input, label, head_weight, tail_weights, cutoffs, head_bias=None):
    head_logprob = _log_softmax(input @ head_weight + (0 if head_bias is None else head_bias), 1)
    out = np.zeros(len(label))
    for r, y in enumerate(label):
        if y < cutoffs[0]:
            out[r] = head_logprob[r, y]
            continue
        i = next(k for k in range(1, len(cutoffs)) if y < cutoffs[k])
        cluster = _log_softmax((input[r:r + 1] @ tail_weights[i - 1][0]) @ tail_weights[i - 1][1], 1)
        out[r] = head_logprob[r, cutoffs[0] + i - 1] + cluster[0, y - cutoffs[i - 1]]
    return out, -out.mean()


def _adaptive_samples(rng, dtype):
    u = lambda *s: _uniform(rng, s, -1.0, 1.0)  # noqa: E731
    x, head_weight = u(5, 4), u(4, 4)     # a shortlist of 2 and 2 tail clusters
    tails = [[u(4, 2), u(2, 3)], [u(4, 1), u(1, 2)]]
    return [Sample((x, T(np.array([0, 2, 4, 6, 1]), dtype="int64"), head_weight, tails, [2, 5, 7])),
            Sample((x, T(np.array([3, 3, 0, 1, 6]), dtype="int64"), head_weight, tails, [2, 5, 7]),
                   {"head_bias": u(4)})]


def _ones(*shape):
    return T(np.ones(shape))


_NLL_X = T(np.log(np.full((4, 3), 1 / 3)))
_CTC_ARGS = (T(np.zeros((5, 2, 4))), T(np.array([[1, 2], [3, 0]]), dtype="int32"), T(np.array([5, 4]), dtype="int64"),
             T(np.array([2, 1]), dtype="int64"))

OPS = [
    OpCase("cross_entropy", _f("cross_entropy"), _ce, _ce_samples, FLOATS, errors=_CE_ERRORS),
    OpCase("cross_entropy_weighted", _f("cross_entropy"), _ce, _ce_weighted_samples, FLOATS),
    OpCase("cross_entropy_soft", _f("cross_entropy"), _ce, _soft_samples, FLOATS,
           errors=(Err((_X45, T(np.ones((4, 5)) / 5)), {"soft_label": True, "ignore_index": 1}, exc=ValueError),)),
    OpCase("softmax_with_cross_entropy", _f("softmax_with_cross_entropy"), _swce,
           lambda rng, dtype: [Sample((_uniform(rng, (4, 5)), T(np.array([[0], [3], [4], [2]]), dtype="int64"))),
                               Sample((_uniform(rng, (4, 5)), T(np.array([[0], [3], [4], [2]]), dtype="int64")),
                                      {"return_softmax": True}),
                               Sample((_uniform(rng, (4, 5)), T(_probs(rng, (4, 5)), grad=False)),
                                      {"soft_label": True}),
                               Sample((_uniform(rng, (4, 1)), T(np.array([0, 0, 0, 0]), dtype="int64")))],
           FLOATS,
           errors=(Err((_X45, T(np.array([0, 1, 2, 3]), dtype="int64")), exc=ValueError,
                       note="Paddle reshapes a 1-D label to [N, C]"),
                   Err((_X45, T(np.array([[0], [1], [9], [3]]), dtype="int64")), exc=IndexError),
                   Err((T(np.array(1.0)), T(np.array(0), dtype="int64")), exc=ValueError))),
    OpCase("binary_cross_entropy", _f("binary_cross_entropy"), _bce, _bce_samples, FLOATS,
           errors=(Err((T(np.full((2, 3), 1.5)), T(np.ones((2, 3)))), exc=ValueError, note="input > 1"),
                   _shape_mismatch(), Err((T(np.full((2, 3), 0.5)), T(np.ones((2, 3)), dtype="int64")),
                                          exc=ValueError, note="int label"),
                   Err((T(np.full((3, 4), 0.5)), T(np.ones((3, 4)))), {"reduction": "avg"}, exc=ValueError))),
    OpCase("binary_cross_entropy_with_logits", _f("binary_cross_entropy_with_logits"), _bce_logits,
           _bce_logits_samples, FLOATS,
           errors=(_shape_mismatch(), _bad_reduction(),
                   Err((T(np.ones((2, 3))), T(np.ones((2, 3)), dtype="int64")), exc=RuntimeError, note="int label"))),
    OpCase("mse_loss", _f("mse_loss"), lambda input, label, reduction="mean": _reduce((input - label) ** 2, reduction),
           _pair_samples(), FLOATS, errors=(_shape_mismatch(), _bad_reduction(), _LIST)),
    OpCase("mse_loss_int", _f("mse_loss"), None,
           fixed(Sample((T(np.array([1, 2, 3])), T(np.array([2, 2, 5]))))), ("int64",), grad=False),
    OpCase("square_error_cost", _f("square_error_cost"), lambda input, label: (input - label) ** 2,
           _pair_samples(reductions=()), FLOATS, errors=(_shape_mismatch(), _LIST)),
    OpCase("l1_loss", _f("l1_loss"), lambda input, label, reduction="mean": _reduce(np.abs(input - label), reduction),
           _pair_samples(), FLOATS,
           errors=(_shape_mismatch(), _bad_reduction(),
                   Err((T(np.array([1, 2]), dtype="int64"), T(np.array([1, 3]), dtype="int64")), exc=RuntimeError,
                       note="integer mean"))),
    OpCase("smooth_l1_loss", _f("smooth_l1_loss"), _huber,
           _pair_samples(extra=({"delta": 0.3, "reduction": "none"}, {"delta": 0.5, "is_huber": False})), FLOATS,
           errors=(_shape_mismatch(), _bad_reduction(),
                   Err((T(np.ones(3)), T(np.ones(3), dtype="int64")), exc=TypeError, note="float with int"))),
    OpCase("smooth_l1_loss_promotes", _f("smooth_l1_loss"), _huber,
           fixed(Sample((T(np.array([0.5, 2.0, -1.0]), dtype="float32"), T(np.array([0.0, 0.1, 0.2]),
                                                                             dtype="float64")))), ("float64",),
           grad=False),
    OpCase("log_loss", _f("log_loss"), _log_loss, _log_loss_samples, ("float32",),
           errors=(Err((_f32(np.full((4, 5), 0.5)), _f32(np.ones((4, 5)))), exc=ValueError, note="2nd dim must be 1"),
                   Err((_f32(np.full((4, 1), 0.5)), _f32(np.ones((3, 1)))), exc=ValueError, note="shapes differ"),
                   Err((_f32(np.full((4,), 0.5)), _f32(np.ones((4,)))), exc=ValueError, note="1-D"))),
    # Paddle 3.3.1 registers log_loss for float32 only; float64 is computed here too.
    OpCase("log_loss_float64", _f("log_loss"), _log_loss, _log_loss_samples, ("float64",), conformance=False),
    OpCase("margin_ranking_loss", _f("margin_ranking_loss"),
           lambda input, other, label, margin=0.0, reduction="mean": _reduce(
               np.maximum((other - input) * label + margin, 0), reduction),
           lambda rng, dtype: [Sample((_uniform(rng, (3, 4)), _uniform(rng, (3, 4)),
                                       T(rng.choice([-1.0, 1.0], size=(3, 4)), grad=False)),
                                      {"margin": m, "reduction": r})
                               for m in (0.0, 0.3) for r in _REDUCTIONS],
           FLOATS,
           errors=(Err((T(np.ones(3)), T(np.ones(3)), T(np.ones(3))), {"reduction": "avg"}, exc=ValueError),
                   Err((T(np.ones(3)), T(np.ones(4)), T(np.ones(3))), exc=ValueError, note="shapes"),
                   Err(([1.0], T(np.ones(1)), T(np.ones(1))), exc=ValueError, note="list input"))),
    OpCase("nll_loss", _f("nll_loss"), _nll, _nll_samples, FLOATS,
           errors=(Err((_NLL_X, T(np.array([0, 1, 9, 2]), dtype="int64")), exc=ValueError, note="label >= C"),
                   Err((T(np.zeros(3)), T(np.array(1), dtype="int64")), exc=ValueError, note="1-D input"),
                   Err((_NLL_X, T(np.array([0, 1, 2, 2]), dtype="int32")), exc=ValueError, note="int32 label"),
                   Err((_NLL_X, T(np.array([0, 1, 2]), dtype="int64")), exc=ValueError, note="batch mismatch"),
                   Err((_NLL_X, T(np.array([0, 1, 2, 2]), dtype="int64")), {"reduction": "x"}, exc=ValueError))),
    OpCase("kl_div", _f("kl_div"), _kl,
           lambda rng, dtype: [Sample((_uniform(rng, (3, 4)), _uniform(rng, (3, 4), -0.5, 1.5, grad=False)),
                                      {"reduction": r}) for r in _REDUCTIONS + ("batchmean",)] +
           [Sample((_uniform(rng, (3, 4)), _uniform(rng, (3, 4), grad=False)), {"log_target": True}),
            Sample((_uniform(rng, (2, 3)), _uniform(rng, (2, 3), 0.1, 1, grad=False)), {"reduction": "unknown"})],
           FLOATS,
           errors=(_shape_mismatch(), _LIST,
                   Err((T(np.ones(3), dtype="int64"), T(np.ones(3), dtype="int64")), exc=RuntimeError))),
    OpCase("sigmoid_focal_loss", _f("sigmoid_focal_loss"), _focal,
           lambda rng, dtype: [Sample((_uniform(rng, (3, 4)), T(rng.integers(0, 2, size=(3, 4)).astype(float),
                                                                 grad=False)), {"reduction": r})
                               for r in _REDUCTIONS] +
           [Sample((_uniform(rng, (3, 4)), T(rng.integers(0, 2, size=(3, 4)).astype(float), grad=False)),
                   {"normalizer": T(np.array([3.0]), grad=False), "alpha": 0.5, "gamma": 1.5})],
           FLOATS,
           errors=(Err((T(np.ones((2, 2))), T(np.ones((2, 2)))), {"normalizer": T(np.ones((1, 1)))}, exc=ValueError),
                   Err((T(np.ones((2, 2))), T(np.ones((2, 2)))), {"reduction": "x"}, exc=ValueError),
                   Err((T(np.ones((2, 2))), T(np.ones((2, 3)))), exc=ValueError, note="shapes"))),
    OpCase("dice_loss", _f("dice_loss"), _dice,
           lambda rng, dtype: [Sample((T(_probs(rng, (4, 5))), T(np.array([[0], [1], [4], [2]]), dtype="int64"))),
                               Sample((T(_probs(rng, (2, 3, 4))), T(rng.integers(0, 4, size=(2, 3, 1)),
                                                                     dtype="int32")), {"epsilon": 0.1})],
           FLOATS,
           errors=(Err((T(np.ones((4, 5))), T(np.array([[0.0], [1.0], [4.0], [2.0]]))), exc=AssertionError),
                   Err((T(np.ones((4, 5))), T(np.array([0, 1, 4, 2]), dtype="int64")), exc=AssertionError),
                   Err((T(np.ones((4, 5))), T(np.zeros((4, 2)), dtype="int64")), exc=AssertionError))),
    OpCase("npair_loss", _f("npair_loss"), _npair,
           lambda rng, dtype: [Sample((_uniform(rng, (4, 3)), _uniform(rng, (4, 3)),
                                       T(np.array([1.0, 2.0, 1.0, 3.0]), grad=False))),
                               Sample((_uniform(rng, (3, 2)), _uniform(rng, (3, 2)),
                                       T(np.array([1.0, 1.0, 1.0]), grad=False)), {"l2_reg": 0.1})],
           ("float32",),
           errors=(Err((T(np.zeros((0, 3))), T(np.ones((2, 3))), T(np.ones(2))), exc=ValueError),
                   Err((T(np.ones((2, 3))), T(np.zeros((0, 3))), T(np.ones(2))), exc=ValueError),
                   Err((T(np.ones((2, 3))), T(np.ones((2, 4))), T(np.ones(2))), exc=ValueError, note="dims"))),
    OpCase("ctc_loss", _f("ctc_loss"), _ctc, _ctc_samples, FLOATS, rtol=1e-4, atol=1e-5,
           errors=(Err(_CTC_ARGS[:1] + (T(np.array([[1, 2], [3, 0]]), dtype="int64"),) + _CTC_ARGS[2:],
                       exc=ValueError, note="int64 labels"),
                   Err(_CTC_ARGS[:2] + (T(np.array([5, 4]), dtype="int32"), _CTC_ARGS[3]), exc=ValueError,
                       note="int32 lengths"),
                   Err(_CTC_ARGS, {"reduction": "avg"}, exc=AssertionError))),
    OpCase("ctc_loss_norm_by_times", _f("ctc_loss"), _ctc,
           lambda rng, dtype: [Sample(s.args, dict(s.kwargs, norm_by_times=True)) for s in _ctc_samples(rng, dtype)],
           FLOATS, grad=False, rtol=1e-4, atol=1e-5),
    OpCase("hsigmoid_loss", _f("hsigmoid_loss"), _hsigmoid, _hs_samples, FLOATS, rtol=1e-4,
           errors=(Err((T(np.ones((3, 4))), T(np.array([0, 1, 2]), dtype="int64"), 1, T(np.ones((5, 4)))),
                       exc=ValueError, note="num_classes < 2"),
                   Err((T(np.ones((3, 4))), T(np.array([0, 1]), dtype="int64"), 6, T(np.ones((5, 4)))),
                       exc=ValueError, note="label count"))),
    OpCase("adaptive_log_softmax_with_loss", _f("adaptive_log_softmax_with_loss"), _adaptive, _adaptive_samples,
           FLOATS, rtol=1e-4,
           errors=(Err((_ones(5, 4), T(np.array([0, 1, 9, 2, 1]), dtype="int64"), _ones(4, 4),
                        [[_ones(4, 2), _ones(2, 3)], [_ones(4, 1), _ones(1, 2)]], [2, 5, 7]), exc=ValueError,
                       note="label >= n_classes"),
                   Err((_ones(5, 4), T(np.zeros((5, 1)), dtype="int64"), _ones(4, 4),
                        [[_ones(4, 2), _ones(2, 3)], [_ones(4, 1), _ones(1, 2)]], [2, 5, 7]), exc=ValueError,
                       note="2-D label"),
                   Err((_ones(5, 4), T(np.zeros(4), dtype="int64"), _ones(4, 4),
                        [[_ones(4, 2), _ones(2, 3)], [_ones(4, 1), _ones(1, 2)]], [2, 5, 7]), exc=ValueError,
                       note="batch mismatch"))),
]

# Inputs Paddle accepts but reads out of bounds for (or crashes on); here they raise.
OPS += [
    # Paddle 3.3.1 returns 0 here but corrupts its heap (a later allocation aborts the process).
    OpCase("nll_loss_all_ignored", _f("nll_loss"), _nll,
           fixed(Sample((T(np.log(np.full((4, 3), 1 / 3))), T(np.array([1, 1, 1, 1]), dtype="int64")),
                        {"ignore_index": 1})), FLOATS, conformance=False),
    OpCase("ctc_loss_bad_input", _f("ctc_loss"), None, None, FLOATS, grad=False, conformance=False,
           errors=(Err(_CTC_ARGS[:2] + (T(np.array([6, 4]), dtype="int64"), _CTC_ARGS[3]), exc=ValueError,
                       note="input length > T: Paddle corrupts its heap"),
                   Err((_CTC_ARGS[0], T(np.array([[1, 7], [3, 0]]), dtype="int32")) + _CTC_ARGS[2:], exc=ValueError,
                       note="label >= classes"),
                   Err(_CTC_ARGS[:3] + (T(np.array([3, 1]), dtype="int64"),), exc=ValueError,
                       note="label length > L"))),
    OpCase("hsigmoid_loss_bad_label", _f("hsigmoid_loss"), None, None, FLOATS, grad=False, conformance=False,
           errors=(Err((T(np.ones((3, 4))), T(np.array([0, 3, 7]), dtype="int64"), 6, T(np.ones((5, 4)))),
                       exc=ValueError, note="label >= num_classes"),
                   Err((T(np.ones((3, 4))), T(np.array([0, -1, 2]), dtype="int64"), 6, T(np.ones((5, 4)))),
                       exc=ValueError, note="negative label"),
                   Err((T(np.ones((3, 4))), T(np.array([0, 1, 2]), dtype="int64"), 6, T(np.ones((2, 4)))),
                       exc=ValueError, note="path beyond weight rows"),
                   Err((T(np.ones((3, 4))), T(np.array([0, 1, 2]), dtype="int64"), 6, T(np.ones((5, 3)))),
                       exc=ValueError, note="weight width differs from the input's"))),
]
