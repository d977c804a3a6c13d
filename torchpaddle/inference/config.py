"""``paddle.inference.Config`` and the enums it takes (PrecisionType, PlaceType, DataType).

The predictor runs the saved program on the static Executor (torch kernels), so the switches that tune Paddle's own
inference engine (IR passes, oneDNN, TensorRT, memory pool) are recorded and reported by ``summary()`` but change
nothing: the results are the same with them on or off, which is what they promise in Paddle too."""
import enum
import os

import torch

from ..framework.place import is_compiled_with_cuda

__all__ = ["Config", "PrecisionType", "PlaceType", "DataType", "XpuConfig"]


class _NamedEnum(enum.IntEnum):
    """Prints as Paddle's pybind enums do (``PaddleDType.FLOAT32``), under their C++ type names."""
    def __repr__(self):
        return f"<{self._cpp}.{self.name}: {int(self)}>"

    def __str__(self):
        return f"{self._cpp}.{self.name}"


class PrecisionType(_NamedEnum):
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(_NamedEnum):
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class DataType(_NamedEnum):
    FLOAT64 = 7
    FLOAT32 = 0
    FLOAT16 = 5
    BFLOAT16 = 8
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    BOOL = 6


PrecisionType._cpp, PlaceType._cpp, DataType._cpp = "Precision", "PaddlePlace", "PaddleDType"


class XpuConfig:
    """Kunlun XPU settings; there is no XPU backend here, so they are only held."""
    def __init__(self):
        self.device_id = 0
        self.l3_size = 0
        self.conv_autotune_level = 0


def _path(value, what):
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"Config: {what} must be a str path, got {type(value).__name__}")
    return os.fspath(value)


