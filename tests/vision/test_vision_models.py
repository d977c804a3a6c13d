"""paddle.vision.models vs real PaddlePaddle 3.3.1: state_dict keys and shapes per constructor, reprs, and with
weights saved by real Paddle (paddle.save) loaded here: eval outputs, train-mode outputs, input and weight
gradients and BatchNorm running statistics (cases in vision_model_cases.py); plus pretrained-weight handling
without network access."""
import hashlib
import os
import pickle
import tempfile

import numpy as np
import pytest

import paddle_ref
import torchpaddle as paddle
from tests.vision import vision_model_cases as cases
from torchpaddle.vision import models


def _reference(slow):
    tmp = tempfile.TemporaryDirectory()
    paddle_ref.run_module("tests.vision.vision_model_cases", tmp.name, *(["--slow"] if slow else []))
    with open(os.path.join(tmp.name, "ref.pkl"), "rb") as f:
        return tmp, pickle.load(f)


@pytest.fixture(scope="module")
def reference():
    tmp, ref = _reference(slow=False)
    yield tmp.name, ref
    tmp.cleanup()


@pytest.fixture(scope="module")
def slow_reference():
    tmp, ref = _reference(slow=True)
    yield tmp.name, ref
    tmp.cleanup()


def _close(ours, ref, what, rtol=1e-4, atol_frac=0.1):
    if isinstance(ref, list):   # several outputs (GoogLeNet's auxiliary heads)
        assert isinstance(ours, (list, tuple)) and len(ours) == len(ref), f"{what}: {len(ref)} outputs expected"
        for i, (o, r) in enumerate(zip(ours, ref)):
            _close(o, r, f"{what}[{i}]", rtol, atol_frac)
        return
    ours = ours.numpy() if hasattr(ours, "numpy") else ours
    assert ours.shape == ref.shape, f"{what}: shape {ours.shape} vs Paddle's {ref.shape}"
    scale = float(np.abs(ref).max()) or 1.0
    np.testing.assert_allclose(ours, ref, rtol=rtol, atol=rtol * atol_frac * scale, err_msg=what)


def _check_layout(name, ref):
    assert cases.layout(cases.LAYOUTS[name][0](models)) == ref["layouts"][name], name


def _check_numeric(name, outdir, ref):
    build, _, train_dtype, _ = cases.NUMERIC[name]
    expected = ref["numeric"][name]
    model = build(models)
    missing, unexpected = model.set_state_dict(paddle.load(os.path.join(outdir, f"{name}.pdparams")))
    assert not missing and not unexpected, (missing, unexpected)
    model.eval()
    x = paddle.to_tensor(expected["x"])
    with paddle.no_grad():
        _close(model(x), expected["eval"], f"{name} eval output")
    if "intermediate" in expected:
        getter = models._utils.IntermediateLayerGetter(model, {"layer1": "feat1", "layer3": "feat2"})
        feats = getter(x)
        assert list(feats) == list(expected["intermediate"])
        for key, value in expected["intermediate"].items():
            _close(feats[key], value, f"{name} intermediate {key}")
    if train_dtype:
        got = cases.train_step(paddle, model, expected["x"], train_dtype)
        want = expected["train"]
        # Train-mode BatchNorm over few values per channel (deep layers are 1x1 or 2x2) amplifies float32
        # rounding, so these get an absolute tolerance of rtol * the largest value.
        _close(got["out"], want["out"], f"{name} train output", atol_frac=1)
        _close(got["x_grad"], want["x_grad"], f"{name} input gradient", rtol=2e-4, atol_frac=1)
        assert list(got["grads"]) == list(want["grads"])
        for key in want["grads"]:
            _close(got["grads"][key], want["grads"][key], f"{name} gradient of {key}", rtol=2e-4, atol_frac=1)
        assert list(got["stats"]) == list(want["stats"])
        for key in want["stats"]:
            _close(got["stats"][key], want["stats"][key], f"{name} running statistic {key}")
    else:  # dropout: outputs are random, but train mode must run forward and backward
        model.train()
        out = model(x)
        outs = out if isinstance(out, (list, tuple)) else [out]
        sum(o.mean() for o in outs).backward()
        assert all(p.grad is not None for p in model.parameters() if not p.stop_gradient)


