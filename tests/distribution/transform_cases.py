"""paddle.distribution transform cases, run on real PaddlePaddle 3.3.1
(``python -m tests.distribution.transform_cases OUT.pkl``) and on torchpaddle by test_transforms.py. Each case
records forward, inverse, both log-det-Jacobians, both shape maps, gradients, and calling the transform on a
tensor, a distribution and another transform."""
import sys

import numpy as np

from tests.nn.layer_case_tools import catch, dump


def profile(paddle, t, x, y, shape=(2, 3)):
    out = {"forward": catch(lambda: t.forward(x)), "inverse": catch(lambda: t.inverse(y)),
           "fldj": catch(lambda: t.forward_log_det_jacobian(x)),
           "ildj": catch(lambda: t.inverse_log_det_jacobian(y)),
           "forward_shape": catch(lambda: tuple(t.forward_shape(shape))),
           "inverse_shape": catch(lambda: tuple(t.inverse_shape(shape))),
           "call_tensor": catch(lambda: t(x)),
           "call_transform": catch(lambda: type(t(paddle.distribution.ExpTransform())).__name__),
           "call_distribution": catch(lambda: type(t(paddle.distribution.Normal(0.0, 1.0))).__name__),
           "forward_list": catch(lambda: t.forward([1.0])), "forward_shape_int": catch(lambda: t.forward_shape(3))}
    xg = paddle.to_tensor(x.numpy(), stop_gradient=False)
    out["grad"] = catch(lambda: _grad(paddle, t, xg))
    return out


def _grad(paddle, t, x):
    total = t.forward(x).sum()
    try:
        total = total + t.forward_log_det_jacobian(x).sum()
    except NotImplementedError:
        pass
    return paddle.grad(total, [x])[0]


def _t(paddle, values, dtype="float32"):
    return paddle.to_tensor(np.array(values, dtype=dtype))


X = [[-1.5, 0.2, 0.7], [2.0, -0.3, 0.1]]
POS = [[0.5, 1.2, 3.0], [0.1, 2.0, 0.9]]
UNIT = [[0.2, 0.5, 0.9], [0.1, 0.4, 0.6]]


def c_abs(paddle):
    return profile(paddle, paddle.distribution.AbsTransform(), _t(paddle, X), _t(paddle, POS))


def c_affine(paddle):
    D = paddle.distribution
    t = D.AffineTransform(_t(paddle, [1.0, -2.0, 0.5]), _t(paddle, [[2.0], [-0.5]]))
    return [profile(paddle, t, _t(paddle, X), _t(paddle, POS)), t.loc, t.scale,
            catch(lambda: D.AffineTransform(1.0, _t(paddle, [1.0]))),
            catch(lambda: D.AffineTransform(_t(paddle, [1.0]), 2.0)),
            profile(paddle, D.AffineTransform(_t(paddle, 0.0), _t(paddle, 3.0)), _t(paddle, X, "float64"),
                    _t(paddle, POS, "float64"))]


def c_exp(paddle):
    return profile(paddle, paddle.distribution.ExpTransform(), _t(paddle, X), _t(paddle, POS))


def c_power(paddle):
    D = paddle.distribution
    t = D.PowerTransform(_t(paddle, [2.0, 0.5, 3.0]))
    return [profile(paddle, t, _t(paddle, POS), _t(paddle, POS)), t.power,
            catch(lambda: D.PowerTransform(2.0)),
            profile(paddle, D.PowerTransform(_t(paddle, 2.0)), _t(paddle, POS), _t(paddle, POS), shape=(4,))]


def c_sigmoid(paddle):
    return profile(paddle, paddle.distribution.SigmoidTransform(), _t(paddle, X), _t(paddle, UNIT))


def c_tanh(paddle):
    return profile(paddle, paddle.distribution.TanhTransform(), _t(paddle, X), _t(paddle, UNIT))


def c_softmax(paddle):
    return [profile(paddle, paddle.distribution.SoftmaxTransform(), _t(paddle, X), _t(paddle, UNIT)),
            catch(lambda: paddle.distribution.SoftmaxTransform().forward_shape(())),
            catch(lambda: paddle.distribution.SoftmaxTransform().forward(_t(paddle, 1.0)))]


