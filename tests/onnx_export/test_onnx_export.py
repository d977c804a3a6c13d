"""paddle.onnx.export through torch.onnx. The folder is not named ``onnx``: tests/ is on sys.path, and a package
of that name would hide the real onnx package. With onnx installed the file is checked and run by onnx's
reference evaluator; without it, the traced graph the exporter works from is run instead."""
import importlib.util

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle.onnx.export import _TorchModule, example_inputs

HAS_ONNX = importlib.util.find_spec("onnx") is not None
SPEC = [paddle.static.InputSpec([None, 1, 4, 4], "float32", "img")]


def _net():
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(1, 2, 3, padding=1), paddle.nn.ReLU(), paddle.nn.Flatten(),
                               paddle.nn.Linear(2 * 4 * 4, 3), paddle.nn.Softmax())
    net.eval()
    return net


X = np.random.RandomState(0).randn(5, 1, 4, 4).astype("float32")


def test_traced_graph_gives_layer_output():
    net = _net()
    tensors, names, dynamic = example_inputs(SPEC)
    assert names == ["img"] and dynamic == {"img": {0: "img_d0"}} and list(tensors[0].shape) == [1, 1, 4, 4]
    module = _TorchModule(net)
    before = [p._t for p in net.parameters()]
    with module.holding_parameters():
        traced = torch.jit.trace(module, tuple(tensors))
        assert len(list(module.parameters())) == 4   # the weights become named initializers
    assert [p._t for p in net.parameters()] == before and not list(module.parameters())   # restored
    np.testing.assert_allclose(traced(torch.from_numpy(X)).detach().numpy(), net(paddle.to_tensor(X)).numpy(),
                               rtol=1e-6, atol=1e-7)   # another batch size than traced


@pytest.mark.skipif(not HAS_ONNX, reason="the onnx package is not installed")
def test_exported_file_runs(tmp_path):
    import onnx
    from onnx.reference import ReferenceEvaluator
    net = _net()
    paddle.onnx.export(net, str(tmp_path / "net"), input_spec=SPEC, opset_version=11)
    model = onnx.load(str(tmp_path / "net.onnx"))
    onnx.checker.check_model(model)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [11]
    assert [i.name for i in model.graph.input] == ["img"]
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "img_d0"
    got = ReferenceEvaluator(model).run(None, {"img": X})[0]
    np.testing.assert_allclose(got, net(paddle.to_tensor(X)).numpy(), rtol=1e-5, atol=1e-6)


def test_without_onnx_package_is_an_import_error(monkeypatch, tmp_path):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnx" else real(name, *a))
    with pytest.raises(ImportError, match="onnx"):
        paddle.onnx.export(_net(), str(tmp_path / "net"), input_spec=SPEC)


def test_errors(tmp_path):
    path = str(tmp_path / "net")
    with pytest.raises(TypeError):
        paddle.onnx.export(lambda x: x, path, input_spec=SPEC)
    with pytest.raises(ValueError, match="input_spec"):
        paddle.onnx.export(_net(), path)
    with pytest.raises(ValueError, match="opset_version"):
        paddle.onnx.export(_net(), path, input_spec=SPEC, opset_version=3)
    with pytest.raises(ValueError, match="unsupported"):
        paddle.onnx.export(_net(), path, input_spec=SPEC, output_spec=[0])
    with pytest.raises(TypeError, match="input_spec"):
        example_inputs([[1, 4]])
    with pytest.raises(ValueError, match="named"):
        example_inputs([paddle.static.InputSpec([1], "float32", "a")] * 2)
