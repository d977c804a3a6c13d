"""Loss layers. Most hold their arguments and call one nn.functional loss, so they are declared as data."""
import inspect

from ...framework import dtype as _dtype
from .. import functional as F
from .layers import Layer

_EMPTY = inspect.Parameter.empty
_REDUCTIONS = ("sum", "mean", "none")


def _signature(names_defaults):
    return inspect.Signature([inspect.Parameter(k, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
                              for k, d in names_defaults])


class _Loss(Layer):
    """Binds the constructor to ``_config`` (Paddle's names and defaults) and stores each argument as an
    attribute (``_private``: with a leading underscore, as some Paddle losses do); ``forward`` binds
    ``_inputs`` and calls ``F.<_fn>(*inputs, **config)``."""
    _fn = None
    _config = ()
    _inputs = ("input", "label")
    _private = False
    _check_reduction = True
    _input_aliases = {}
    _check = None          # extra constructor validation: f(cls_name, arguments)

    def __init__(self, *args, **kwargs):
        bound = self._init_signature.bind(*args, **kwargs)
        bound.apply_defaults()
        reduction = bound.arguments.get("reduction")
        if self._check_reduction and reduction is not None and reduction not in _REDUCTIONS:
            raise ValueError(f"The value of 'reduction' in {type(self).__name__} should be 'sum', 'mean' or "
                             f"'none', but received {reduction}, which is not allowed.")
        if self._check is not None:
            type(self)._check(type(self).__name__, bound.arguments)
        super().__init__()
        self._config_names = tuple(bound.arguments)
        for key, value in bound.arguments.items():
            setattr(self, ("_" if self._private else "") + key, value)

    def _config_values(self):
        prefix = "_" if self._private else ""
        return {key: getattr(self, prefix + key) for key in self._config_names}

    def forward(self, *args, **kwargs):
        for alias, real in self._input_aliases.items():
            if alias in kwargs and real not in kwargs:
                kwargs[real] = kwargs.pop(alias)
        bound = type(self)._forward_signature.bind(*args, **kwargs)
        return getattr(F, self._fn)(*bound.args, **self._config_values())


def _signed_init(config):
    """An ``__init__`` that shows Paddle's signature to ``inspect`` (and is not inherited by subclasses)."""
    def __init__(self, *args, **kwargs):
        _Loss.__init__(self, *args, **kwargs)
    __init__.__signature__ = _signature([("self", _EMPTY)] + list(config))
    return __init__


def _loss(cls_name, fn, config, inputs=("input", "label"), private=False, check_reduction=True,
          input_aliases=None, check=None, doc=""):
    return type(cls_name, (_Loss,), {
        "_fn": fn, "_config": tuple(config), "_inputs": tuple(inputs), "_private": private,
        "_check_reduction": check_reduction, "_input_aliases": input_aliases or {},
        "_check": staticmethod(check) if check else None,
        "_init_signature": _signature(config), "__init__": _signed_init(config),
        "_forward_signature": _signature([(i, _EMPTY) for i in inputs]),
        "__doc__": doc or f"Layer form of nn.functional.{fn}.", "__module__": __name__})


def _positive_epsilon(cls_name, args):
    if args["epsilon"] <= 0:
        raise ValueError(f"The value of `epsilon` in {cls_name} should be positive, but received "
                         f"{args['epsilon']}, which is not allowed")


def _margin_in_unit_range(cls_name, args):
    if not -1 <= args["margin"] <= 1:
        raise ValueError(f"The value of 'margin' in {cls_name} should be in the interval of [-1, 1], but "
                         f"received {args['margin']}, which is not allowed.")


_MEAN = ("reduction", "mean")
_NAME = ("name", None)
_WEIGHT = ("weight", None)
_SPECS = [
    ("BCELoss", "binary_cross_entropy", [_WEIGHT, _MEAN, _NAME]),
    ("BCEWithLogitsLoss", "binary_cross_entropy_with_logits", [_WEIGHT, _MEAN, ("pos_weight", None), _NAME],
     ("logit", "label")),
    ("CrossEntropyLoss", "cross_entropy", [_WEIGHT, ("ignore_index", -100), _MEAN, ("soft_label", False),
                                           ("axis", -1), ("use_softmax", True), ("label_smoothing", 0.0), _NAME],
     ("input", "label"), False, False, {"target": "label"}),
    ("MSELoss", "mse_loss", [_MEAN]),
    ("L1Loss", "l1_loss", [_MEAN, _NAME]),
    ("NLLLoss", "nll_loss", [_WEIGHT, ("ignore_index", -100), _MEAN, _NAME], ("input", "label"), True),
    ("PoissonNLLLoss", "poisson_nll_loss", [("log_input", True), ("full", False), ("epsilon", 1e-08), _MEAN,
                                            _NAME], ("input", "label"), True, True, None, _positive_epsilon),
    ("KLDivLoss", "kl_div", [_MEAN, ("log_target", False)], ("input", "label"), False, False),
    ("MarginRankingLoss", "margin_ranking_loss", [("margin", 0.0), _MEAN, _NAME], ("input", "other", "label")),
    ("RNNTLoss", "rnnt_loss", [("blank", 0), ("fastemit_lambda", 0.001), _MEAN, _NAME],
     ("input", "label", "input_lengths", "label_lengths"), False, False),
    ("SmoothL1Loss", "smooth_l1_loss", [_MEAN, ("delta", 1.0), ("is_huber", True), _NAME], ("input", "label"),
     False, False, {"target": "label"}),
    ("MultiLabelSoftMarginLoss", "multi_label_soft_margin_loss", [_WEIGHT, _MEAN, _NAME]),
    ("HingeEmbeddingLoss", "hinge_embedding_loss", [("margin", 1.0), _MEAN, _NAME], ("input", "label"), False,
     False),
    ("CosineEmbeddingLoss", "cosine_embedding_loss", [("margin", 0), _MEAN, _NAME], ("input1", "input2", "label"),
     False, True, None, _margin_in_unit_range),
    # NOTE: Paddle 3.3.1's layer forgets to pass distance_function on to the functional; we pass it.
    ("TripletMarginWithDistanceLoss", "triplet_margin_with_distance_loss",
     [("distance_function", None), ("margin", 1.0), ("swap", False), _MEAN, _NAME],
     ("input", "positive", "negative")),
    ("TripletMarginLoss", "triplet_margin_loss", [("margin", 1.0), ("p", 2.0), ("epsilon", 1e-06), ("swap", False),
                                                  _MEAN, _NAME], ("input", "positive", "negative")),
    ("MultiMarginLoss", "multi_margin_loss", [("p", 1), ("margin", 1.0), _WEIGHT, _MEAN, _NAME]),
    ("MultiLabelMarginLoss", "multi_label_margin_loss", [_MEAN, _NAME]),
    ("SoftMarginLoss", "soft_margin_loss", [_MEAN, _NAME]),
    ("GaussianNLLLoss", "gaussian_nll_loss", [("full", False), ("epsilon", 1e-06), _MEAN, _NAME],
     ("input", "label", "variance")),
]

__all__ = [spec[0] for spec in _SPECS] + ["HuberLoss", "CTCLoss", "HSigmoidLoss", "AdaptiveLogSoftmaxWithLoss"]
for _spec in _SPECS:
    globals()[_spec[0]] = _loss(*_spec)

HuberLoss = SmoothL1Loss  # noqa: F821  (Paddle 3's name for the same class)


class CTCLoss(Layer):
    """Connectionist temporal classification loss over [T, N, C] log-probabilities."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction,
                          norm_by_times=norm_by_times, zero_infinity=self.zero_infinity)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid over a default complete binary tree of ``num_classes`` leaves (weight
    [num_classes - 1, feature_size]) or a custom tree given per call (weight [num_classes, feature_size])."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False,
                 is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: num_classes must not be less than 2 with the default tree, got "
                             f"{num_classes}")
        if not is_custom and is_sparse:
            is_sparse = False  # Paddle prints a note and turns sparse mode off without a custom tree
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse = is_custom, is_sparse
        self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
        self._dtype = _dtype.get_default_dtype()
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr, is_bias=False, dtype=self._dtype)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True, dtype=self._dtype)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table=path_table,
                               path_code=path_code, is_sparse=self._is_sparse, name=self._name)


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax (Grave et al.): a head over the shortlist and cluster tokens, and one two-matrix
    projection per tail cluster. Returns (output, loss)."""

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None, div_value=4.0,
                 head_bias=False, name=None):
        super().__init__()
        self._dtype = _dtype.get_default_dtype()
        cutoffs = list(cutoffs)
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of unique, positive integers "
                             "sorted in an increasing order, where each value is between 1 and n_classes-1, got "
                             f"{cutoffs} for n_classes={n_classes}")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self._weight_attr, self._bias_attr = div_value, weight_attr, bias_attr
        self.is_head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size], attr=weight_attr,
                                                 dtype=self._dtype, is_bias=False)
        self.head_bias = self.create_parameter([self.head_size], attr=bias_attr, dtype=self._dtype, is_bias=True) \
            if head_bias else None
        # NOTE: like Paddle, the tail projections live in a plain list: they are neither in state_dict nor in
        # parameters().
        self.tail_weights = []
        for i in range(self.n_clusters):
            hidden = int(in_features // div_value ** (i + 1))
            out = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail_weights.append([
                self.create_parameter([in_features, hidden], attr=weight_attr, dtype=self._dtype, is_bias=False),
                self.create_parameter([hidden, out], attr=weight_attr, dtype=self._dtype, is_bias=False)])

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight, self.tail_weights, self.cutoffs,
                                                self.head_bias)

    def _full_log_prob(self, input, head_output):
        from ... import tensor as T
        head_logprob = F.log_softmax(head_output, axis=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.linear(x=F.linear(x=input, weight=self.tail_weights[i][0]), weight=self.tail_weights[i][1])
            parts.append(F.log_softmax(cluster, axis=1) + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return T.concat(parts, axis=1)

    def log_prob(self, input):
        head_output = F.linear(x=input, weight=self.head_weight, bias=self.head_bias)
        return self._full_log_prob(input, head_output)

    def predict(self, input):
        from ... import tensor as T
        head_output = F.linear(x=input, weight=self.head_weight, bias=self.head_bias)
        output = T.argmax(head_output, axis=1).cast("float32")
        in_tail = output >= self.shortlist_size
        if not bool(in_tail.any()):
            return output
        full = T.argmax(self._full_log_prob(input, head_output), axis=1).cast("float32")
        return T.where(in_tail, full, output)