class Config:
    """Where the model is and how to run it: ``Config(model_dir)``, ``Config(prog_file, params_file)`` (a
    ``.pdmodel`` ProgramDesc or a ``.json`` PIR program, with its ``.pdiparams``), or ``Config()`` then
    ``set_model``/``set_model_buffer``."""

    def __init__(self, *args):
        self._model_dir, self._prog_file, self._params_file = "", "", ""
        self._buffers = None
        self._use_gpu, self._gpu_id, self._pool_mb = False, 0, 100
        self._threads = 1
        self._mkldnn, self._ir_optim, self._ir_debug = True, True, False
        self._memory_optim, self._profile, self._glog = False, False, True
        self._feed_fetch_ops, self._specify_input_names = False, False
        self._deleted_passes = []
        self._precision = PrecisionType.Float32
        self._xpu_config = XpuConfig()
        if len(args) == 1 and isinstance(args[0], Config):
            self.__dict__.update({k: (list(v) if isinstance(v, list) else v) for k, v in args[0].__dict__.items()})
        elif len(args) == 1:
            self._model_dir = _path(args[0], "model_dir")
        elif len(args) == 2:
            self.set_model(*args)
        elif args:
            raise TypeError(f"Config() takes a model_dir, or prog_file and params_file, got {len(args)} arguments")

    # -- the model ---------------------------------------------------------------------------------------------
    def set_model(self, prog_file_or_dir, params_file=None):
        if params_file is None:
            self._model_dir = _path(prog_file_or_dir, "model_dir")
        else:
            self._prog_file = _path(prog_file_or_dir, "prog_file")
            self._params_file = _path(params_file, "params_file")
        self._buffers = None

    def set_prog_file(self, path):
        self._prog_file = _path(path, "prog_file")

    def set_params_file(self, path):
        self._params_file = _path(path, "params_file")

    def set_model_buffer(self, prog_buffer, prog_size, params_buffer, params_size):
        def as_bytes(b, n, what):
            b = b.encode("latin-1") if isinstance(b, str) else bytes(b)
            if not isinstance(n, int) or n < 0 or n > len(b):
                raise ValueError(f"set_model_buffer: {what}_size must be an int in [0, {len(b)}], got {n!r}")
            return b[:n]
        self._buffers = (as_bytes(prog_buffer, prog_size, "prog"), as_bytes(params_buffer, params_size, "params"))

    def model_from_memory(self):
        return self._buffers is not None

    def model_dir(self):
        return self._model_dir

    def prog_file(self):
        return self._prog_file

    def params_file(self):
        return self._params_file

    # -- devices -----------------------------------------------------------------------------------------------
    def enable_use_gpu(self, memory_pool_init_size_mb, device_id=0, precision_mode=PrecisionType.Float32):
        if not isinstance(device_id, int) or device_id < 0:
            raise ValueError(f"enable_use_gpu: device_id must be a non-negative int, got {device_id!r}")
        self._pool_mb, self._gpu_id, self._precision = int(memory_pool_init_size_mb), device_id, precision_mode
        # as Paddle's CPU build: the request is logged and the predictor stays on the CPU
        self._use_gpu = is_compiled_with_cuda()

    def disable_gpu(self):
        self._use_gpu = False

    def use_gpu(self):
        return self._use_gpu

    def gpu_device_id(self):
        return self._gpu_id

    def memory_pool_init_size_mb(self):
        return self._pool_mb

    def fraction_of_gpu_memory_for_pool(self):
        if not self._use_gpu:
            return 0.0
        total = torch.cuda.get_device_properties(self._gpu_id).total_memory
        return self._pool_mb * 2 ** 20 / total

    def enable_xpu(self, *args, **kwargs):
        raise RuntimeError("Config.enable_xpu: torchpaddle has no XPU backend")

    def use_xpu(self):
        return False

    def set_xpu_config(self, config):
        if not isinstance(config, XpuConfig):
            raise TypeError(f"set_xpu_config: config must be an XpuConfig, got {type(config).__name__}")
        self._xpu_config = config

    def xpu_config(self):
        return self._xpu_config

    def set_cpu_math_library_num_threads(self, n):
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"set_cpu_math_library_num_threads: n must be a positive int, got {n!r}")
        self._threads = n

    def cpu_math_library_num_threads(self):
        return self._threads

    # -- engine switches (recorded; the torch kernels give the same results either way) -----------------------
    def enable_mkldnn(self):
        self._mkldnn = True

    def disable_mkldnn(self):
        self._mkldnn = False

    enable_onednn, disable_onednn = enable_mkldnn, disable_mkldnn

    def mkldnn_enabled(self):
        return self._mkldnn

    onednn_enabled = mkldnn_enabled

    def set_mkldnn_cache_capacity(self, capacity):
        pass

    set_onednn_cache_capacity = set_mkldnn_cache_capacity

    def switch_ir_optim(self, x=True):
        self._ir_optim = bool(x)

    def ir_optim(self):
        return self._ir_optim

    def switch_ir_debug(self, x=True):
        self._ir_debug = bool(x)

    def enable_memory_optim(self, x=True):
        self._memory_optim = bool(x)

    def enable_profile(self):
        self._profile = True

    def disable_glog_info(self):
        self._glog = False

    def glog_info_disabled(self):
        return not self._glog

    def switch_use_feed_fetch_ops(self, x=True):
        self._feed_fetch_ops = bool(x)

    def use_feed_fetch_ops_enabled(self):
        return self._feed_fetch_ops

    def switch_specify_input_names(self, x=True):
        self._specify_input_names = bool(x)

    def specify_input_name(self):
        return self._specify_input_names

    def delete_pass(self, name):
        self._deleted_passes.append(name)

    def enable_new_ir(self, x=True):
        pass

    def enable_new_executor(self, x=True):
        pass

    def tensorrt_engine_enabled(self):
        return False

    def enable_tensorrt_engine(self, *args, **kwargs):
        raise RuntimeError("Config.enable_tensorrt_engine: this build has no TensorRT "
                           "(paddle.inference.get_trt_compile_version() is (0, 0, 0))")

    def summary(self):
        """The options as Paddle's table of them."""
        b = lambda v: "true" if v else "false"   # noqa: E731
        groups = [[("model_dir", self._model_dir)] if self._model_dir else
                  [("model_file", self._prog_file), ("params_file", self._params_file)],
                  [("cpu_math_thread", str(self._threads)), ("enable_mkldnn", b(self._mkldnn)),
                   ("mkldnn_cache_capacity", "10")],
                  [("use_gpu", b(self._use_gpu))] + ([("gpu_device_id", str(self._gpu_id)),
                                                      ("memory_pool_init_size", f"{self._pool_mb}MB")]
                                                     if self._use_gpu else []),
                  [("use_xpu", "false")],
                  [("ir_optim", b(self._ir_optim)), ("ir_debug", b(self._ir_debug)),
                   ("memory_optim", b(self._memory_optim)), ("enable_profile", b(self._profile)),
                   ("enable_log", b(self._glog))]]
        w0 = max(len(k) for g in groups for k, _ in g) + 1
        w1 = max(len(v) for g in groups for _, v in g) + 1
        rule = f"+{'-' * (w0 + 1)}+{'-' * (w1 + 1)}+\n"
        out = rule + f"| {'Option':<{w0}}| {'Value':<{w1}}|\n" + rule
        for g in groups:
            out += "".join(f"| {k:<{w0}}| {v:<{w1}}|\n" for k, v in g) + rule
        return out
