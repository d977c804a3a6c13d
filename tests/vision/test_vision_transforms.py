"""paddle.vision.transforms: every case of tests/fixtures/vision/vision_cases.py against real Paddle 3.3.1
(pixel values, dtypes, shapes, exception types), plus checks that need no reference."""
import random
import sys

import numpy as np
import pytest
from PIL import Image

import torchpaddle as paddle
import torchpaddle.vision.transforms as T
import torchpaddle.vision.transforms.functional as F
from tests.fixtures.vision import vision_cases
from vision_compare import mismatch, paddle_reference

_NUMPY_KINDS = ("[np_rgb]", "[np_f32]")


def _compare(ours, ref, cv2_agrees, prefix):
    problems = []
    for name, expected in ref.items():
        if not name.startswith(prefix):
            continue
        if not cv2_agrees and name.endswith(_NUMPY_KINDS):
            continue  # NumPy images go through OpenCV, present on one side only
        found = mismatch(ours[name], expected, name)
        if found:
            problems.append(found)
    return problems


@pytest.fixture(scope="module")
def ours():
    return vision_cases.transform_results(paddle)


@pytest.fixture(scope="module")
def paddle_vision_ref():
    return paddle_reference()


@pytest.mark.conformance
@pytest.mark.parametrize("prefix", ["F.", "T."])
def test_transforms_match_paddle(ours, paddle_vision_ref, prefix):
    cv2_agrees = paddle_vision_ref["cv2"] == vision_cases.cv2_available()
    problems = _compare(ours, paddle_vision_ref["transforms"], cv2_agrees, prefix)
    assert not problems, f"{len(problems)} cases differ from Paddle:\n" + "\n".join(problems[:40])


def test_every_case_ran(ours):
    assert len(ours) > 700
    assert sum(1 for v in ours.values() if v[0] != "error") > 400


# -- semantics that need no reference run --------------------------------------------------------------
def _rgb(h=6, w=8, seed=0):
    return np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype("uint8")


def test_to_tensor_scales_uint8_and_moves_channels():
    img = _rgb()
    t = F.to_tensor(img)
    assert t.dtype == paddle.float32 and t.shape == [3, 6, 8]
    # exact on the CPU; CUDA divides by a scalar as a product with its reciprocal (1 ulp off)
    rtol = 0 if t.place.is_cpu_place() else 1.2e-7
    np.testing.assert_allclose(t.numpy(), img.transpose(2, 0, 1).astype("float32") / 255, rtol=rtol, atol=0)
    assert F.to_tensor(Image.fromarray(img), "HWC").shape == [6, 8, 3]
    assert F.to_tensor(img.astype("float64")).dtype == paddle.float64
    assert F.to_tensor(img[:, :, 0]).shape == [1, 6, 8]
    for mode, dtype in (("I", paddle.int32), ("F", paddle.float32), ("1", paddle.float32)):
        assert F.to_tensor(Image.fromarray(img[:, :, 0]).convert(mode)).dtype == dtype


def test_resize_int_is_the_shorter_side():
    img = Image.fromarray(_rgb(6, 8))
    assert F.resize(img, 3).size == (4, 3)  # PIL size is (w, h)
    assert F.resize(img, (3, 5)).size == (5, 3)
    t = F.to_tensor(_rgb(8, 6))
    assert F.resize(t, 3).shape == [3, 4, 3]
    assert F.resize(t, 6) is t  # already the requested shorter side


def test_normalize_chw_and_hwc():
    img = _rgb().astype("float32")
    mean, std = [1.0, 2.0, 3.0], [2.0, 4.0, 8.0]
    hwc = F.normalize(img, mean, std, data_format="HWC")
    np.testing.assert_allclose(hwc, (img - np.array(mean, "float32")) / np.array(std, "float32"))
    chw = F.normalize(paddle.to_tensor(img.transpose(2, 0, 1)), mean, std)
    np.testing.assert_allclose(chw.numpy(), hwc.transpose(2, 0, 1), rtol=1e-6)
    np.testing.assert_allclose(F.normalize(img, mean, std, "HWC", to_rgb=True),
                               (img[..., ::-1] - np.array(mean, "float32")) / np.array(std, "float32"))


def test_interpolation_names():
    img = Image.fromarray(_rgb())
    for name in ("nearest", "bilinear", "bicubic", "lanczos", "hamming", "box"):
        assert F.resize(img, (3, 4), name).size == (4, 3)
    with pytest.raises(ValueError, match="interpolation"):
        F.resize(img, (3, 4), "cubic")
    t = F.to_tensor(_rgb())
    for name in ("nearest", "bilinear", "bicubic", "area"):
        assert F.resize(t, (3, 4), name).shape == [3, 3, 4]
    with pytest.raises(ValueError, match="interpolation"):
        F.resize(t, (3, 4), "lanczos")


