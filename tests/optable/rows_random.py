"""Rows for random functions. Random values cannot match Paddle's, so most rows are ``random=True``
(conformance compares dtype, shape and stop_gradient); rows whose draws are forced (a permutation after
sorting, probabilities of 0 and 1, std=0, low+1 == high) also compare values. Distributions are tested by
their moments in tests/framework/test_random_state.py."""
import numpy as np

from .core import FLOATS, Err, OpCase, Sample, T, fixed

RAND_DTYPES = ("float32", "float64", "float16")


def _shapes_with_dtype(*shapes, **kwargs):
    def make(rng, dtype):
        out = []
        for shape in shapes:
            out.append(Sample((shape,), dict(kwargs, dtype=dtype)))
            out.append(Sample((shape,), dict(kwargs)))
        return out
    return make


_SHAPES = ([2, 3], (4,), [], [0, 2], [2, T(np.array(3), dtype="int64")])
_RAND_ERRORS = (Err(([2, 3],), {"dtype": "int32"}, exc=RuntimeError, note="integer dtype"),
                Err(([2, -3],), exc=RuntimeError, note="negative dim"),
                Err(([2, 2.5],), exc=TypeError, note="float dim"))


def _probs(n, low=0.05):
    return T(np.linspace(low, 1.0, n) / np.linspace(low, 1.0, n).sum())


def _sorted_last(a):
    return np.sort(np.asarray(a), axis=-1)


