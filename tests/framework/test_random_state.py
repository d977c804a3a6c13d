"""paddle.seed, the generators and their states, reproducibility across processes, and the distributions of
the random functions (moments over ~10^5 draws, ranges, permutations)."""
import copy
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import torchpaddle as paddle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
N = 200_000


def _draws():
    """One value of every random function, as NumPy arrays."""
    x = paddle.ones([5])
    return [paddle.rand([4]).numpy(), paddle.randn([4]).numpy(), paddle.randint(0, 100, [4]).numpy(),
            paddle.randperm(6).numpy(), paddle.uniform([3], min=-1.0, max=1.0).numpy(),
            paddle.normal(1.0, 2.0, [3]).numpy(), paddle.standard_normal([3]).numpy(),
            paddle.bernoulli(paddle.full([6], 0.5)).numpy(),
            paddle.multinomial(paddle.to_tensor([0.2, 0.3, 0.5]), 2).numpy(),
            paddle.poisson(paddle.full([4], 3.0)).numpy(), x.clone().exponential_().numpy(),
            x.clone().uniform_().numpy(), x.clone().normal_().numpy(),
            paddle.randint_like(x, 0, 10).numpy(), paddle.rand_like(x).numpy()]


# -- seed and generators -----------------------------------------------------------------------------------
def test_same_seed_same_numbers():
    paddle.seed(123)
    first = _draws()
    paddle.seed(123)
    second = _draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)


def test_different_seeds_differ():
    paddle.seed(1)
    a = paddle.rand([16]).numpy()
    paddle.seed(2)
    b = paddle.rand([16]).numpy()
    assert not np.array_equal(a, b)


_SCRIPT = """
import sys
sys.path.insert(0, {root!r})
import numpy as np
import torchpaddle as paddle
paddle.set_device({device!r})
{seed}
print(np.concatenate([paddle.rand([3]).numpy().astype('float64'), paddle.randn([3]).numpy().astype('float64'),
                      paddle.randint(0, 1000, [3]).numpy().astype('float64')]).tolist())
"""


def _fresh_process(seed_line):
    # the device of this process: the CPU and a GPU draw different streams from one seed
    script = _SCRIPT.format(root=ROOT, seed=seed_line, device=paddle.get_device())
    out = subprocess.run([sys.executable, "-c", script], capture_output=True,
                         text=True, timeout=300, check=True)
    return out.stdout.strip().splitlines()[-1]


def test_seed_reproducible_in_fresh_processes():
    first = _fresh_process("paddle.seed(2024)")
    assert first == _fresh_process("paddle.seed(2024)")
    paddle.seed(2024)
    here = np.concatenate([paddle.rand([3]).numpy().astype("float64"), paddle.randn([3]).numpy().astype("float64"),
                           paddle.randint(0, 1000, [3]).numpy().astype("float64")]).tolist()
    assert str(here) == first


def test_unseeded_processes_differ():
    # Like Paddle, a process that never calls paddle.seed starts from a random seed.
    assert _fresh_process("") != _fresh_process("")


def test_seed_returns_generator():
    g = paddle.seed(7)
    assert g.initial_seed() == 7
    assert g.manual_seed(9) is g and g.initial_seed() == 9
    assert paddle.Generator("cpu") is g   # as in Paddle, seed returns the CPU generator
    assert paddle.Generator() is paddle.Generator(paddle.get_device())   # the current device's (g on the CPU)
    assert g.get_state().current_seed() == 9
    current = paddle.Generator()   # the one paddle.rand draws from here
    state = current.get_state()
    a = paddle.rand([5]).numpy()
    current.set_state(state)
    np.testing.assert_array_equal(a, paddle.rand([5]).numpy())
    value = g.random()
    assert isinstance(value, int) and 0 <= value < 2 ** 64
    new_seed = g.seed()
    assert isinstance(new_seed, int) and g.initial_seed() == new_seed


def test_framework_aliases():
    assert paddle.framework.seed is paddle.seed
    assert paddle.framework.random.get_rng_state is paddle.get_rng_state
    assert set(paddle.framework.random.__all__) >= {"seed", "get_rng_state", "set_rng_state", "get_cuda_rng_state",
                                                    "set_cuda_rng_state"}


@pytest.mark.parametrize("value,exc", [(-1, TypeError), (2 ** 64, TypeError), ("a", ValueError), (None, TypeError)])
def test_seed_errors(value, exc):
    with pytest.raises(exc):
        paddle.seed(value)


def test_seed_accepts_float_and_large():
    assert paddle.seed(1.5).initial_seed() == 1
    assert paddle.seed(2 ** 63).initial_seed() == 2 ** 63


def test_rng_state_roundtrip():
    paddle.seed(5)
    states = paddle.get_rng_state()
    assert isinstance(states, list) and len(states) == 1
    a = _draws()
    paddle.set_rng_state(states)
    for x, y in zip(a, _draws()):
        np.testing.assert_array_equal(x, y)
    assert paddle.get_rng_state("cpu")[0].current_seed() == 5


