"""nn.BatchNorm act strings, channel_shuffle and Parameter.block: hand-worked checks, and the same cases compared
with real Paddle 3.3.1 (tests/nn/nn_misc_cases.py, one reference process)."""
import numpy as np
import pytest

import torchpaddle as paddle
import paddle_ref
from tests.nn import nn_misc_cases as cases


@pytest.fixture(scope="module")
def reference():
    return paddle_ref.results("tests.nn.nn_misc_cases", timeout=300)


@pytest.fixture(scope="module")
def ours():
    return cases.run(paddle)


@pytest.mark.conformance
@pytest.mark.parametrize("section", ["batchnorm_acts", "channel_shuffle", "parameter_block"])
def test_matches_real_paddle(section, reference, ours):
    theirs, mine = reference[section], ours[section]
    assert sorted(mine) == sorted(theirs)
    for key in theirs:
        if isinstance(theirs[key], list) and theirs[key] and isinstance(theirs[key][0], float):
            np.testing.assert_allclose(mine[key], theirs[key], rtol=1e-4, atol=1e-4, err_msg=f"{section}.{key}")
        else:
            assert mine[key] == theirs[key], f"{section}.{key}: ours {mine[key]!r}, Paddle {theirs[key]!r}"


def test_batchnorm_act_is_an_op_type():
    x = paddle.to_tensor(np.array([-4.0, -1.0, 0.5, 4.0], "float32").reshape(1, 1, 2, 2))
    bn = paddle.nn.BatchNorm(1, act="hard_swish")
    bn.eval()   # identity at initial statistics (mean 0, var 1, scale 1, shift 0), up to epsilon
    v = x.numpy() / np.sqrt(1 + 1e-5)
    np.testing.assert_allclose(bn(x).numpy(), v * np.clip(v + 3, 0, 6) / 6, rtol=1e-6)
    bn = paddle.nn.BatchNorm(1, act="hard_sigmoid")   # the op's defaults: slope 0.2, offset 0.5
    bn.eval()
    np.testing.assert_allclose(bn(x).numpy(), np.clip(0.2 * v + 0.5, 0, 1), rtol=1e-6)
    with pytest.raises(AttributeError, match="hardswish"):
        paddle.nn.BatchNorm(1, act="hardswish")(x)


def test_channel_shuffle_by_hand():
    # 6 channels in 3 groups of 2: [0 1 | 2 3 | 4 5] -> [0 2 4 1 3 5]
    x = paddle.arange(6, dtype="float32").reshape([1, 6, 1, 1])
    assert paddle.nn.functional.channel_shuffle(x, 3).reshape([-1]).tolist() == [0, 2, 4, 1, 3, 5]
    y = paddle.arange(6, dtype="float32").reshape([1, 1, 1, 6])
    assert paddle.nn.ChannelShuffle(3, "NHWC")(y).reshape([-1]).tolist() == [0, 2, 4, 1, 3, 5]


def test_parameter_block_is_the_default_main_program_global_block():
    p = paddle.nn.Linear(2, 3).weight
    assert p.block is paddle.static.default_main_program().global_block()
    assert p.block.idx == 0 and p.block.parent_idx == -1
    paddle.enable_static()
    try:
        program = paddle.static.Program()
        with paddle.static.program_guard(program):
            x = paddle.static.data("x", [2], "float32")
        assert x.block is program.global_block()   # a Variable keeps its own block
    finally:
        paddle.disable_static()
