"""Loss layer cases, run on real PaddlePaddle 3.3.1 (``python -m tests.nn.loss_layer_cases OUT.pkl``) and on
torchpaddle by tests/nn/test_loss_layers.py: repr, state_dict, loss values, input and parameter gradients with
the same weights, and construction/forward errors."""
import functools
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump, fill_state, grad_of, record, stable_seed, state_summary


def _data(rng, shape, kind):
    """Seeded input data by kind: unit (-1, 1), prob (0.05, 0.95), pos (0.1, 2), bin (0/1 floats),
    sign (+-1 floats), logprob (log-softmax rows), probrow (softmax rows), ("int", high[, dtype]), ("const", a)."""
    if isinstance(kind, tuple):
        if kind[0] == "const":
            return np.asarray(kind[1])
        return rng.integers(0, kind[1], shape).astype(kind[2] if len(kind) > 2 else "int64")
    if kind == "unit":
        return rng.uniform(-1, 1, shape).astype("float32")
    if kind == "prob":
        return rng.uniform(0.05, 0.95, shape).astype("float32")
    if kind == "pos":
        return rng.uniform(0.1, 2.0, shape).astype("float32")
    if kind == "bin":
        return rng.integers(0, 2, shape).astype("float32")
    if kind == "sign":
        return (rng.integers(0, 2, shape) * 2 - 1).astype("float32")
    logits = rng.uniform(-2, 2, shape)
    soft = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    return (np.log(soft) if kind == "logprob" else soft).astype("float32")


def _w(paddle, values):
    return paddle.to_tensor(np.asarray(values, "float32"))