def test_rng_state_pickles_and_copies():
    paddle.seed(11)
    states = paddle.get_rng_state()
    restored = pickle.loads(pickle.dumps(states))
    copied = copy.deepcopy(states)
    a = paddle.rand([6]).numpy()
    paddle.set_rng_state(restored)
    np.testing.assert_array_equal(a, paddle.rand([6]).numpy())
    paddle.set_rng_state(copied)
    np.testing.assert_array_equal(a, paddle.rand([6]).numpy())


@pytest.mark.parametrize("states,device,exc", [([], None, ValueError), ([1], None, TypeError),
                                               (None, "abc", ValueError)])
def test_set_rng_state_errors(states, device, exc):
    states = paddle.get_rng_state() * 2 if states is None else states
    with pytest.raises(exc):
        paddle.set_rng_state(states, device)


def test_get_rng_state_bad_device():
    with pytest.raises(ValueError):
        paddle.get_rng_state("abc")


def test_cuda_rng_state():
    states = paddle.get_cuda_rng_state()
    assert isinstance(states, list)
    if not paddle.is_compiled_with_cuda():
        assert states == []
        paddle.set_cuda_rng_state([])
        return
    assert len(states) == paddle.device.cuda.device_count()
    a = paddle.rand([4], device="gpu").numpy()
    paddle.set_cuda_rng_state(states)
    np.testing.assert_array_equal(a, paddle.rand([4], device="gpu").numpy())
    with pytest.raises(ValueError):
        paddle.set_cuda_rng_state([])


def test_seed_attribute_repeats_regardless_of_global_state():
    a = paddle.uniform([5], seed=10).numpy()
    paddle.rand([100])
    b = paddle.uniform([5], seed=10).numpy()
    np.testing.assert_array_equal(a, b)
    x = paddle.zeros([5])
    np.testing.assert_array_equal(x.uniform_(seed=3).numpy(), paddle.zeros([5]).uniform_(seed=3).numpy())


# -- distributions -----------------------------------------------------------------------------------------
def _moments(a, mean, std, tol=0.02):
    a = np.asarray(a, dtype=np.float64)
    assert abs(a.mean() - mean) < tol * max(1.0, abs(std)), f"mean {a.mean()} vs {mean}"
    assert abs(a.std() - std) < tol * max(1.0, abs(std)), f"std {a.std()} vs {std}"


@pytest.fixture(autouse=True)
def _seeded():
    paddle.seed(31337)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_rand(dtype):
    a = paddle.rand([N], dtype).numpy()
    assert a.dtype == np.dtype(dtype) and a.min() >= 0 and a.max() < 1
    _moments(a, 0.5, 1 / np.sqrt(12))


def test_rand_bfloat16():
    a = paddle.rand([1000], "bfloat16").astype("float32").numpy()
    assert a.min() >= 0 and a.max() <= 1


@pytest.mark.parametrize("api", ["randn", "standard_normal"])
def test_standard_normal(api):
    _moments(getattr(paddle, api)([N]).numpy(), 0.0, 1.0)


def test_randn_complex():
    a = paddle.randn([N], "complex64").numpy()
    _moments(a.real, 0.0, np.sqrt(0.5))
    _moments(a.imag, 0.0, np.sqrt(0.5))


def test_uniform_range_and_moments():
    a = paddle.uniform([N], "float64", min=-3.0, max=5.0).numpy()
    assert a.min() >= -3 and a.max() < 5
    _moments(a, 1.0, 8 / np.sqrt(12))


def test_normal():
    _moments(paddle.normal(2.0, 3.0, [N]).numpy(), 2.0, 3.0)
    mean = paddle.full([N], -1.0)
    _moments(paddle.normal(mean, 0.5).numpy(), -1.0, 0.5)
    std = paddle.full([N], 2.0, "float64")
    out = paddle.normal(0.0, std)
    assert out.dtype == paddle.float64
    _moments(out.numpy(), 0.0, 2.0)
    c = paddle.normal(1 + 1j, 2.0, [N]).numpy()
    _moments(c.real, 1.0, np.sqrt(2.0))
    _moments(c.imag, 1.0, np.sqrt(2.0))


def test_normal_gradient_flows_to_mean_and_std():
    mean = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    std = paddle.to_tensor([0.5, 0.5], stop_gradient=False)
    out = paddle.normal(mean, std)
    assert not out.stop_gradient
    out.sum().backward()
    np.testing.assert_allclose(mean.grad.numpy(), [1.0, 1.0])
    assert std.grad is not None


def test_randint():
    a = paddle.randint(-3, 7, [N]).numpy()
    assert a.dtype == np.int64 and a.min() == -3 and a.max() == 6
    counts = np.bincount(a + 3)
    assert counts.min() > N / 10 * 0.9
    assert paddle.randint(5, shape=[3], dtype="int32").dtype == paddle.int32