def test_uint8_tensors_work_where_paddle_lacks_kernels():
    t = paddle.to_tensor(_rgb().transpose(2, 0, 1))
    for out in (F.hflip(t), F.pad(t, 1), F.rotate(t, 30), F.adjust_brightness(t, 1.5), F.to_grayscale(t, 3),
                F.resize(t, (3, 4), "bicubic"), F.adjust_contrast(t, 0.5)):
        assert out.dtype == paddle.uint8
    np.testing.assert_array_equal(F.hflip(t).numpy(), t.numpy()[:, :, ::-1])
    np.testing.assert_array_equal(F.adjust_brightness(t, 2.0).numpy(),
                                  np.minimum(t.numpy().astype(np.float32) * 2, 255).astype(np.uint8))


def test_gradient_flows_through_tensor_transforms():
    x = paddle.to_tensor(_rgb().transpose(2, 0, 1).astype("float32") / 255, stop_gradient=False)
    out = F.rotate(F.resize(F.adjust_brightness(x, 0.8), (5, 7)), 20, "bilinear")
    assert not out.stop_gradient
    out.sum().backward()
    assert x.grad is not None and x.grad.shape == x.shape


def test_random_transforms_follow_python_and_numpy_seeds():
    img = Image.fromarray(_rgb(12, 12))
    pipeline = T.Compose([T.RandomResizedCrop(6), T.RandomHorizontalFlip(), T.ColorJitter(0.3, 0.3, 0.3, 0.1)])
    results = []
    for _ in range(2):
        random.seed(3)
        np.random.seed(3)
        results.append(np.array(pipeline(img)))
    np.testing.assert_array_equal(results[0], results[1])


def test_random_erasing_random_values_on_tensor():
    paddle.seed(1)
    np.random.seed(1)
    random.seed(1)
    x = paddle.zeros([3, 10, 10])
    out = T.RandomErasing(prob=1.0, value="random")(x)
    changed = out.numpy() != 0
    assert changed.any() and out.shape == [3, 10, 10] and not x.numpy().any()
    rows, cols = np.nonzero(changed.any(axis=0))
    assert changed[:, rows.min():rows.max() + 1, cols.min():cols.max() + 1].all()  # one box, all channels


def test_erase_inplace_modifies_the_input():
    x = paddle.zeros([3, 4, 4])
    out = F.erase(x, 1, 1, 2, 2, paddle.ones([3, 1, 1]), inplace=True)
    assert out is x and x.numpy()[:, 1:3, 1:3].all() and x.numpy().sum() == 12
    y = paddle.zeros([3, 4, 4])
    F.erase(y, 0, 0, 2, 2, 5.0)
    assert not y.numpy().any()


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(TypeError, match="img should be"):
        F.hflip([[1, 2]])
    with pytest.raises(TypeError, match="ndarray with 2 or 3 dims"):
        F.resize(np.zeros((1, 2, 3, 4)), 2)
    with pytest.raises(RuntimeError, match="3 or 4 dims"):
        F.vflip(paddle.zeros([4, 4]))
    with pytest.raises(ValueError, match="symmetric"):
        F.pad(paddle.zeros([3, 4, 4]), 1, padding_mode="symmetric")
    with pytest.raises(ValueError, match="reflect"):
        F.pad(paddle.zeros([3, 4, 4]), 4, padding_mode="reflect")
    with pytest.raises(AssertionError, match="non-negative"):
        F.adjust_brightness(paddle.zeros([3, 4, 4]), -0.5)
    with pytest.raises(ValueError, match="larger than the image"):
        T.RandomCrop(10)(Image.fromarray(_rgb()))
    with pytest.raises(NotImplementedError, match="unsupported"):
        T.Resize(4, keys=("image", "labels"))
    with pytest.raises(TypeError, match="number"):
        F.adjust_contrast(paddle.zeros([3, 4, 4]), "1")


def test_numpy_images_without_opencv_raise_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "cv2", None)   # as if OpenCV were not installed
    with pytest.raises(ImportError, match="OpenCV"):
        F.resize(_rgb(), 4)
    # the ones Paddle computes with NumPy alone still work
    assert F.crop(_rgb(), 1, 1, 2, 3).shape == (2, 3, 3)
    assert F.center_crop(_rgb(), 4).shape == (4, 4, 3)


def test_transform_repr_and_keys():
    pipeline = T.Compose([T.Resize(4), T.ToTensor()])
    assert repr(pipeline).startswith("Compose(")
    img, mask, extra = Image.fromarray(_rgb()), Image.fromarray(_rgb(seed=1)), {"id": 3}
    out = T.Resize((2, 3), keys=("image", "image"))((img, mask, extra))
    assert [o.size for o in out[:2]] == [(3, 2), (3, 2)] and out[2] is extra