# name -> (constructor over paddle, [(shape, kind, differentiable), ...])
LOSSES = {
    "bce": (lambda p: p.nn.BCELoss(), [((4, 3), "prob", True), ((4, 3), "bin", False)]),
    "bce_weight_sum": (lambda p: p.nn.BCELoss(weight=_w(p, [0.5, 1.0, 2.0]), reduction="sum"),
                       [((4, 3), "prob", True), ((4, 3), "prob", False)]),
    "bce_none": (lambda p: p.nn.BCELoss(reduction="none"), [((5,), "prob", True), ((5,), "bin", False)]),
    "bce_logits": (lambda p: p.nn.BCEWithLogitsLoss(), [((4, 3), "unit", True), ((4, 3), "bin", False)]),
    "bce_logits_pos_weight": (lambda p: p.nn.BCEWithLogitsLoss(weight=_w(p, [1.0, 0.5, 2.0]), reduction="none",
                                                                pos_weight=_w(p, [2.0, 1.0, 0.5])),
                              [((4, 3), "unit", True), ((4, 3), "prob", False)]),
    "cross_entropy": (lambda p: p.nn.CrossEntropyLoss(), [((4, 5), "unit", True), ((4,), ("int", 5), False)]),
    "cross_entropy_label_2d": (lambda p: p.nn.CrossEntropyLoss(reduction="sum"),
                               [((4, 5), "unit", True), ((4, 1), ("int", 5), False)]),
    "cross_entropy_weight_ignore": (lambda p: p.nn.CrossEntropyLoss(weight=_w(p, [1, 2, 0.5, 1, 3]),
                                                                     ignore_index=1),
                                    [((6, 5), "unit", True), ((6,), ("const", [0, 1, 2, 1, 4, 3]), False)]),
    "cross_entropy_none_axis1": (lambda p: p.nn.CrossEntropyLoss(reduction="none", axis=1),
                                 [((2, 5, 3), "unit", True), ((2, 1, 3), ("int", 5), False)]),
    "cross_entropy_soft": (lambda p: p.nn.CrossEntropyLoss(soft_label=True),
                           [((4, 5), "unit", True), ((4, 5), "probrow", False)]),
    "cross_entropy_no_softmax": (lambda p: p.nn.CrossEntropyLoss(use_softmax=False),
                                 [((4, 5), "probrow", True), ((4,), ("int", 5), False)]),
    "cross_entropy_smoothing": (lambda p: p.nn.CrossEntropyLoss(label_smoothing=0.1),
                                [((4, 5), "unit", True), ((4,), ("int", 5), False)]),
    "mse": (lambda p: p.nn.MSELoss(), [((3, 4), "unit", True), ((3, 4), "unit", True)]),
    "mse_sum": (lambda p: p.nn.MSELoss("sum"), [((3, 4), "unit", True), ((3, 4), "unit", False)]),
    "mse_none": (lambda p: p.nn.MSELoss(reduction="none"), [((3, 4), "unit", True), ((3, 4), "unit", False)]),
    "l1": (lambda p: p.nn.L1Loss(), [((3, 4), "unit", True), ((3, 4), "unit", True)]),
    "l1_none": (lambda p: p.nn.L1Loss("none"), [((3, 4), "unit", True), ((3, 4), "unit", False)]),
    "nll": (lambda p: p.nn.NLLLoss(), [((4, 5), "logprob", True), ((4,), ("int", 5), False)]),
    "nll_weight_ignore_sum": (lambda p: p.nn.NLLLoss(weight=_w(p, [1, 2, 0.5]), ignore_index=2, reduction="sum"),
                              [((5, 3), "logprob", True), ((5,), ("const", [0, 2, 1, 1, 0]), False)]),
    "nll_4d": (lambda p: p.nn.NLLLoss(), [((2, 3, 4, 4), "unit", True), ((2, 4, 4), ("int", 3), False)]),
    "kl_div": (lambda p: p.nn.KLDivLoss(), [((3, 4), "logprob", True), ((3, 4), "probrow", False)]),
    "kl_div_batchmean": (lambda p: p.nn.KLDivLoss("batchmean"), [((3, 4), "logprob", True),
                                                                  ((3, 4), "probrow", False)]),
    "kl_div_log_target_sum": (lambda p: p.nn.KLDivLoss("sum", log_target=True),
                              [((3, 4), "logprob", True), ((3, 4), "logprob", False)]),
    "margin_ranking": (lambda p: p.nn.MarginRankingLoss(margin=0.1),
                       [((5,), "unit", True), ((5,), "unit", True), ((5,), "sign", False)]),
    "margin_ranking_none": (lambda p: p.nn.MarginRankingLoss(reduction="none"),
                            [((2, 3), "unit", True), ((2, 3), "unit", True), ((2, 3), "sign", False)]),
    "smooth_l1": (lambda p: p.nn.SmoothL1Loss(), [((4, 5), "unit", True), ((4, 5), "unit", False)]),
    "smooth_l1_delta_none": (lambda p: p.nn.SmoothL1Loss(reduction="none", delta=0.5),
                             [((4, 5), "unit", True), ((4, 5), "unit", False)]),
    "huber": (lambda p: p.nn.HuberLoss(delta=0.3), [((4, 5), "unit", True), ((4, 5), "unit", False)]),
    "poisson_nll": (lambda p: p.nn.PoissonNLLLoss(), [((3, 4), "unit", True), ((3, 4), "pos", False)]),
    "poisson_nll_full_linear": (lambda p: p.nn.PoissonNLLLoss(log_input=False, full=True, reduction="sum"),
                                [((3, 4), "pos", True), ((3, 4), "pos", False)]),
    "multi_label_soft_margin": (lambda p: p.nn.MultiLabelSoftMarginLoss(),
                                [((3, 4), "unit", True), ((3, 4), "bin", False)]),
    "multi_label_soft_margin_weight": (lambda p: p.nn.MultiLabelSoftMarginLoss(weight=_w(p, [1, 2, 0.5, 1]),
                                                                               reduction="none"),
                                       [((3, 4), "unit", True), ((3, 4), "bin", False)]),
    "hinge_embedding": (lambda p: p.nn.HingeEmbeddingLoss(margin=0.5),
                        [((4, 3), "unit", True), ((4, 3), "sign", False)]),
    "cosine_embedding": (lambda p: p.nn.CosineEmbeddingLoss(margin=0.2),
                         [((4, 5), "unit", True), ((4, 5), "unit", True), ((4,), "sign", False)]),
    "triplet_margin": (lambda p: p.nn.TripletMarginLoss(),
                       [((4, 5), "unit", True), ((4, 5), "unit", True), ((4, 5), "unit", True)]),
    "triplet_margin_swap_p1": (lambda p: p.nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True, reduction="sum"),
                               [((4, 5), "unit", True), ((4, 5), "unit", True), ((4, 5), "unit", True)]),
    "triplet_distance": (lambda p: p.nn.TripletMarginWithDistanceLoss(margin=0.3),
                         [((4, 5), "unit", True), ((4, 5), "unit", True), ((4, 5), "unit", True)]),
    "multi_margin": (lambda p: p.nn.MultiMarginLoss(), [((4, 5), "unit", True), ((4,), ("int", 5), False)]),
    "multi_margin_p2_weight": (lambda p: p.nn.MultiMarginLoss(p=2, margin=0.5, weight=_w(p, [1, 2, 1, 0.5, 1]),
                                                              reduction="sum"),
                               [((4, 5), "unit", True), ((4,), ("int", 5), False)]),
    "multi_label_margin": (lambda p: p.nn.MultiLabelMarginLoss(),
                           [((3, 4), "unit", True), ((3, 4), ("const", [[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0]]),
                                                              False)]),
    "soft_margin": (lambda p: p.nn.SoftMarginLoss(), [((3, 4), "unit", True), ((3, 4), "sign", False)]),
    "gaussian_nll": (lambda p: p.nn.GaussianNLLLoss(),
                     [((3, 4), "unit", True), ((3, 4), "unit", False), ((3, 4), "pos", True)]),
    "gaussian_nll_full_none": (lambda p: p.nn.GaussianNLLLoss(full=True, epsilon=1e-3, reduction="none"),
                               [((3, 4), "unit", True), ((3, 4), "unit", False), ((3, 1), "pos", True)]),
    "hsigmoid": (lambda p: p.nn.HSigmoidLoss(3, 5), [((4, 3), "unit", True), ((4, 1), ("int", 5), False)]),
    "hsigmoid_no_bias": (lambda p: p.nn.HSigmoidLoss(4, 6, bias_attr=False),
                         [((3, 4), "unit", True), ((3, 1), ("int", 6), False)]),
    "ctc": (lambda p: p.nn.CTCLoss(), [((6, 2, 4), "unit", True), ((2, 3), ("const", [[1, 2, 2], [3, 1, 0]]), False),
                                       ((2,), ("const", [6, 5]), False), ((2,), ("const", [3, 2]), False)]),
    "ctc_sum_blank": (lambda p: p.nn.CTCLoss(blank=3, reduction="sum"),
                      [((5, 2, 4), "unit", True), ((2, 2), ("const", [[0, 1], [2, 2]]), False),
                       ((2,), ("const", [5, 5]), False), ((2,), ("const", [2, 2]), False)]),
}
INT32_INPUTS = {"ctc": {1}, "ctc_sum_blank": {1}}

