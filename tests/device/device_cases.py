"""paddle.device cases run on real PaddlePaddle 3.3.1 (``python -m tests.device.device_cases OUT.pkl``) and on
torchpaddle by tests/device/test_device_conformance.py: the CPU-only answers (no accelerator types, devices or
memory statistics), typed tensor makers, random state and device switching. Only NumPy is imported at module
level; every case gets the ``paddle`` module."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump

CASES = {}

for _name, _call in [
        ("all_device_type", lambda p: p.device.get_all_device_type()),
        ("all_custom_device_type", lambda p: p.device.get_all_custom_device_type()),
        ("available_device", lambda p: p.device.get_available_device()),
        ("available_custom_device", lambda p: p.device.get_available_custom_device()),
        ("device_count", lambda p: p.device.device_count()),
        ("is_available", lambda p: p.device.is_available()),
        ("compiled_with", lambda p: [p.device.is_compiled_with_cuda(), p.device.is_compiled_with_xpu(),
                                     p.device.is_compiled_with_ipu(), p.device.is_compiled_with_cinn(),
                                     p.device.is_compiled_with_rocm(), p.device.is_compiled_with_distribute(),
                                     p.device.is_compiled_with_custom_device("npu")]),
        ("cudnn_version", lambda p: p.device.get_cudnn_version()),
        ("current_stream_capturing", lambda p: p.device.is_current_stream_capturing()),
        ("bf16_supported", lambda p: [p.device.is_bf16_supported(), p.device.is_bf16_supported(False)]),
        ("get_device", lambda p: p.device.get_device()),
        ("get_device_of_tensor", lambda p: [p.device.get_device(p.to_tensor([1.0])), p.get_device(p.ones([1]))]),
        ("max_memory_allocated", lambda p: p.device.max_memory_allocated()),
        ("max_memory_reserved", lambda p: p.device.max_memory_reserved()),
        ("reset_max_memory_allocated", lambda p: p.device.reset_max_memory_allocated()),
        ("reset_max_memory_reserved", lambda p: p.device.reset_max_memory_reserved()),
        ("reset_peak_memory_stats", lambda p: p.device.reset_peak_memory_stats()),
        ("ipc_collect", lambda p: p.device.ipc_collect()),
        ("ipu_place", lambda p: p.device.IPUPlace()),
        ("xpu_place", lambda p: p.device.XPUPlace(0)),
        ("device_count_takes_no_argument", lambda p: p.device.device_count("gpu")),
        ("device_guard_int", lambda p: p.device.device_guard(0)),
        ("device_guard_gpu", lambda p: p.device.device_guard("gpu").__enter__()),
        ("device_gpu", lambda p: p.device.device("gpu:0").__enter__()),
        ("stream_guard_none", lambda p: [p.device.stream_guard(None).__enter__(),
                                         p.device.StreamContext is p.device.stream_guard]),
        ("cuda_device_count", lambda p: p.device.cuda.device_count()),
        ("cuda_empty_cache", lambda p: p.device.cuda.empty_cache()),
        ("cuda_max_memory_allocated", lambda p: p.device.cuda.max_memory_allocated()),
        ("cuda_memory_reserved", lambda p: p.device.cuda.memory_reserved()),
        ("cuda_reset_max_memory_allocated", lambda p: p.device.cuda.reset_max_memory_allocated()),
        ("cuda_reset_max_memory_reserved", lambda p: p.device.cuda.reset_max_memory_reserved()),
        ("cuda_get_device_properties", lambda p: p.device.cuda.get_device_properties()),
        ("cuda_get_device_name", lambda p: p.device.cuda.get_device_name()),
        ("cuda_vmm_compact", lambda p: p.device.cuda.vmm_compact()),
        ("cuda_stream", lambda p: p.device.cuda.Stream()),
        ("cuda_event", lambda p: p.device.cuda.Event()),
        ("cuda_all", lambda p: sorted(p.device.cuda.__all__)),
]:
    CASES[_name] = _call


def _maker_case(name, args):
    def case(paddle):
        return getattr(paddle.device, name)(*args)
    return case


for _maker in ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
               "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"):
    CASES[f"{_maker}_list"] = _maker_case(_maker, ([1, 0, 2],))
    CASES[f"{_maker}_shape"] = (lambda n: lambda p: [list(getattr(p.device, n)(2, 3).shape),
                                                      str(getattr(p.device, n)(2, 3).dtype),
                                                      list(getattr(p.device, n)().shape)])(_maker)
CASES["FloatTensor_nested"] = _maker_case("FloatTensor", ([[1.5, 2], [3, 4]],))
CASES["LongTensor_tuple"] = _maker_case("LongTensor", ((7, 8),))
CASES["IntTensor_array"] = _maker_case("IntTensor", (np.array([1.7, -2.2]),))


def c_rng_state_round_trip(paddle):
    state = paddle.device.get_rng_state()
    first = paddle.rand([3]).numpy()
    paddle.device.set_rng_state(state)
    again = paddle.rand([3]).numpy()
    return [bool((first == again).all()), type(state).__name__, hasattr(state, "current_seed")]


def c_rng_state_cpu_argument(paddle):
    state = paddle.device.get_rng_state("cpu")
    first = paddle.rand([2]).numpy()
    paddle.device.set_rng_state(state, "cpu")
    return bool((paddle.rand([2]).numpy() == first).all())


def c_manual_seed_is_paddle_seed_on_cpu(paddle):
    paddle.device.manual_seed(123)
    a = paddle.rand([4]).numpy()
    paddle.seed(123)
    b = paddle.rand([4]).numpy()
    return [bool((a == b).all()), paddle.device.get_rng_state().current_seed()]


def c_device_guard_cpu(paddle):
    with paddle.device.device_guard("cpu"):
        inside = paddle.device.get_device()
    with paddle.device.device_guard(paddle.CPUPlace()):
        place_inside = paddle.device.get_device()
    with paddle.device.device("cpu"):
        ctx = paddle.device.get_device()
    return [inside, place_inside, ctx, paddle.device.get_device()]


for _fn in list(globals().values()):
    if callable(_fn) and getattr(_fn, "__name__", "").startswith("c_"):
        CASES[_fn.__name__[2:]] = _fn


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
