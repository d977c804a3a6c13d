"""fluid.metrics / fluid.evaluator cases run on PaddlePaddle 1.8.5 (``python -m tests.fluid.metrics_cases OUT.pkl``
in .fluid_venv) and on torchpaddle.fluid by tests/fluid/test_fluid_metrics.py. Python 3.8 / NumPy < 1.20 safe."""
import pickle
import sys

import numpy as np

CASES = {}


def case(fn):
    CASES[fn.__name__[2:]] = fn
    return fn


def _plain(value):
    if isinstance(value, (np.generic,)):
        return value.item()
    if isinstance(value, np.ndarray):
        return ("A", value.copy())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return dict((k, _plain(v)) for k, v in value.items())
    return value


def catch(fn):
    try:
        return _plain(fn())
    except Exception as exc:  # noqa: BLE001 - the exception type is the result
        return ("E", [c.__name__ for c in type(exc).__mro__])


RNG = np.random.RandomState(7)
PREDS = [RNG.uniform(0, 1, [16, 1]).astype("float32") for _ in range(3)]
LABELS = [RNG.randint(0, 2, [16, 1]).astype("int64") for _ in range(3)]


@case
def c_precision_recall(fluid):
    p, r = fluid.metrics.Precision(), fluid.metrics.Recall("rec")
    out = []
    for preds, labels in zip(PREDS, LABELS):
        p.update(preds, labels)
        r.update(preds, labels)
        out.append([p.eval(), r.eval(), p.tp, p.fp, r.tp, r.fn])
    out.append([str(p), str(r), p.get_config()])
    p.reset()
    out.append([p.tp, p.fp, p.eval()])
    return out


@case
def c_accuracy(fluid):
    acc = fluid.metrics.Accuracy()
    acc.update(0.5, 4)
    acc.update(np.array([0.75], "float32"), 8)
    first = acc.eval()
    acc.reset()
    errors = [catch(acc.eval), catch(lambda: acc.update(0.5, -1)), catch(lambda: acc.update("x", 1)),
              catch(lambda: acc.update(0.5, "y"))]
    return [first, acc.value, acc.weight, errors]


@case
def c_chunk(fluid):
    chunk = fluid.metrics.ChunkEvaluator()
    chunk.update(np.array([10]), np.array([12]), np.array([8]))
    chunk.update(5, 4, 3)
    first = chunk.eval()
    chunk.reset()
    return [first, chunk.eval(), catch(lambda: chunk.update("a", 1, 1))]


@case
def c_edit_distance(fluid):
    ed = fluid.metrics.EditDistance("ed")
    ed.update(np.array([[0.0], [2.0], [1.0]], "float32"), 3)
    ed.update(np.array([[0.0], [0.0]], "float32"), 2)
    first = ed.eval()
    ed.reset()
    return [first, catch(ed.eval), catch(lambda: ed.update([1.0], 1))]


@case
def c_auc(fluid):
    auc = fluid.metrics.Auc("auc", num_thresholds=200)
    results = []
    for preds, labels in zip(PREDS, LABELS):
        two = np.concatenate([1 - preds, preds], axis=1)
        auc.update(two, labels)
        results.append(auc.eval())
    empty = fluid.metrics.Auc("empty")
    return [results, empty.eval(), catch(lambda: empty.update([0.5], np.array([1])))]


@case
def c_composite(fluid):
    comp = fluid.metrics.CompositeMetric()
    comp.add_metric(fluid.metrics.Precision())
    comp.add_metric(fluid.metrics.Recall())
    for preds, labels in zip(PREDS, LABELS):
        comp.update(preds, labels)
    return [comp.eval(), catch(lambda: comp.add_metric(object()))]


@case
def c_weighted_average(fluid):
    avg = fluid.average.WeightedAverage()
    first = catch(avg.eval)
    avg.add(1.0, 2)
    avg.add(np.array([3.0]), 1)
    value = avg.eval()
    return [first, value, avg.numerator, avg.denominator, catch(lambda: avg.add("x", 1))]


@case
def c_ps_dispatch(fluid):
    class Var(object):
        def __init__(self, name):
            self._name = name

        def name(self):
            return self._name
    rr = fluid.transpiler.RoundRobin(["a:1", "b:2", "c:3"])
    first = rr.dispatch([Var("x"), Var("y")])
    second = rr.dispatch([Var("z"), Var("w")])
    rr.reset()
    return [first, second, rr.dispatch([Var("v")]), rr.eps]


def run_all(fluid):
    return dict((name, catch(lambda fn=fn: fn(fluid))) for name, fn in CASES.items())


if __name__ == "__main__":
    import paddle.fluid as _fluid
    with open(sys.argv[1], "wb") as _f:
        pickle.dump({"results": run_all(_fluid)}, _f, protocol=2)