# constructions (or a forward on float inputs of these shapes) that must fail like Paddle
ERRORS = {
    "err_bce_reduction": (lambda p: p.nn.BCELoss(reduction="avg"), None),
    "err_bce_logits_reduction": (lambda p: p.nn.BCEWithLogitsLoss(reduction="max"), None),
    "err_mse_reduction": (lambda p: p.nn.MSELoss("x"), None),
    "err_l1_reduction": (lambda p: p.nn.L1Loss("x"), None),
    "err_nll_reduction": (lambda p: p.nn.NLLLoss(reduction="x"), None),
    "err_margin_ranking_reduction": (lambda p: p.nn.MarginRankingLoss(reduction="x"), None),
    "err_soft_margin_reduction": (lambda p: p.nn.SoftMarginLoss("x"), None),
    "err_gaussian_reduction": (lambda p: p.nn.GaussianNLLLoss(reduction="x"), None),
    "err_triplet_reduction": (lambda p: p.nn.TripletMarginLoss(reduction="x"), None),
    "err_poisson_epsilon": (lambda p: p.nn.PoissonNLLLoss(epsilon=0.0), None),
    "err_cosine_margin": (lambda p: p.nn.CosineEmbeddingLoss(margin=1.5), None),
    "err_hsigmoid_classes": (lambda p: p.nn.HSigmoidLoss(3, 1), None),
    "err_adaptive_cutoffs": (lambda p: p.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]), None),
    "err_adaptive_cutoff_range": (lambda p: p.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 10]), None),
    "ok_cross_entropy_lazy_reduction": (lambda p: p.nn.CrossEntropyLoss(reduction="x"), None),
    "ok_kl_div_lazy_reduction": (lambda p: p.nn.KLDivLoss("x"), None),
    "err_mse_shapes": (lambda p: p.nn.MSELoss(), [(3, 4), (4, 3)]),
    "err_l1_shapes": (lambda p: p.nn.L1Loss(), [(3, 4), (2, 4)]),
}


