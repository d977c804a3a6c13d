"""paddle.metric beyond the reference values: the Metric base class contract, names, and bad input."""
import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle import metric


def test_metric_base_class_contract():
    with pytest.raises(TypeError):
        metric.Metric()

    class Mean(metric.Metric):
        def __init__(self):
            super().__init__()
            self.reset()

        def reset(self):
            self.total, self.count = 0.0, 0

        def update(self, values):
            self.total += float(np.sum(values))
            self.count += np.size(values)

        def accumulate(self):
            return self.total / self.count

        def name(self):
            return "mean"

    m = Mean()
    assert m.compute(1, 2) == (1, 2)        # default compute passes its inputs through
    m.update(np.array([1.0, 3.0]))
    m.update(paddle.to_tensor([5.0]).numpy())
    assert m.accumulate() == 3.0 and m.name() == "mean"
    assert isinstance(metric.Accuracy(), metric.Metric)
    assert paddle.metric.accuracy is metric.accuracy


def test_accuracy_names_and_compute_shapes():
    assert metric.Accuracy().name() == ["acc"]
    assert metric.Accuracy(topk=(1, 5), name="a").name() == ["a_top1", "a_top5"]
    m = metric.Accuracy(topk=(1, 2))
    pred = paddle.to_tensor(np.array([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4]], dtype=np.float32))
    correct = m.compute(pred, paddle.to_tensor(np.array([[2], [0]])))
    assert correct.shape == [2, 2] and correct.dtype == paddle.float32
    assert correct.numpy().tolist() == [[0.0, 1.0], [1.0, 0.0]]
    assert m.update(correct) == [0.5, 1.0] and m.accumulate() == [0.5, 1.0]
    m.reset()
    assert m.accumulate() == [0.0, 0.0]
    for bad in ((0,), (1, -2), ("1",), ()):
        with pytest.raises(ValueError):
            metric.Accuracy(topk=bad)


def test_precision_recall_auc_bad_input():
    for cls in (metric.Precision, metric.Recall, metric.Auc):
        m = cls()
        with pytest.raises(ValueError, match="preds"):
            m.update([0.1, 0.9], np.array([0, 1]))
        with pytest.raises(ValueError, match="labels"):
            m.update(np.array([[0.9, 0.1], [0.2, 0.8]]), [0, 1])
    with pytest.raises(ValueError, match="one value per sample"):
        metric.Precision().update(np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match=r"\[N, 2\]"):
        metric.Auc().update(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metric.Auc().update(np.array([[0.5, 1.5]]), np.array([1]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        metric.Auc().update(np.array([[1.2, -0.2]]), np.array([1]))
    with pytest.raises(ValueError):
        metric.Auc(num_thresholds=0)


def test_auc_perfect_and_inverted_rankings():
    p = np.linspace(0.05, 0.95, 10)
    labels = (p > 0.5).astype(np.int64)
    good, bad = metric.Auc(), metric.Auc()
    good.update(np.stack([1 - p, p], 1), labels)
    bad.update(np.stack([p, 1 - p], 1), labels)
    assert good.accumulate() == 1.0 and bad.accumulate() == 0.0 and good.name() == "auc"


def test_accuracy_function_outputs_and_counters():
    x = paddle.to_tensor(np.array([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4], [0.35, 0.3, 0.4]], dtype=np.float32),
                         stop_gradient=False)
    label = paddle.to_tensor(np.array([[1], [2], [1]], dtype=np.int32))
    correct, total = paddle.zeros([1], "int32"), paddle.zeros([1], "int32")
    acc = metric.accuracy(x, label, k=2, correct=correct, total=total)
    assert acc.shape == [] and acc.dtype == paddle.float32 and acc.stop_gradient
    np.testing.assert_allclose(acc.numpy(), 2 / 3, rtol=1e-6)
    assert correct.numpy().tolist() == 2 and total.numpy().tolist() == 3 and correct.dtype == paddle.int32
    with pytest.raises(TypeError):
        metric.accuracy(x, label, correct=np.zeros(1))
    with pytest.raises(ValueError):
        metric.accuracy(x.numpy(), label)
