"""Gradient cases for paddle.fft, paddle.signal and the new paddle.linalg functions, run on real PaddlePaddle
3.3.1 (``python -m tests.fft.spectral_cases OUT.pkl``) and on torchpaddle by tests/fft/test_fft_transforms.py.

Each case takes the gradient of a fixed weighted sum of the output (real and imaginary parts weighted
separately) with respect to the float64/complex128 input; the op table checks the forward values, and its
finite-difference check cannot see complex outputs. Imports only NumPy at module level.
"""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump, stable_seed


def _data(rng, shape, complex_=False):
    real = rng.uniform(-1, 1, size=shape)
    return real + 1j * rng.uniform(-1, 1, size=shape) if complex_ else real


def evaluate(paddle, name, x_value=None):
    """The case's input array, output, gradient and loss; ``x_value`` replaces the input (finite differences)."""
    shape, fn, complex_, extra = (SPECS[name] + (None,))[:4]
    rng = np.random.default_rng(stable_seed(name))
    x_data = _data(rng, shape, complex_)
    args = [paddle.to_tensor(a) for a in (extra(rng) if extra else ())]
    x = paddle.to_tensor(x_data if x_value is None else x_value, stop_gradient=False)
    y = fn(paddle, x, *args)
    w = _data(rng, list(y.shape), True)
    if y.is_complex():
        loss = (paddle.real(y) * paddle.to_tensor(w.real) + paddle.imag(y) * paddle.to_tensor(w.imag)).sum()
    else:
        loss = (y * paddle.to_tensor(w.real)).sum()
    (g,) = paddle.grad(loss, [x])
    return x_data, y, g, float(loss)


def _case(name):
    def run(paddle):
        _, y, g, _ = evaluate(paddle, name)
        return {"out": y, "grad": g}
    return run


F = lambda name, **kw: (lambda paddle, x: getattr(paddle.fft, name)(x, **kw))  # noqa: E731

_FFT = {
    "fft_real": ((3, 6), F("fft"), False), "fft_complex_n": ((3, 6), F("fft", n=8, norm="ortho"), True),
    "ifft_complex_axis0": ((4, 3), F("ifft", axis=0, norm="forward"), True), "rfft_n": ((2, 7), F("rfft", n=6), False),
    "ihfft": ((3, 5), F("ihfft", norm="ortho"), False), "irfft": ((3, 4), F("irfft"), True),
    "irfft_n_odd": ((3, 4), F("irfft", n=7), True), "hfft": ((3, 4), F("hfft", norm="forward"), True),
    "fft2_s": ((2, 3, 4), F("fft2", s=[4, 5]), True), "rfft2": ((3, 6), F("rfft2"), False),
    "irfft2": ((3, 4), F("irfft2", norm="ortho"), True), "hfft2": ((3, 4), F("hfft2"), True),
    "ihfft2": ((3, 6), F("ihfft2"), False), "fftn_axes": ((2, 3, 4), F("fftn", axes=[2, 0]), False),
    "rfftn_s": ((2, 3, 4), F("rfftn", s=[3, 6]), False), "irfftn": ((2, 3, 4), F("irfftn", axes=[0, 2]), True),
    "hfftn": ((2, 3, 4), F("hfftn", s=[4, 6]), True), "ihfftn": ((2, 3, 4), F("ihfftn"), False),
    "fftshift": ((3, 4), F("fftshift"), False),
}

_SIGNAL = {
    "stft": ((2, 32), lambda paddle, x: paddle.signal.stft(x, 8), False),
    "stft_window_hop": ((30,), lambda paddle, x, w: paddle.signal.stft(x, 8, hop_length=2, window=w), False,
                        lambda rng: [np.hanning(8)]),
    "stft_complex": ((2, 24), lambda paddle, x: paddle.signal.stft(x, 8, center=False, normalized=True), True),
    "istft": ((2, 5, 9), lambda paddle, x: paddle.signal.istft(x, 8), True),
    "istft_length": ((5, 9), lambda paddle, x: paddle.signal.istft(x, 8, length=30), True),
    "istft_complex": ((2, 8, 9), lambda paddle, x: paddle.signal.istft(x, 8, onesided=False, return_complex=True),
                      True),
}

_LINALG = {
    "matrix_exp": ((3, 3), lambda paddle, x: paddle.linalg.matrix_exp(x), False),
    "cholesky_inverse": ((3, 3), lambda paddle, x: paddle.linalg.cholesky_inverse(x + 3 * paddle.eye(3, dtype=x.dtype)),
                         False),
    "householder_product": ((4, 3), lambda paddle, x, tau: paddle.linalg.householder_product(x, tau), False,
                            lambda rng: [rng.uniform(0.5, 1.5, size=3)]),
    "ormqr_tau": ((3,), lambda paddle, tau, x, y: paddle.linalg.ormqr(x, tau, y, transpose=True), False,
                  lambda rng: [rng.uniform(-1, 1, size=(3, 3)), rng.uniform(-1, 1, size=(3, 2))]),
    "lu_solve_b": ((3, 2), lambda paddle, b, lu, piv: paddle.linalg.lu_solve(b, lu, piv, trans="T"), False,
                   lambda rng: [np.array([[3.0, 1.0, 0.5], [0.2, 2.5, 1.0], [-0.4, 0.3, 2.0]]),
                                np.array([1, 2, 3], dtype=np.int32)]),
    "vecdot_complex": ((3, 4), lambda paddle, x, y: paddle.linalg.vecdot(x, y), True,
                       lambda rng: [_data(rng, (3, 4), True)]),
}


SPECS = {**_FFT, **_SIGNAL, **_LINALG}
CASES = {name: _case(name) for name in SPECS}
# Paddle 3.3.1 cannot differentiate these: its Python loop writes into a tensor the gradient needs (RuntimeError
# "modified by an inplace operation"); the finite-difference test still covers ours.
PADDLE_CANNOT = {"householder_product", "ormqr_tau"}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
