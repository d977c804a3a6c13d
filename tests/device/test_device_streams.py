"""paddle.device streams, events and device switching. Paddle's CPU build cannot make a Stream or Event at all
(its CPU branch is missing); here the CPU has one trivial stream, so GPU code runs unchanged."""
import time

import pytest
import torch

import torchpaddle as paddle

D = paddle.device
cpu_only = pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only behaviour")


@cpu_only
def test_cpu_streams_are_consistent_and_idle():
    current = D.current_stream()
    assert current == D.current_stream() and current.query() and current.device == paddle.CPUPlace()
    current.synchronize()
    other = D.Stream(priority=1)
    assert other != current and other.query() and "paddle.device.Stream device=Place(cpu)" in repr(other)
    previous = D.set_stream(other)
    try:
        assert previous == current and D.current_stream() == other
    finally:
        D.set_stream(previous)
    with D.stream_guard(other):
        assert D.current_stream() == other
    assert D.current_stream() == current
    with D.StreamContext(None):
        assert D.current_stream() == current
    other.wait_stream(current)
    assert isinstance(other.record_event(), D.Event)


@cpu_only
def test_cpu_events_time_on_the_host():
    start, end = D.Event(enable_timing=True), D.Event(enable_timing=True)
    start.record()
    time.sleep(0.01)
    end.record(D.current_stream())
    end.synchronize()
    assert start.query() and end.elapsed_time(end) == 0.0 and start.elapsed_time(end) >= 5.0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        D.Event().elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded first"):
        D.Event(enable_timing=True).elapsed_time(end)


@cpu_only
def test_cuda_only_names_fail_clearly_on_cpu():
    with pytest.raises(ValueError, match="CUDA stream.*CPU"):
        D.get_stream_from_external(0)
    with pytest.raises(ValueError, match="CPU-only torchpaddle"):
        D.cuda.current_stream()
    with pytest.raises(ValueError, match="CPU-only torchpaddle"):
        D.cuda.memory_summary()
    with pytest.raises(ValueError, match="not supported on the CPU"):
        D.get_device_properties()
    with pytest.raises(ValueError, match="not supported on the CPU"):
        D.memory_allocated("cpu")
    with pytest.raises(ValueError, match="not compiled with IPU"):
        D.IPUPlace()
    with pytest.raises(TypeError, match="paddle.device.Stream"):
        D.set_stream(None)
    assert D.synchronize() is None and D.synchronize("cpu") is None and D.empty_cache() is None


def test_device_to_place_and_current_device():
    assert D.device_to_place("cpu") == paddle.CPUPlace() and D.device_to_place(None) == D.device_to_place()
    if not torch.cuda.is_available():
        assert D.device_to_place(0) == paddle.CPUPlace() and D.current_device() == 0
        with pytest.raises(ValueError, match="CPU device only supports index 0"):
            D.device_to_place(1)
    with pytest.raises(ValueError, match="non-negative"):
        D.device_to_place(-1)


def test_manual_seed_all_and_rng_state_types():
    D.manual_seed_all(9)
    a = paddle.rand([2]).numpy()
    paddle.seed(9)
    assert (paddle.rand([2]).numpy() == a).all()
    with pytest.raises(TypeError, match="GeneratorState"):
        D.set_rng_state(b"not a state")


def test_tensor_makers_follow_paddle():
    assert D.FloatTensor(paddle.to_tensor([1, 2])).dtype == paddle.int64     # a Tensor keeps its dtype
    x = D.FloatTensor([1, 2])
    assert x.stop_gradient and x.dtype == paddle.float32
    with pytest.raises(TypeError, match="one list/array or integer sizes"):
        D.IntTensor([1], [2])
    with pytest.raises(TypeError, match="positionally"):
        D.IntTensor(data=[1])
