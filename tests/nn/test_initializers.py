"""nn.initializer vs real PaddlePaddle 3.3.1 (cases in initializer_cases.py): exact values of the deterministic
initializers, distribution statistics of the random ones, gains and errors; plus tight checks of our random
initializers against the theoretical moments, and the documented differences from Paddle."""
import math

import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import initializer_cases as cases
from tests.nn.layer_case_tools import compare, run_cases

I = paddle.nn.initializer


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.nn.initializer_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


def _draw(shape, init, dtype="float32", seed=3):
    paddle.seed(seed)
    return np.array(cases._param(paddle, shape, init, dtype).numpy(), dtype=np.float64)


@pytest.mark.parametrize("name", sorted(cases.RANDOM))
def test_random_moments_are_the_theoretical_ones(name):
    shape, make, scale = cases.RANDOM[name]
    a = _draw(shape, make(I), cases.RANDOM_DTYPES.get(name, "float32"))
    init = make(I)
    mean = getattr(init, "_mean", 0.0)
    if isinstance(init, I.TruncatedNormal):
        # moments of N(mean, std) truncated to [a, b]
        alpha, beta = (init._a - init._mean) / init._std_dev, (init._b - init._mean) / init._std_dev
        pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
        cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
        mass = cdf(beta) - cdf(alpha)
        mean = init._mean + init._std_dev * (pdf(alpha) - pdf(beta)) / mass
        scale = init._std_dev * math.sqrt(1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass -
                                          ((pdf(alpha) - pdf(beta)) / mass) ** 2)
        assert a.min() >= init._a - 1e-6 and a.max() <= init._b + 1e-6
    elif isinstance(init, I.Uniform):
        mean = (init._low + init._high) / 2
        assert a.min() >= init._low and a.max() <= init._high
    assert abs(a.mean() - mean) < 0.02 * scale + 1e-12
    assert abs(a.std() / scale - 1) < 0.02


def test_seed_reproduces_values():
    assert np.array_equal(_draw([50, 40], I.XavierNormal(), seed=9), _draw([50, 40], I.XavierNormal(), seed=9))
    assert not np.array_equal(_draw([50, 40], I.XavierNormal(), seed=9), _draw([50, 40], I.XavierNormal(), seed=10))


def test_low_precision_and_empty_parameters():
    for dtype in ("float16", "bfloat16"):
        p = cases._param(paddle, [100, 100], I.KaimingUniform(), dtype)
        assert p.dtype == getattr(paddle, dtype) and float(p.astype("float32").abs().max()) <= math.sqrt(6 / 100) * 1.01
    for init in (I.XavierUniform(), I.KaimingNormal(), I.Normal(), I.TruncatedNormal(), I.Orthogonal()):
        assert cases._param(paddle, [0, 4], init).shape == [0, 4]


def test_assign_shape_rules_differ_from_paddle():
    # Paddle reshapes the parameter to the value's shape; we keep the parameter's shape (same element count)
    p = cases._param(paddle, [2, 3], I.Assign([1, 2, 3, 4, 5, 6]))
    assert p.shape == [2, 3] and p.numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    value = np.arange(6, dtype="float32").reshape(3, 2)   # another shape, same count: accepted, row-major
    lin = paddle.nn.Linear(2, 3, weight_attr=paddle.ParamAttr(initializer=I.Assign(paddle.to_tensor(value))))
    assert lin.weight.shape == [2, 3] and lin.weight.numpy().reshape(-1).tolist() == list(range(6))
    with pytest.raises(ValueError, match="5 elements"):
        cases._param(paddle, [2, 3], I.Assign(np.arange(5)))
    with pytest.raises(TypeError, match="Assign"):
        I.Assign(3)


def test_bilinear_keeps_float64():
    p64 = cases._param(paddle, [1, 2, 5, 5], I.Bilinear(), "float64")
    p32 = cases._param(paddle, [1, 2, 5, 5], I.Bilinear())
    assert p64.dtype == paddle.float64
    np.testing.assert_array_equal(p64.numpy(), p32.numpy().astype(np.float64))
    with pytest.raises(ValueError, match="too big"):
        cases._param(paddle, [2, 2, 1024, 1024], I.Bilinear())


def test_random_initializers_reject_integer_parameters():
    for init in (I.Normal(), I.Uniform(), I.TruncatedNormal(), I.XavierUniform(), I.KaimingNormal(), I.Dirac()):
        with pytest.raises(TypeError, match="int64"):
            cases._param(paddle, [2, 3, 3], init, "int64")


def test_uniform_diagonal_and_errors():
    init = I.UniformInitializer(low=-0.1, high=0.1, diag_num=3, diag_step=5, diag_val=7.0)
    a = cases._param(paddle, [4, 4], init).numpy().ravel()
    assert a[0] == a[5] == a[10] == 7.0 and np.abs(np.delete(a, [0, 5, 10])).max() <= 0.1
    with pytest.raises(AssertionError):
        I.UniformInitializer(diag_num=2)
    with pytest.raises(ValueError, match="std"):
        I.Normal(std=-1.0)
    with pytest.raises(ValueError, match="a .* b"):
        I.TruncatedNormal(a=2.0, b=1.0)


def test_truncated_normal_with_zero_std_is_the_mean(static_mode):
    # Paddle 3.3.1: the mean where it lies in [a, b], else NaN (torch would divide by the zero std)
    paddle.disable_static()
    try:
        assert cases._param(paddle, [3], I.TruncatedNormal(mean=1.5, std=0)).numpy().tolist() == [1.5] * 3
        assert np.isnan(cases._param(paddle, [2], I.TruncatedNormal(mean=5.0, std=0)).numpy()).all()
    finally:
        paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        w = paddle.create_parameter([2, 2], "float64", default_initializer=I.TruncatedNormal(mean=-0.5, std=0))
    exe = paddle.static.Executor()
    exe.run(startup)
    np.testing.assert_array_equal(exe.run(main, fetch_list=[w])[0], np.full((2, 2), -0.5))


def test_set_global_initializer_checks_types_and_resets():
    with pytest.raises(TypeError, match="weight_init"):
        I.set_global_initializer(3)
    I.set_global_initializer(I.Constant(1.0))
    try:
        assert float(paddle.nn.Linear(2, 2).weight.sum()) == 4.0
    finally:
        I.set_global_initializer(None)
    assert float(paddle.nn.Linear(2, 2).bias.abs().sum()) == 0.0


def test_custom_initializer_subclass():
    class Ramp(I.Initializer):
        def forward(self, param, block=None):
            param.set_value(np.arange(param.size, dtype="float32").reshape(param.shape))

    lin = paddle.nn.Linear(2, 2, weight_attr=Ramp())
    assert lin.weight.numpy().tolist() == [[0, 1], [2, 3]]
    assert I.calculate_gain("conv_transpose3d") == 1.0
