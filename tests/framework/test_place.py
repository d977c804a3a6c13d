import pytest
import torch

import torchpaddle as paddle


@pytest.fixture
def device_restored():
    """Tests that change the current device give it back: later tests in the process would run on it."""
    before = paddle.get_device()
    yield
    paddle.set_device(before)


def test_cpu_place_and_device_roundtrip(device_restored):
    assert str(paddle.CPUPlace()) == "Place(cpu)" and paddle.CPUPlace() == paddle.CPUPlace()
    place = paddle.set_device("cpu")
    assert isinstance(place, paddle.CPUPlace.__mro__[1]) and place.is_cpu_place()
    assert paddle.get_device() == "cpu"
    x = paddle.to_tensor([1.0])
    # Paddle 3.3.1: a Tensor's device is its GPU index, -1 on the CPU
    assert str(x.place) == "Place(cpu)" and paddle.get_device(x) == -1
    x2 = paddle.to_tensor([1.0], place=paddle.CPUPlace())
    assert x2.place == paddle.CPUPlace()


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_missing_devices_raise_clear_errors():
    assert paddle.is_compiled_with_cuda() is False and paddle.is_compiled_with_xpu() is False
    assert paddle.get_cudnn_version() is None
    assert paddle.device.cuda.device_count() == 0
    with pytest.raises(ValueError, match="not compiled with CUDA"):
        paddle.set_device("gpu")
    with pytest.raises(ValueError, match="not compiled with CUDA"):
        paddle.set_device("gpu:1")
    with pytest.raises(ValueError):
        paddle.CUDAPlace(0)
    with pytest.raises(ValueError):
        paddle.XPUPlace(0)
    with pytest.raises(RuntimeError):
        paddle.CUDAPinnedPlace()
    with pytest.raises(ValueError):
        paddle.set_device("tpu")
    with pytest.raises(ValueError):
        paddle.set_device(3.5)
    assert paddle.get_device() == "cpu"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_cuda_place_moves_tensors():
    assert paddle.is_compiled_with_cuda() and paddle.get_cudnn_version() > 0
    x = paddle.to_tensor([1.0], place=paddle.CUDAPlace(0))
    assert str(x.place) == "Place(gpu:0)"
    assert x.cpu().place == paddle.CPUPlace() and x.cpu().cuda().place == paddle.CUDAPlace(0)
    paddle.device.cuda.synchronize()
