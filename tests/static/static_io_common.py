"""Shared by the static persistence tests: the fixtures real Paddle wrote (tests/fixtures/static_models)."""
import os
import sys

import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle.static.serialization import framework_pb2 as pb

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "static_models")
sys.path.insert(0, FIXTURES)
import nets  # noqa: E402

EXPECTED = dict(np.load(os.path.join(FIXTURES, "expected.npz")))
TRAIN_FEED = nets.TRAIN_FEED


def fixture(name):
    return os.path.join(FIXTURES, name)


@pytest.fixture
def exe(static_mode):
    return paddle.static.Executor(paddle.CPUPlace())


def close(got, want, key):
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=key)


def desc_with_op(op_type):
    """A one-op, one-variable ProgramDesc."""
    desc = pb.ProgramDesc()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    var = block.vars.add(name="x")
    var.type.type = pb.VarType.DENSE_TENSOR
    var.type.dense_tensor.tensor.data_type = pb.VarType.FP32
    var.type.dense_tensor.tensor.dims.extend([2])
    op = block.ops.add(type=op_type)
    op.inputs.add(parameter="X", arguments=["x"])
    op.outputs.add(parameter="Out", arguments=["x"])
    return desc