OPS = [
    OpCase("rand", "rand", None, _shapes_with_dtype(*_SHAPES), RAND_DTYPES, grad=False, random=True,
           errors=_RAND_ERRORS),
    OpCase("rand_size_args", "rand", None, fixed(Sample((2, 3)), Sample((5,))), ("float32",), grad=False,
           random=True),
    OpCase("randn", "randn", None, _shapes_with_dtype(*_SHAPES), RAND_DTYPES + ("complex64",), grad=False,
           random=True, errors=_RAND_ERRORS),
    OpCase("standard_normal", "standard_normal", None, _shapes_with_dtype(*_SHAPES), RAND_DTYPES, grad=False,
           random=True, errors=_RAND_ERRORS),
    OpCase("uniform", "uniform", None,
           _shapes_with_dtype([2, 3], (5,), min=-2.0, max=3.0), FLOATS, grad=False, random=True,
           errors=_RAND_ERRORS[:2] + (Err(([2],), {"min": "a"}, exc=ValueError),)),
    OpCase("uniform_seeded", "uniform", None,
           fixed(Sample(([2, 3],), {"seed": 10}), Sample(([4],), {"min": 2.0, "max": 1.0})),
           ("float32",), grad=False, random=True),
    OpCase("uniform_degenerate", "uniform", lambda shape, dtype=None, min=0.0, max=1.0: np.full(shape, min, dtype),
           fixed(Sample(([2, 3],), {"min": 1.5, "max": 1.5}), Sample(([4],), {"min": -2.0, "max": -2.0})),
           ("float32",), grad=False),
    OpCase("normal", "normal", None,
           fixed(Sample((), {"shape": [2, 3]}), Sample((1.0, 2.0, [4])), Sample((T(np.array([1.0, 2.0])), 1.0)),
                 Sample((0.0, T(np.array([1.0, 2.0, 3.0])))), Sample((T(np.array([1.0, 2.0])), 1.0, [5])),
                 Sample((1 + 1j, 1.0, [2]))),
           FLOATS, grad=False, random=True,
           errors=(Err((T(np.array([1, 2])), 1.0), exc=RuntimeError, note="integer mean"),
                   Err((0.0, 1.0, [-2]), exc=RuntimeError, note="negative dim"))),
    OpCase("normal_zero_std", "normal", lambda mean, std, shape=None: np.broadcast_to(mean, np.shape(mean)).copy(),
           fixed(Sample((T(np.array([[1.0, -2.0, 3.0]])), 0.0)), Sample((T(np.array(2.5)), 0.0))),
           FLOATS, grad=True),
    # Paddle 3.3.1 fails with SystemError when both mean and std are Tensors; here they broadcast.
    OpCase("normal_tensor_mean_std", "normal", lambda mean, std: np.broadcast_arrays(mean, std * 0)[0].copy(),
           fixed(Sample((T(np.array([1.0, 2.0])), T(np.zeros(2)))), Sample((T(np.array([[1.0], [2.0]])), T(np.zeros(3))))),
           FLOATS, grad=False, conformance=False,
           errors=(Err((T(np.ones(2)), T(np.ones(3))), exc=ValueError), Err((0.0, 1.0), exc=ValueError))),
    OpCase("randint", "randint", None,
           fixed(Sample((0, 5, [3])), Sample((5,)), Sample((5,), {"shape": [2, 2]}), Sample((0, 5, [3], "int32")),
                 Sample((-3, 3, (2, 3))), Sample((0, 5, [T(np.array(2), dtype="int64"), 3])),
                 Sample((T(np.array(0), dtype="int64"), T(np.array(5), dtype="int64"), [2])),
                 Sample((), {"high": 5}), Sample((), {"low": 1, "high": None})),
           ("int64",), grad=False, random=True,
           errors=(Err((5, 5), exc=ValueError), Err((5, 2), exc=ValueError), Err((-5,), exc=ValueError),
                   Err((0,), exc=ValueError), Err((0, 5, [3], "float32"), exc=RuntimeError),
                   Err((0.5, 5, [2]), exc=TypeError), Err((0, 5, [-1]), exc=RuntimeError))),
    OpCase("randint_single_value", "randint", lambda low, high, shape, dtype="int64": np.full(shape, low, dtype),
           fixed(Sample((3, 4, [2, 3])), Sample((-7, -6, [4], "int32"))), ("int64",), grad=False),
    OpCase("randint_like", "randint_like", None,
           fixed(Sample((T(np.ones(3)), 0, 5)), Sample((T(np.ones((2, 2))), 5)), Sample((T(np.ones(3)), 0, 5, "int64")),
                 Sample((T(np.ones(2)), 0, 5, "bool")), Sample((T(np.ones(2), dtype="int32"), 5))),
           FLOATS, grad=False, random=True,
           errors=(Err((T(np.ones(2)), 5, 2), exc=ValueError), Err((T(np.ones(2)), -3), exc=ValueError),
                   Err((T(np.ones(2)), 0.5, 5), exc=TypeError))),
    OpCase("randint_like_single_value", "randint_like", lambda x, low, high, dtype=None: np.full(x.shape, low, dtype or x.dtype),
           fixed(Sample((T(np.ones((2, 3))), 2, 3)), Sample((T(np.ones(4)), 1, 2, "int64"))), FLOATS, grad=False),
    OpCase("randperm", "randperm", lambda n, dtype="int64": np.arange(n).astype(dtype),
           fixed(Sample((5,)), Sample((7, "int32")), Sample((6, "float32")), Sample((4, "float64")), Sample((0,)),
                 Sample((1,)), Sample((T(np.array(5), dtype="int64"),))),
           ("int64",), grad=False, post=np.sort,
           errors=(Err((-1,), exc=RuntimeError), Err((2.5,), exc=TypeError), Err((5, "bool"), exc=RuntimeError))),
    OpCase("bernoulli", "bernoulli", None,
           fixed(Sample((T(np.array([0.2, 0.5, 0.9])),)), Sample((T(np.full((2, 3), 0.5)),)),
                 Sample((T(np.array([0.2, 0.5])), 0.3))),
           FLOATS, grad=False, random=True,
           errors=(Err((T(np.array([0.2, 1.5])),), exc=IndexError), Err((T(np.array([0.2, -0.5])),), exc=IndexError),
                   Err((T(np.array([0.2, 0.5])), 1.5), exc=IndexError), Err((T(np.array([1, 0])),), exc=RuntimeError),
                   Err(([0.2],), exc=ValueError))),
    OpCase("bernoulli_certain", "bernoulli", lambda x, p=None: x.copy() if p is None else np.full(x.shape, p, x.dtype),
           fixed(Sample((T(np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])),)), Sample((T(np.ones(3)), 0.0)),
                 Sample((T(np.zeros(3)), 1.0))),
           FLOATS, grad=False),
    OpCase("multinomial", "multinomial", None,
           fixed(Sample((_probs(3), 2)), Sample((_probs(3), 5, True)), Sample((T(np.array([[0.2, 0.3, 0.5],
                                                                                         [0.1, 0.1, 0.8]])), 2)),
                 Sample((_probs(4), 2.5))),
           FLOATS, grad=False, random=True,
           errors=(Err((_probs(3), 5), exc=ValueError, note="more samples than categories, no replacement"),
                   Err((T(np.array([0.2, -0.3, 0.5])), 1), exc=ValueError),
                   Err((T(np.zeros(3)), 1), exc=ValueError), Err((T(np.ones((2, 2, 2))), 1), exc=ValueError),
                   Err((_probs(3), 0), exc=ValueError), Err((T(np.array([1, 2])), 1), exc=RuntimeError),
                   Err((T(np.array([0.0, 0.3, 0.5])), 3), exc=ValueError), Err((T(np.array(0.5)), 1), exc=ValueError))),
    OpCase("multinomial_all_categories", "multinomial",
           lambda x, num_samples, replacement=False: np.broadcast_to(np.arange(x.shape[-1]), x.shape).copy(),
           fixed(Sample((_probs(5), 5)), Sample((T(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])), 3))),
           FLOATS, grad=False, post=_sorted_last),
    OpCase("tensor_multinomial", "Tensor.multinomial", None, fixed(Sample((_probs(4), 2))), FLOATS, grad=False,
           random=True),
    OpCase("poisson", "poisson", None,
           fixed(Sample((T(np.array([1.0, 2.0, 30.0])),)), Sample((T(np.full((2, 3), 4.0)),))),
           FLOATS, grad=False, random=True, errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),
                                                   Err(([1.0, 2.0],), exc=ValueError))),
    OpCase("poisson_zero_rate", "poisson", lambda x: np.zeros_like(x), fixed(Sample((T(np.zeros((2, 3))),))),
           FLOATS, grad=False),
    OpCase("tensor_exponential_", "Tensor.exponential_", None,
           fixed(Sample((T(np.ones(3)),)), Sample((T(np.ones((2, 3))), 2.0)), Sample((T(np.ones(2)),), {"lam": 0.5})),
           FLOATS, grad=False, random=True, errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),)),
    # Float inputs of the op table do not stop gradient, and Paddle refuses uniform_/normal_ on such leaves:
    # these rows check that refusal; the values are tested in tests/framework/test_random_state.py.
    OpCase("tensor_uniform_", "Tensor.uniform_", None, fixed(Sample((T(np.ones(3)),)), Sample((T(np.ones(3)), -1.0, 1.0))),
           FLOATS, grad=False, random=True,
           errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),
                   Err((T(np.ones(2), dtype="float32", stop_gradient=True), 2.0, 1.0), exc=ValueError))),
    OpCase("tensor_normal_", "Tensor.normal_", None, fixed(Sample((T(np.ones(3)),)), Sample((T(np.ones(3)), 1.0, 2.0))),
           FLOATS, grad=False, random=True, errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),)),
    OpCase("rand_like", "rand_like", None, fixed(Sample((T(np.ones((2, 3))),))), FLOATS, grad=False, random=True,
           errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),)),
    OpCase("randn_like", "randn_like", None, fixed(Sample((T(np.ones((2, 3))),))), FLOATS, grad=False, random=True,
           errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),)),
    OpCase("binomial", "binomial", None,
           fixed(Sample((T(np.array([10, 20]), dtype="int64"), T(np.array([0.5, 0.2])))),
                 Sample((T(np.array([10, 20]), dtype="int64"), T(np.array([[0.5], [0.2]]))))),
           FLOATS, grad=False, random=True),
    OpCase("standard_gamma", "standard_gamma", None, fixed(Sample((T(np.array([1.0, 2.0, 0.5])),))), FLOATS,
           grad=False, random=True, errors=(Err((T(np.array([1, 2])),), exc=RuntimeError),)),
    OpCase("log_normal", "log_normal", None,
           fixed(Sample((), {"shape": [2, 3]}), Sample((1.0, 2.0, [4])), Sample((T(np.array([1.0, 2.0])), 1.0))),
           FLOATS, grad=False, random=True),
]
