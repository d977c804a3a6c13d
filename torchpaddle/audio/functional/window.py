"""``paddle.audio.functional.get_window``: window functions computed in float64 NumPy (SciPy's definitions,
which Paddle follows), then handed over as a Tensor of the requested dtype."""

import numpy as np

from ...tensor.creation import to_tensor


def _general_cosine(M, coeffs):
    fac = np.linspace(-np.pi, np.pi, M)
    return sum(a * np.cos(k * fac) for k, a in enumerate(coeffs))


def _bartlett(M):
    n = np.arange(M)
    return np.where(n <= (M - 1) / 2.0, 2.0 * n / (M - 1), 2.0 - 2.0 * n / (M - 1))


def _triang(M):
    n = np.arange(1, (M + 1) // 2 + 1)
    if M % 2 == 0:
        w = (2 * n - 1.0) / M
        return np.concatenate([w, w[::-1]])
    w = 2 * n / (M + 1.0)
    return np.concatenate([w, w[-2::-1]])


def _bohman(M):
    fac = np.abs(np.linspace(-1, 1, M)[1:-1])
    w = (1 - fac) * np.cos(np.pi * fac) + np.sin(np.pi * fac) / np.pi
    return np.concatenate([[0.0], w, [0.0]])


def _cosine(M):
    return np.sin(np.pi / M * (np.arange(M) + 0.5))


def _tukey(M, alpha=0.5):
    if alpha <= 0:
        return np.ones(M)
    if alpha >= 1.0:
        return _general_cosine(M, [0.5, 0.5])
    n = np.arange(M)
    width = int(np.floor(alpha * (M - 1) / 2.0))
    n1, n2, n3 = n[:width + 1], n[width + 1:M - width - 1], n[M - width - 1:]
    w1 = 0.5 * (1 + np.cos(np.pi * (-1 + 2.0 * n1 / alpha / (M - 1))))
    w3 = 0.5 * (1 + np.cos(np.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (M - 1))))
    return np.concatenate([w1, np.ones(n2.shape), w3])


def _kaiser(M, beta):
    n = np.arange(M)
    alpha = (M - 1) / 2.0
    return np.i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / np.i0(float(beta))


def _gaussian(M, std):
    n = np.arange(M) - (M - 1.0) / 2.0
    return np.exp(-n ** 2 / (2 * std * std))


def _general_gaussian(M, p, sig):
    n = np.arange(M) - (M - 1.0) / 2.0
    return np.exp(-0.5 * np.abs(n / sig) ** (2 * p))


def _exponential(M, center=None, tau=1.0):
    if center is None:
        center = (M - 1) / 2
    return np.exp(-np.abs(np.arange(M) - center) / tau)


def _taylor(M, nbar=4, sll=30, norm=True):
    # Taylor's sidelobe-limited window: a cosine series whose coefficients Fm pin the first nbar-1 sidelobes
    B = 10 ** (sll / 20)
    A = np.arccosh(B) / np.pi
    s2 = nbar ** 2 / (A ** 2 + (nbar - 0.5) ** 2)
    ma = np.arange(1, nbar)
    m2 = ma ** 2.0
    signs = np.where(ma % 2 == 1, 1.0, -1.0)
    Fm = np.empty(nbar - 1)
    for i in range(nbar - 1):
        numer = signs[i] * np.prod(1 - m2[i] / s2 / (A ** 2 + (ma - 0.5) ** 2))
        denom = 2 * np.prod(1 - m2[i] / m2[:i]) * np.prod(1 - m2[i] / m2[i + 1:])
        Fm[i] = numer / denom

    def W(n):
        return 1 + 2 * np.dot(Fm, np.cos(2 * np.pi * ma[:, None] * (n - M / 2.0 + 0.5) / M))

    w = W(np.arange(M))
    return w / W((M - 1) / 2) if norm else w


_WINDOWS = {
    "hann": lambda M: _general_cosine(M, [0.5, 0.5]),
    "hamming": lambda M: _general_cosine(M, [0.54, 0.46]),
    "blackman": lambda M: _general_cosine(M, [0.42, 0.50, 0.08]),
    "nuttall": lambda M: _general_cosine(M, [0.3635819, 0.4891775, 0.1365995, 0.0106411]),
    "general_cosine": _general_cosine, "general_hamming": lambda M, a: _general_cosine(M, [a, 1.0 - a]),
    "bartlett": _bartlett, "triang": _triang, "bohman": _bohman, "cosine": _cosine, "tukey": _tukey,
    "kaiser": _kaiser, "gaussian": _gaussian, "general_gaussian": _general_gaussian,
    "exponential": _exponential, "taylor": _taylor,
}
_NEEDS_PARAMS = ("gaussian", "exponential", "kaiser")


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """A window of win_length samples; periodic (for spectra) when fftbins, else symmetric. ``window`` is a
    name or a tuple (name, *params), e.g. ``("kaiser", 14.0)``."""
    if isinstance(window, tuple):
        name, params = window[0], window[1:]
    elif isinstance(window, str):
        if window in _NEEDS_PARAMS:
            raise ValueError(f"get_window: the '{window}' window needs parameters; pass a tuple "
                             f"('{window}', ...), got the bare name")
        name, params = window, ()
    else:
        raise ValueError(f"{type(window)} as window type is not supported.")
    fn = _WINDOWS.get(name)
    if fn is None:
        raise ValueError(f"Unknown window type. get_window: window must be one of {sorted(_WINDOWS)}, got {name!r}")
    if not isinstance(win_length, int) or win_length < 0:
        raise ValueError(f"get_window: win_length must be a non-negative int, got {win_length!r}")
    if win_length <= 1:
        values = np.ones(win_length)
    else:
        # a periodic window is the symmetric one of length M + 1 without its last sample
        M = win_length + (1 if fftbins else 0)
        values = np.asarray(fn(M, *params), dtype=np.float64)[:win_length]
    return to_tensor(values.astype(dtype))
