"""paddle.distribution transforms: against real PaddlePaddle 3.3.1 (transform_cases.py), and against
torch autograd (log-det-Jacobians from the full Jacobian), round trips, user subclasses and bad input."""
import numpy as np
import pytest
import torch

import paddle_ref
import torchpaddle as paddle
from torchpaddle.framework.tensor import wrap
from tests.distribution import transform_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

D = paddle.distribution

reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.distribution.transform_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


def test_every_case_runs(ours):
    assert {n: r[1] for n, r in ours.items() if isinstance(r, tuple) and r[0] == "E"} == {}


def t(values, dtype="float64"):
    return paddle.to_tensor(np.array(values, dtype=dtype))


X = np.array([[-1.5, 0.2, 0.7], [2.0, -0.3, 0.1]])

ELEMENTWISE = [  # (name, transform, x) with a scalar event: fldj = log |dy/dx| elementwise
    ("exp", lambda: D.ExpTransform(), X),
    ("sigmoid", lambda: D.SigmoidTransform(), X),
    ("tanh", lambda: D.TanhTransform(), X),
    ("affine", lambda: D.AffineTransform(t([1.0, -2.0, 0.5]), t([2.0, -0.5, 3.0])), X),
    ("power", lambda: D.PowerTransform(t([2.0, 0.5, 3.0])), np.abs(X) + 0.1),
    ("chain", lambda: D.ChainTransform([D.AffineTransform(t(1.0), t(2.0)), D.TanhTransform()]), X),
    ("stack", lambda: D.StackTransform([D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform()], axis=1), X),
]