def loss_case(paddle, name, make, inputs):
    rng = np.random.default_rng(stable_seed(name))
    with paddle.utils.unique_name.guard():
        layer = make(paddle)
    result = {"repr": repr(layer), "state": state_summary(layer)}
    fill_state(layer, rng)
    tensors = []
    for i, (shape, kind, differentiable) in enumerate(inputs):
        data = _data(rng, shape, kind)
        if i in INT32_INPUTS.get(name, ()):
            data = data.astype("int32")
        elif isinstance(kind, tuple) and kind[0] == "const":
            data = data.astype("int64")
        tensors.append(paddle.to_tensor(data, stop_gradient=not differentiable))
    out = layer(*tensors)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    total = None
    for o in outs:
        if "float" in str(o.dtype) and not o.stop_gradient:
            term = (o * paddle.to_tensor(rng.uniform(0.5, 1.5, list(o.shape)).astype("float32"))).sum()
            total = term if total is None else total + term
    if total is not None:
        total.backward()
    result["out"] = record(out)
    result["input_grads"] = [grad_of(t) for t in tensors]
    result["param_grads"] = {n: grad_of(p) for n, p in layer.named_parameters()}
    return result


def error_case(paddle, make, shapes):
    def run():
        layer = make(paddle)
        if shapes is None:
            return "constructed"
        return layer(*[paddle.to_tensor(np.ones(s, "float32")) for s in shapes])
    return catch(run)


def c_adaptive_log_softmax(paddle):
    rng = np.random.default_rng(5)
    with paddle.utils.unique_name.guard():
        layer = paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True)
        out = {"repr": repr(layer), "state": state_summary(layer), "n_parameters": len(layer.parameters()),
               "tail_shapes": [[list(w.shape) for w in pair] for pair in layer.tail_weights],
               "tail_names": [[w.name for w in pair] for pair in layer.tail_weights]}
        fill_state(layer, rng)
        for pair in layer.tail_weights:
            for w in pair:
                w.set_value(rng.uniform(-1, 1, list(w.shape)).astype("float32"))
        x = paddle.to_tensor(rng.uniform(-1, 1, [6, 8]).astype("float32"), stop_gradient=False)
        label = paddle.to_tensor(np.array([0, 3, 4, 6, 7, 9], "int64"))
        output, loss = layer(x, label)
        loss.backward()
        out.update({"output": output, "loss": loss, "x_grad": grad_of(x), "head_grad": grad_of(layer.head_weight),
                    "log_prob": layer.log_prob(x), "predict": layer.predict(x).astype("float32")})
        return out


def c_loss_attributes(paddle):
    nn = paddle.nn
    with paddle.utils.unique_name.guard():
        w = paddle.to_tensor(np.ones(3, "float32"))
        bce = nn.BCELoss(weight=w)
        nll = nn.NLLLoss(weight=w, ignore_index=3)
        ce = nn.CrossEntropyLoss(weight=w, label_smoothing=0.2)
        return {"bce": (bce.reduction, [k for k, _ in bce.named_buffers()], list(bce.state_dict())),
                "nll": (nll._reduction, nll._ignore_index), "ce": (ce.reduction, ce.label_smoothing, ce.axis),
                "ctc": (nn.CTCLoss(blank=2).blank, nn.CTCLoss().zero_infinity),
                "smooth": (nn.SmoothL1Loss(delta=2.0).delta, nn.SmoothL1Loss().is_huber),
                "kl": nn.KLDivLoss("batchmean", True).log_target,
                "rnnt": (nn.RNNTLoss(blank=1).blank, nn.RNNTLoss().fastemit_lambda, nn.RNNTLoss().reduction),
                "reprs": [repr(l) for l in (bce, nll, ce, nn.MSELoss(), nn.CTCLoss(), nn.HSigmoidLoss(3, 4))]}


CASES = {name: functools.partial(loss_case, name=name, make=make, inputs=inputs)
         for name, (make, inputs) in LOSSES.items()}
CASES.update({name: functools.partial(error_case, make=make, shapes=shapes) for name, (make, shapes) in ERRORS.items()})
CASES.update({name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")})


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