@pytest.mark.conformance
@pytest.mark.parametrize("name", cases.selected(cases.LAYOUTS, slow=False))
def test_state_dict_layout_matches_paddle(name, reference):
    _check_layout(name, reference[1])


@pytest.mark.conformance
@pytest.mark.slow
@pytest.mark.parametrize("name", cases.selected(cases.LAYOUTS, slow=True))
def test_state_dict_layout_matches_paddle_large(name, slow_reference):
    _check_layout(name, slow_reference[1])


@pytest.mark.conformance
@pytest.mark.parametrize("name", cases.selected(cases.NUMERIC, slow=False))
def test_outputs_match_paddle_with_paddle_weights(name, reference):
    _check_numeric(name, *reference)


@pytest.mark.conformance
@pytest.mark.slow
@pytest.mark.parametrize("name", cases.selected(cases.NUMERIC, slow=True))
def test_outputs_match_paddle_with_paddle_weights_large(name, slow_reference):
    _check_numeric(name, *slow_reference)


@pytest.mark.conformance
@pytest.mark.parametrize("name", sorted(cases.REPRS))
def test_repr_matches_paddle(name, reference):
    assert repr(cases.REPRS[name](models)) == reference[1]["reprs"][name]


def test_exports_and_headless_shapes():
    import torchpaddle.vision as vision
    for name in models.__all__:
        assert getattr(vision, name) is getattr(models, name)
    x = paddle.randn([2, 3, 32, 32])
    assert models.resnet18(num_classes=0, with_pool=False)(x).shape == [2, 512, 1, 1]
    assert models.mobilenet_v1(scale=0.25, num_classes=0)(x).shape == [2, 256, 1, 1]
    assert models.LeNet(num_classes=0)(paddle.randn([1, 1, 28, 28])).shape == [1, 16, 5, 5]
    with pytest.raises(KeyError):
        models.ResNet(models.resnet.BasicBlock, depth=20)
    with pytest.raises(NotImplementedError):
        models.resnet.BasicBlock(4, 4, dilation=2)


def test_pretrained_without_cached_weights_raises(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=r"no network access.*resnet18\.pdparams.*set_state_dict"):
        models.resnet18(pretrained=True)
    with pytest.raises(AssertionError, match="do not have a pretrained model"):
        models.vgg11(pretrained=True)  # Paddle publishes only vgg16/vgg19 weights
    with pytest.raises(AssertionError, match="do not have a pretrained model"):
        models.mobilenet_v2(pretrained=True, scale=0.5)


def test_pretrained_loads_from_paddle_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    source = models.mobilenet_v1(scale=0.25, num_classes=4)
    cache = tmp_path / ".cache" / "paddle" / "hapi" / "weights"
    cache.mkdir(parents=True)
    path = cache / "mobilenetv1_0.25.pdparams"
    paddle.save(source.state_dict(), str(path))
    digest = hashlib.md5(path.read_bytes()).hexdigest()
    url = "https://paddle-hapi.bj.bcebos.com/models/mobilenetv1_0.25.pdparams"
    monkeypatch.setitem(models.mobilenetv1.model_urls, "mobilenetv1_0.25", (url, digest))
    loaded = models.mobilenet_v1(pretrained=True, scale=0.25, num_classes=4)
    for (key, a), b in zip(source.state_dict().items(), loaded.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=key)
    monkeypatch.setitem(models.mobilenetv1.model_urls, "mobilenetv1_0.25", (url, "0" * 32))
    with pytest.raises(RuntimeError, match="md5"):
        models.mobilenet_v1(pretrained=True, scale=0.25, num_classes=4)


@pytest.mark.parametrize("build, name", [(models.alexnet, "AlexNet_pretrained"), (models.densenet121, "DenseNet121"),
                                         (models.googlenet, "GoogLeNet"), (models.inception_v3, "inception_v3"),
                                         (models.mobilenet_v3_small, "mobilenet_v3_small_x1.0"),
                                         (models.shufflenet_v2_swish, "shufflenet_v2_swish"),
                                         (models.squeezenet1_1, "SqueezeNet1_1")])
def test_pretrained_new_models_without_cached_weights_raise(build, name, monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match=rf"no network access.*{name}.*\.pdparams"):
        build(pretrained=True)


def test_pretrained_scales_without_weights_assert():
    with pytest.raises(AssertionError, match="do not have a pretrained model"):
        models.mobilenet_v3_large(pretrained=True, scale=0.75)