@pytest.mark.parametrize("name,make,x", ELEMENTWISE, ids=[e[0] for e in ELEMENTWISE])
def test_elementwise_log_det_jacobian_against_autograd(name, make, x):
    transform = make()
    xt = torch.tensor(x, requires_grad=True, device=t(0.0)._t.device)  # where the transform's parameters are
    y = transform.forward(wrap(xt.detach()))
    (dy,) = torch.autograd.grad(transform.forward(wrap(xt))._t.sum(), [xt])
    dy = dy.cpu()
    fldj = transform.forward_log_det_jacobian(t(x)).numpy()
    np.testing.assert_allclose(np.broadcast_to(fldj, x.shape), np.log(np.abs(dy.numpy())), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(transform.inverse(y).numpy(), x, rtol=1e-10, atol=1e-12)
    ildj = transform.inverse_log_det_jacobian(y).numpy()
    np.testing.assert_allclose(np.broadcast_to(ildj, x.shape), -np.log(np.abs(dy.numpy())), rtol=1e-10, atol=1e-12)


def test_stick_breaking_log_det_jacobian_against_autograd():
    transform = D.StickBreakingTransform()
    x = torch.tensor([0.3, -0.2, 1.1], dtype=torch.float64)
    jac = torch.autograd.functional.jacobian(lambda v: transform.forward(wrap(v))._t[:-1], x)
    fldj = transform.forward_log_det_jacobian(wrap(x)).numpy()
    np.testing.assert_allclose(fldj, np.log(abs(np.linalg.det(jac.numpy()))), rtol=1e-10)
    y = transform.forward(wrap(x))
    np.testing.assert_allclose(y.numpy().sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(transform.inverse(y).numpy(), x.numpy(), rtol=1e-10)


def test_reshape_and_independent_and_softmax():
    r = D.ReshapeTransform((2, 3), (3, 2))
    x = t(np.arange(12.0).reshape(2, 2, 3))
    assert r.forward(x).shape == [2, 3, 2] and r.forward_log_det_jacobian(x).shape == [2]
    np.testing.assert_array_equal(r.inverse(r.forward(x)).numpy(), x.numpy())
    i = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(i.forward_log_det_jacobian(t(X)).numpy(), X.sum(-1))
    s = D.SoftmaxTransform().forward(t(X)).numpy()
    np.testing.assert_allclose(s, np.exp(X) / np.exp(X).sum(-1, keepdims=True))


def test_transformed_distribution_log_prob_is_change_of_variables():
    # Y = exp(2 + 3 X), X ~ N(0, 1): log p(y) = log N((log y - 2) / 3) - log 3 - log y
    d = D.TransformedDistribution(D.Normal(t([0.0]), t([1.0])),
                                  [D.AffineTransform(t(2.0), t(3.0)), D.ExpTransform()])
    y = np.array([0.5, 3.0, 40.0])
    z = (np.log(y) - 2) / 3
    ref = -0.5 * z ** 2 - 0.5 * np.log(2 * np.pi) - np.log(3) - np.log(y)
    np.testing.assert_allclose(d.log_prob(t(y)).numpy(), ref, rtol=1e-10)
    assert type(D.ExpTransform()(D.Normal(0.0, 1.0))).__name__ == "TransformedDistribution"


def test_user_transform_subclass():
    class Square(D.Transform):
        _type = D.transform.Type.BIJECTION

        def _forward(self, x):
            return x * x

        def _inverse(self, y):
            return paddle.sqrt(y)

        def _forward_log_det_jacobian(self, x):
            return paddle.log(paddle.abs(2 * x))

    sq = Square()
    x = t([1.0, 2.0])
    np.testing.assert_allclose(sq.forward(x).numpy(), [1.0, 4.0])
    np.testing.assert_allclose(sq.inverse_log_det_jacobian(t([1.0, 4.0])).numpy(), -np.log([2.0, 4.0]))
    np.testing.assert_allclose(D.ChainTransform([sq, D.ExpTransform()]).forward_log_det_jacobian(x).numpy(),
                               np.log([2.0, 4.0]) + [1.0, 4.0])


def test_transform_gradients_flow():
    x = paddle.to_tensor([0.5, -1.0], stop_gradient=False)
    (g,) = paddle.grad(D.TanhTransform().forward_log_det_jacobian(x).sum(), [x])
    np.testing.assert_allclose(g.numpy(), -2 * np.tanh([0.5, -1.0]), rtol=1e-5)


BAD = [
    ("forward of a list", lambda: D.ExpTransform().forward([1.0]), TypeError),
    ("forward_shape of an int", lambda: D.ExpTransform().forward_shape(3), TypeError),
    ("affine float loc", lambda: D.AffineTransform(1.0, t([1.0])), TypeError),
    ("power float", lambda: D.PowerTransform(2.0), TypeError),
    ("chain not a list", lambda: D.ChainTransform(D.ExpTransform()), TypeError),
    ("chain element", lambda: D.ChainTransform([1]), TypeError),
    ("independent rank 0", lambda: D.IndependentTransform(D.ExpTransform(), 0), ValueError),
    ("independent too few dims", lambda: D.IndependentTransform(D.ExpTransform(), 3).forward(t(X)), ValueError),
    ("reshape numel", lambda: D.ReshapeTransform((2, 3), (4,)), ValueError),
    ("reshape not a sequence", lambda: D.ReshapeTransform(6, (6,)), TypeError),
    ("reshape forward_shape", lambda: D.ReshapeTransform((2, 3), (3, 2)).forward_shape((3, 3)), ValueError),
    ("softmax 0-d", lambda: D.SoftmaxTransform().forward(t(1.0)), ValueError),
    ("softmax ldj", lambda: D.SoftmaxTransform().forward_log_det_jacobian(t(X)), NotImplementedError),
    ("abs fldj", lambda: D.AbsTransform().forward_log_det_jacobian(t([1.0])), NotImplementedError),
    ("stack empty", lambda: D.StackTransform([]), TypeError),
    ("stack float axis", lambda: D.StackTransform([D.ExpTransform()], axis=1.0), TypeError),
    ("stack size", lambda: D.StackTransform([D.ExpTransform()] * 3, 1).forward(t([[1.0, 2.0]])), ValueError),
    ("stack unstackable ldj", lambda: D.StackTransform([D.ExpTransform(), D.AffineTransform(t(1.0), t(3.0))])
     .forward_log_det_jacobian(t(X)), ValueError),
    ("stick breaking empty shape", lambda: D.StickBreakingTransform().forward_shape(()), ValueError),
    ("base forward", lambda: D.Transform().forward(t([1.0])), NotImplementedError),
]


@pytest.mark.parametrize("name,fn,exc", BAD, ids=[b[0] for b in BAD])
def test_bad_input(name, fn, exc):
    with pytest.raises(exc):
        fn()
