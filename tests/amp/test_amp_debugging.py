"""paddle.amp.debugging beyond the CPU cases compared with Paddle in test_amp_conformance: operator stats under
AMP (float16 counts), the checker's overflow level and log files, compare_accuracy, check_layer_numerics."""
import os

import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle.amp import _dispatch, accuracy_compare

D = paddle.amp.debugging
F32 = np.float32


_TOUCHED_FLAGS = ["FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level", "FLAGS_low_precision_op_list",
                  "FLAGS_cudnn_deterministic"]


@pytest.fixture(autouse=True)
def _restore_flags():
    # the checker leaves FLAGS_check_nan_inf_level set, as Paddle's does; other tests read the defaults
    saved = paddle.get_flags(_TOUCHED_FLAGS)
    yield
    paddle.set_flags(saved)


@pytest.fixture
def amp_here(monkeypatch):
    monkeypatch.setattr(_dispatch, "unsupported_reason", lambda *args, **kwargs: None)


def _table_rows(text):
    rows = {}
    for line in text.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 5 and parts[1].isdigit():
            rows[parts[0]] = [int(p) for p in parts[1:]]
    return rows


def test_operator_stats_count_the_dtype_ops_ran_in(amp_here, capsys):
    linear = paddle.nn.Linear(4, 3)
    x = paddle.to_tensor(np.ones([2, 4], F32))
    with D.collect_operator_stats():
        with paddle.amp.auto_cast():
            y = linear(x)                       # matmul_v2 and elementwise_add in float16
            paddle.nn.functional.softmax(y)     # black: float32
        paddle.to_tensor(np.array([1, 2])) + 1  # int64: "other"
    rows = _table_rows(capsys.readouterr().out)
    assert rows["matmul_v2"] == [1, 0, 0, 0] and rows["softmax"] == [0, 0, 1, 0]
    assert rows["elementwise_add"] == [1, 0, 0, 1]
    assert _dispatch.STATE.stats is None and not _dispatch._ORIGINAL
    assert not paddle.get_flags("FLAGS_low_precision_op_list")["FLAGS_low_precision_op_list"]


def test_checker_overflow_level_and_log_file(tmp_path, capsys):
    config = D.TensorCheckerConfig(enable=True, debug_mode=D.DebugMode.CHECK_ALL_FOR_OVERFLOW,
                                   output_dir=str(tmp_path), skipped_op_list=["scale"])
    D.enable_tensor_checker(config)
    try:
        big = paddle.to_tensor(np.array([1.0, 70000.0], F32))
        paddle.exp(paddle.to_tensor(np.array([0.0], F32)))    # in float16 range: not logged
        big + big                                               # 140000 > float16 max: logged
    finally:
        D.disable_tensor_checker()
    assert "[PRECISION]" not in capsys.readouterr().out
    with open(os.path.join(tmp_path, "worker_0.log")) as f:
        lines = f.read().splitlines()
    assert lines == [f"[PRECISION] in [device={paddle.get_device()}, op=elementwise_add, tensor=, dtype=fp32], "
                     "numel=2, num_zero=0, "
                     "max=1.400000e+05, min=2.000000e+00, mean=7.000100e+04"]
    assert not _dispatch._ORIGINAL


def test_checker_respects_checked_op_list(capsys):
    D.enable_tensor_checker(D.TensorCheckerConfig(enable=True, debug_mode=D.DebugMode.CHECK_NAN_INF,
                                                  checked_op_list=["sqrt"]))
    try:
        x = paddle.to_tensor(np.array([-1.0], F32))
        paddle.log(x)
        paddle.sqrt(x)
    finally:
        D.disable_tensor_checker()
    out = capsys.readouterr().out
    assert "op=sqrt" in out and "op=log" not in out


def test_check_layer_numerics_checks_the_layers_ops():
    class Net(paddle.nn.Layer):
        @D.check_layer_numerics
        def forward(self, x):
            return paddle.log(x)

    net = Net()
    assert net(paddle.to_tensor(np.array([1.0], F32))).numpy().tolist() == [0.0]
    with pytest.raises(RuntimeError, match="There are NAN or INF .* op=log"):
        net(paddle.to_tensor(np.array([-1.0], F32)))
    with pytest.raises(RuntimeError, match="must be tensor"):
        net(np.ones(1))
    assert _dispatch.STATE.checker is None and not _dispatch._ORIGINAL


def _write_log(folder, lines):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "worker_0.log"), "w") as f:
        f.write("\n".join(lines) + "\n")


def test_compare_accuracy_pairs_tensors_op_by_op(tmp_path):
    fp32 = ["[PRECISION] in [device=cpu, op=matmul_v2, tensor=, dtype=fp32], numel=4, num_zero=0, max=2.000000e+00, "
            "min=1.000000e+00, mean=1.500000e+00",
            "[PRECISION] in [device=cpu, op=exp, tensor=, dtype=fp32], numel=4, num_zero=0, max=8.000000e+04, "
            "min=1.000000e+00, mean=2.000000e+04"]
    fp16 = ["[PRECISION] in [device=cpu, op=matmul_v2, tensor=, dtype=fp16], numel=4, num_zero=0, max=2.000000e+00, "
            "min=1.000000e+00, mean=1.500000e+00",
            "[PRECISION] [ERROR] in [device=cpu, op=exp, tensor=, dtype=fp16], numel=4, num_nan=0, num_inf=1, "
            "num_zero=0, max=inf, min=1.000000e+00, mean=inf"]
    _write_log(tmp_path / "a", fp32)
    _write_log(tmp_path / "b", fp16)
    infos = accuracy_compare.parse_log(str(tmp_path / "b"))
    assert [(i.op_type, i.dtype, i.num_inf) for i in infos] == [("matmul_v2", "fp16", 0), ("exp", "fp16", 1)]
    rows = accuracy_compare._rows(accuracy_compare.parse_log(str(tmp_path / "a")), infos, 1.0)
    assert rows[0][:4] == ["matmul_v2", "", "fp32", 4] and rows[0][-2:] == [1.0, 1.0]
    assert rows[1][0] == "exp" and rows[1][12] == 1
    with pytest.raises(ValueError, match="no worker_.*log"):
        accuracy_compare.parse_log(str(tmp_path))
    try:
        import xlsxwriter  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="xlsxwriter"):
            D.compare_accuracy(str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "out.xlsx"))
    else:
        D.compare_accuracy(str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "out.xlsx"))
        assert os.path.getsize(tmp_path / "out.xlsx") > 0
    with pytest.raises(AssertionError):
        D.compare_accuracy(str(tmp_path / "a"), str(tmp_path / "b"), "x.xlsx", dump_all_tensors=True)