def c_stick_breaking(paddle):
    t = paddle.distribution.StickBreakingTransform()
    y = _t(paddle, [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])
    return [profile(paddle, t, _t(paddle, X), y), catch(lambda: t.forward_shape(())),
            tuple(t.inverse_shape((2, 4))), t.forward(_t(paddle, [0.3, -0.2], "float64"))]


def c_reshape(paddle):
    D = paddle.distribution
    t = D.ReshapeTransform((2, 3), (3, 2))
    x = _t(paddle, np.arange(12.0).reshape(2, 2, 3))
    return [profile(paddle, t, x, _t(paddle, np.arange(6.0).reshape(3, 2)), shape=(4, 2, 3)),
            t.in_event_shape, t.out_event_shape, catch(lambda: D.ReshapeTransform((2, 3), (4,))),
            catch(lambda: D.ReshapeTransform(6, (6,))), catch(lambda: t.forward_shape((3, 3))),
            catch(lambda: t.forward_shape((3,))), catch(lambda: t.inverse_shape((2, 3))),
            catch(lambda: t.forward(_t(paddle, [1.0, 2.0])))]


def c_chain(paddle):
    D = paddle.distribution
    t = D.ChainTransform([D.AffineTransform(_t(paddle, 1.0), _t(paddle, 2.0)), D.ExpTransform(),
                          D.PowerTransform(_t(paddle, 0.5))])
    t2 = D.ChainTransform([D.SoftmaxTransform(), D.ExpTransform()])
    t3 = D.ChainTransform([D.ExpTransform(), D.StickBreakingTransform()])
    return [profile(paddle, t, _t(paddle, X), _t(paddle, POS)), profile(paddle, t2, _t(paddle, X), _t(paddle, POS)),
            profile(paddle, t3, _t(paddle, X), _t(paddle, [[0.1, 0.2, 0.3, 0.4]])),
            catch(lambda: D.ChainTransform(D.ExpTransform())), catch(lambda: D.ChainTransform([1])),
            profile(paddle, D.ChainTransform([D.ExpTransform(), D.AbsTransform()]), _t(paddle, X), _t(paddle, POS)),
            len(t.transforms)]


def c_independent(paddle):
    D = paddle.distribution
    t = D.IndependentTransform(D.ExpTransform(), 1)
    t2 = D.IndependentTransform(D.StickBreakingTransform(), 1)
    return [profile(paddle, t, _t(paddle, X), _t(paddle, POS)),
            profile(paddle, t2, _t(paddle, X), _t(paddle, [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25]])),
            catch(lambda: D.IndependentTransform(D.ExpTransform(), 0)),
            catch(lambda: D.IndependentTransform(1, 1)),
            catch(lambda: D.IndependentTransform(D.ExpTransform(), 3).forward(_t(paddle, X)))]


def c_stack(paddle):
    D = paddle.distribution
    t = D.StackTransform([D.ExpTransform(), D.SigmoidTransform(), D.TanhTransform()], axis=1)
    t0 = D.StackTransform([D.ExpTransform(), D.AffineTransform(_t(paddle, 1.0), _t(paddle, 3.0))])
    return [profile(paddle, t, _t(paddle, X), _t(paddle, UNIT)), profile(paddle, t0, _t(paddle, X), _t(paddle, POS)),
            t.axis, len(t.transforms), catch(lambda: D.StackTransform([])),
            catch(lambda: D.StackTransform([D.ExpTransform()], axis=1.0)),
            catch(lambda: D.StackTransform([1])), catch(lambda: t.forward(_t(paddle, [[1.0, 2.0]]))),
            catch(lambda: t.forward(_t(paddle, [1.0, 2.0, 3.0])))]


def c_base_transform(paddle):
    D = paddle.distribution
    t = D.Transform()
    x = _t(paddle, [1.0])
    return [catch(lambda: t.forward(x)), catch(lambda: t.inverse(x)),
            catch(lambda: t.forward_log_det_jacobian(x)), catch(lambda: t.inverse_log_det_jacobian(x)),
            tuple(t.forward_shape((2, 3))), tuple(t.inverse_shape([2])),
            catch(lambda: D.AbsTransform().forward_log_det_jacobian(x)),
            catch(lambda: D.SoftmaxTransform().forward_log_det_jacobian(_t(paddle, X))),
            catch(lambda: D.SoftmaxTransform().inverse_log_det_jacobian(_t(paddle, UNIT))),
            D.ExpTransform()._is_injective(), D.AbsTransform()._is_injective()]


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
