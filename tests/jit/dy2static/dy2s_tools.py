"""Shared checks for the dy2static tests: the converted-static result (and gradients) against eager."""
import numpy as np

import torchpaddle as paddle

RTOL, ATOL = 1e-5, 1e-6


def close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL, atol=ATOL)


def leaves(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in leaves(v)]
    return [value]


def tensors(*arrays, grad=False):
    return [paddle.to_tensor(np.asarray(a), stop_gradient=not grad) for a in arrays]


def check(function, *arrays, input_spec=None, grad=False, layer=None):
    """Run ``function`` eagerly and through to_static(full_graph=True); outputs (and, with ``grad``, the inputs'
    and ``layer``'s parameter gradients of the outputs' sum) must agree. Returns the static program."""
    def run(fn):
        inputs = tensors(*arrays, grad=grad)
        out = fn(*inputs)
        grads = {}
        if grad:
            total = sum(o.astype("float64").sum() for o in leaves(out) if isinstance(o, paddle.Tensor)
                        and not o.stop_gradient)
            total.backward()
            grads = {f"in{i}": t.grad.numpy().copy() for i, t in enumerate(inputs) if t.grad is not None}
            for name, p in (layer.named_parameters() if layer is not None else []):
                grads[name] = p.grad.numpy().copy()
                p.clear_gradient()
        return out, grads
    eager_out, eager_grads = run(function)
    static = paddle.jit.to_static(function, input_spec=input_spec, full_graph=True)
    static_out, static_grads = run(static)
    assert len(leaves(eager_out)) == len(leaves(static_out))
    for e, s in zip(leaves(eager_out), leaves(static_out)):
        if isinstance(e, paddle.Tensor):
            assert list(e.shape) == list(s.shape), (e.shape, s.shape)
            close(s.numpy(), e.numpy())
        else:
            assert e == s
    assert sorted(eager_grads) == sorted(static_grads)
    for k in eager_grads:
        close(static_grads[k], eager_grads[k])
    return static.concrete_program.main_program


def op_types(program):
    return [op.type for block in program.blocks for op in block.ops]