def test_randint_like():
    x = paddle.zeros([N], "float64")
    a = paddle.randint_like(x, 2, 6)
    assert a.dtype == paddle.float64 and a.stop_gradient
    values = a.numpy()
    assert set(np.unique(values)) == {2.0, 3.0, 4.0, 5.0}


@pytest.mark.parametrize("n,dtype", [(1, "int64"), (10, "int32"), (1000, "int64"), (50, "float32")])
def test_randperm_is_permutation(n, dtype):
    a = paddle.randperm(n, dtype).numpy()
    assert a.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(np.sort(a), np.arange(n))


def test_randperm_shuffles():
    assert not np.array_equal(paddle.randperm(100).numpy(), np.arange(100))


def test_bernoulli():
    p = paddle.to_tensor(np.linspace(0.0, 1.0, 5).repeat(N // 5))
    a = paddle.bernoulli(p).numpy().reshape(5, -1)
    assert set(np.unique(a)) <= {0.0, 1.0}
    np.testing.assert_allclose(a.mean(axis=1), np.linspace(0.0, 1.0, 5), atol=0.01)
    b = paddle.bernoulli(paddle.zeros([N]), p=0.3).numpy()
    assert abs(b.mean() - 0.3) < 0.01


def test_multinomial_with_replacement():
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    a = paddle.multinomial(paddle.to_tensor(probs), N, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(a, minlength=4) / N, probs, atol=0.01)


def test_multinomial_without_replacement_is_unique():
    probs = paddle.to_tensor([[0.1, 0.2, 0.3, 0.4, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]])
    for _ in range(50):
        a = paddle.multinomial(probs, 4).numpy()
        assert all(len(set(row)) == 4 for row in a)
        assert 4 not in a[0]  # zero weight is never drawn


def test_multinomial_unnormalised_and_infinite_weights():
    a = paddle.multinomial(paddle.to_tensor([2.0, 6.0]), N, replacement=True).numpy()
    assert abs(a.mean() - 0.75) < 0.01
    b = paddle.multinomial(paddle.to_tensor([0.2, float("inf")]), 10, replacement=True).numpy()
    assert (b == 1).all()


def test_poisson():
    a = paddle.poisson(paddle.full([N], 4.0)).numpy()
    assert (a == np.round(a)).all() and a.min() >= 0
    _moments(a, 4.0, 2.0)
    assert (paddle.poisson(paddle.full([10], -1.0)).numpy() == 0).all()


def test_poisson_gradient_is_zero():
    x = paddle.full([3], 2.0)
    x.stop_gradient = False
    out = paddle.poisson(x)
    assert not out.stop_gradient
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))


def test_exponential_():
    x = paddle.zeros([N])
    y = x.exponential_(2.0)
    assert y is x
    a = x.numpy()
    assert a.min() >= 0
    _moments(a, 0.5, 0.5)
    x.exponential_(lambd=4.0)
    _moments(x.numpy(), 0.25, 0.25)


def test_uniform_and_normal_in_place():
    x = paddle.zeros([N], "float64")
    assert x.uniform_(-2.0, 2.0) is x
    a = x.numpy()
    assert a.min() >= -2 and a.max() < 2
    _moments(a, 0.0, 4 / np.sqrt(12))
    assert x.normal_(3.0, 0.5) is x
    _moments(x.numpy(), 3.0, 0.5)
    with pytest.raises(ValueError):
        x.uniform_(2.0, 1.0)


def test_in_place_random_refuses_leaf_that_needs_gradient():
    x = paddle.zeros([3])
    x.stop_gradient = False
    for method in ("uniform_", "normal_"):
        with pytest.raises(ValueError):
            getattr(x, method)()
    x.exponential_()  # Paddle allows this one
    assert not x.stop_gradient


def test_standard_gamma_binomial_log_normal():
    _moments(paddle.standard_gamma(paddle.full([N], 3.0)).numpy(), 3.0, np.sqrt(3.0))
    b = paddle.binomial(paddle.full([N], 10, "int64"), paddle.full([N], 0.3))
    assert b.dtype == paddle.int64
    _moments(b.numpy(), 3.0, np.sqrt(2.1))
    _moments(np.log(paddle.log_normal(0.5, 0.25, [N]).numpy()), 0.5, 0.25)


def test_bernoulli_log_normal_cauchy_in_place():
    x = paddle.zeros([N])
    assert x.bernoulli_(0.25) is x
    assert abs(x.numpy().mean() - 0.25) < 0.01
    x.log_normal_(0.0, 0.5)
    _moments(np.log(x.numpy()), 0.0, 0.5)
    x.cauchy_(1.0, 2.0)
    assert abs(np.median(x.numpy()) - 1.0) < 0.05


def test_rand_like_and_randn_like():
    x = paddle.zeros([N], "float64")
    a = paddle.rand_like(x)
    assert a.dtype == paddle.float64
    _moments(a.numpy(), 0.5, 1 / np.sqrt(12))
    _moments(paddle.randn_like(x).numpy(), 0.0, 1.0)
