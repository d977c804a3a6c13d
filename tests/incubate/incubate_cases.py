"""paddle.incubate cases run on both torchpaddle and real Paddle 3.3.1: optimizer trajectories, graph aliases,
and the fused ops that have CPU kernels in Paddle."""
import importlib
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

_RNG = np.random.default_rng(11)
_W = _RNG.standard_normal((3, 2)).astype("float32")
_B = _RNG.standard_normal(2).astype("float32")
_XS = [_RNG.standard_normal((4, 3)).astype("float32") for _ in range(6)]
_ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
_COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
_SRC = np.array([0, 1, 2, 0, 4, 3])
_DST = np.array([1, 2, 1, 0, 1, 4])
_X = _RNG.standard_normal((5, 3))


def _incubate(paddle):
    return importlib.import_module(paddle.__name__ + ".incubate")


def _linear(paddle):
    layer = paddle.nn.Linear(3, 2)
    layer.weight.set_value(paddle.to_tensor(_W))
    layer.bias.set_value(paddle.to_tensor(_B))
    return layer


def _train_step(paddle, layer, opt, x):
    loss = (layer(paddle.to_tensor(x)) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()


def _lookahead(alpha, k):
    def case(paddle):
        layer = _linear(paddle)
        inner = paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.5, parameters=layer.parameters())
        opt = _incubate(paddle).LookAhead(inner, alpha=alpha, k=k)
        trajectory = []
        for x in _XS:
            _train_step(paddle, layer, opt, x)
            trajectory.append((layer.weight.numpy().copy(), layer.bias.numpy().copy()))
        return trajectory
    return case


def _model_average(paddle):
    layer = _linear(paddle)
    sgd = paddle.optimizer.SGD(learning_rate=0.2, parameters=layer.parameters())
    avg = _incubate(paddle).ModelAverage(0.5, parameters=layer.parameters(), min_average_window=2,
                                         max_average_window=3)
    seen = []
    for x in _XS:
        loss = (layer(paddle.to_tensor(x)) ** 2).mean()
        loss.backward()
        sgd.step()
        avg.step()
        sgd.clear_grad()
        with avg.apply():
            seen.append(layer.weight.numpy().copy())
        seen.append(layer.weight.numpy().copy())   # restored
    with avg.apply(need_restore=False):
        pass
    seen.append(layer.weight.numpy().copy())
    avg.restore()
    seen.append(layer.weight.numpy().copy())
    return seen


def _send_recv(pool):
    return lambda paddle: _incubate(paddle).graph_send_recv(paddle.to_tensor(_X), paddle.to_tensor(_SRC),
                                                            paddle.to_tensor(_DST), pool_type=pool)


def _khop(nodes, return_eids):
    def case(paddle):
        return _incubate(paddle).graph_khop_sampler(paddle.to_tensor(_ROW), paddle.to_tensor(_COLPTR),
                                                    paddle.to_tensor(nodes), [5, 5], sorted_eids=paddle.arange(13),
                                                    return_eids=return_eids)
    return case


def _sample(paddle):
    return _incubate(paddle).graph_sample_neighbors(paddle.to_tensor(_ROW), paddle.to_tensor(_COLPTR),
                                                    paddle.to_tensor([0, 8, 1, 2]), eids=paddle.arange(13),
                                                    sample_size=2, return_eids=True)


def _reindex(paddle):
    return _incubate(paddle).graph_reindex(paddle.to_tensor([0, 1, 2]), paddle.to_tensor([8, 9, 0, 4, 7, 6, 7]),
                                           paddle.to_tensor([2, 3, 2], dtype="int32"))


# Paddle's CPU fused norm kernels are float32 only
_A, _R = (_RNG.standard_normal((2, 3, 4)).astype("float32") for _ in range(2))
_G, _H, _E = (_RNG.standard_normal(4).astype("float32") for _ in range(3))


def _no_residual(out):
    # without a residual Paddle leaves the residual_out slot unallocated (not readable); skip it
    return [out[0], *out[2:]]


def _fused(fn_name, *args, post=lambda out: out, **kwargs):
    def case(paddle):
        fn = getattr(importlib.import_module(paddle.__name__ + ".incubate.nn.functional"), fn_name)
        return post(fn(*[paddle.to_tensor(a) if isinstance(a, np.ndarray) else a for a in args],
                  **{k: paddle.to_tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}))
    return case


def _softmax_mask(paddle):
    return _incubate(paddle).softmax_mask_fuse(paddle.to_tensor(_SM_X), paddle.to_tensor(_SM_MASK))


_SM_X = _RNG.standard_normal((2, 2, 3, 4)).astype("float32")
_SM_MASK = np.where(_RNG.random((2, 1, 3, 4)) < 0.3, -10000.0, 0.0).astype("float32")


CASES = {
    "lookahead_a03_k2": _lookahead(0.3, 2),
    "lookahead_a1_k3": _lookahead(1.0, 3),
    "model_average": _model_average,
    **{f"send_recv_{p}": _send_recv(p) for p in ("sum", "mean", "max", "min")},
    "send_recv_bad_pool": _send_recv("prod"),
    "khop_a": _khop([0, 8], True),
    "khop_b": _khop([5, 2], False),
    "sample_neighbors": _sample,
    "reindex": _reindex,
    "segment_mean": lambda paddle: _incubate(paddle).segment_mean(paddle.to_tensor(_X),
                                                                   paddle.to_tensor([0, 0, 1, 3, 3])),
    "softmax_mask_fuse": _softmax_mask,
    **{f"identity_loss_{r}": (lambda r: lambda paddle: _incubate(paddle).identity_loss(paddle.to_tensor(_A), r))(r)
       for r in ("sum", "mean", "none", 0, 1, 2)},
    "rms_norm": _fused("fused_rms_norm", _A, _G, _H, 1e-5, 2, post=_no_residual),
    "rms_norm_residual": _fused("fused_rms_norm", _A, _G, None, 1e-6, 1, bias=_E, residual=_R),
    "layer_norm": _fused("fused_layer_norm", _A, _G, _H, 1e-5, 1.0, 2, post=_no_residual),
    "layer_norm_residual": _fused("fused_layer_norm", _A, _G, _H, 1e-5, 0.5, 2, bias=_E, residual=_R),
    "layer_norm_axis1": _fused("fused_layer_norm", _A, np.tile(_G, 3), np.tile(_H, 3), 1e-5, 1.0, 1,
                               post=_no_residual),
    "dropout_add_eval": _fused("fused_dropout_add", _A, _R, p=0.3, training=False),
    "dropout_add_downscale": _fused("fused_dropout_add", _A, _R, p=0.3, training=False, mode="downscale_in_infer"),
    "dropout_add_p0": _fused("fused_dropout_add", _A, _R, p=0.0),
}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
