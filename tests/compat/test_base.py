"""paddle.base and paddle.common_ops_import vs real PaddlePaddle 3.3.1 (base_cases.py), and the import paths
of every module this compat layer adds, under ``install_as_paddle`` and ``python -m torchpaddle``."""
import subprocess
import sys

import pytest

import torchpaddle as paddle
import paddle_ref
from conftest import ROOT
from tests.compat import base_cases as cases
from tests.nn.layer_case_tools import compare, run_cases


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.compat.base_cases", cases.CASES, lambda: run_cases(cases.CASES, paddle), compare)


@pytest.mark.parametrize("name", sorted(set(cases.CASES) - {"convert_dtype", "checks_static", "dygraph_only"}))
def test_case_runs(name, ours):
    assert not (isinstance(ours[name], tuple) and ours[name][0] == "E"), f"{name} raised {ours[name][1]}"


def test_common_ops_import_has_paddles_names(ours):
    assert ours["common_ops_import"] == []


IMPORTS = """
import paddle
import paddle.base, paddle.base.core, paddle.base.framework, paddle.base.dygraph, paddle.base.unique_name
from paddle.base import core, framework, unique_name, data_feeder, layer_helper, dygraph
from paddle.base.layer_helper import LayerHelper
from paddle.base.data_feeder import check_variable_and_dtype, check_type, check_dtype, convert_dtype
from paddle.base.framework import in_dygraph_mode, Variable, Program, default_main_program
from paddle.base.dygraph import guard, to_variable
from paddle.common_ops_import import *
from paddle import _C_ops, _legacy_C_ops
import paddle.nn.loss
from paddle.nn import loss
from paddle.nn.loss import CrossEntropyLoss
import paddle.static.amp
from paddle.static.amp import decorate, fp16_guard, CustomOpLists, AutoMixedPrecisionLists
from paddle.static.amp.bf16 import AutoMixedPrecisionListsBF16, decorate_bf16, convert_float_to_uint16
from paddle.distributed.fleet.utils import recompute
from paddle.distributed.fleet.recompute import recompute_sequential
import paddle.distributed.fleet.recompute
assert paddle.nn.loss.CrossEntropyLoss is paddle.nn.CrossEntropyLoss
assert _C_ops.matmul(paddle.ones([2, 2]), paddle.ones([2, 2]), False, True).shape == [2, 2]
assert core.VarDesc.VarType.FP32 == 5 and LayerHelper("x").name == "x_0"
print("ok")
"""


@pytest.mark.parametrize("how", ["install_as_paddle", "python -m torchpaddle"])
def test_import_paths(how, tmp_path):
    if how == "install_as_paddle":
        cmd = [sys.executable, "-c", "import torchpaddle; torchpaddle.install_as_paddle()\n" + IMPORTS]
    else:
        cmd = [sys.executable, "-m", "torchpaddle", "-c", IMPORTS]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": ROOT, "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-3000:]


def test_layer_helper_appends_unknown_op_raises():
    helper = paddle.base.layer_helper.LayerHelper("bad")
    with pytest.raises(ValueError, match="no_such_op"):
        helper.append_op(type="no_such_op", inputs={}, outputs={}, attrs={})


def test_to_variable_and_dense_tensor_errors():
    with pytest.raises(TypeError, match="to_variable"):
        paddle.base.dygraph.to_variable("text")
    with pytest.raises(RuntimeError, match="no value"):
        import numpy as np
        np.array(paddle.base.core.DenseTensor())
