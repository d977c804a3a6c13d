"""Module-level helpers of ``paddle.inference``: version strings, data-type sizes, TensorRT versions and the
float16/bfloat16 conversion of a saved model."""
import os
import shutil
import tempfile

from ..framework.flags import get_flags, set_flags
from ..static.amp.fp16_lists import AutoMixedPrecisionLists
from ..static.amp.fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16
from ..static.executor import Executor
from ..static.io import save_inference_model
from ..static.scope import Scope, scope_guard
from .config import Config, DataType, PlaceType, PrecisionType

__all__ = ["get_version", "get_num_bytes_of_data_type", "get_trt_compile_version", "get_trt_runtime_version",
           "convert_to_mixed_precision"]

# Paddle answers only for the types its C++ helper lists; the others are -1 there as well
_NUM_BYTES = {DataType.FLOAT32: 4, DataType.INT64: 8, DataType.INT32: 4, DataType.UINT8: 1}


def get_version():
    # the Paddle release whose API this is (torchpaddle.__version__; the package root is above this layer)
    return "version: 3.3.1\ncommit: torchpaddle\nbranch: HEAD\n"


def get_num_bytes_of_data_type(dtype):
    if not isinstance(dtype, DataType):
        raise TypeError(f"get_num_bytes_of_data_type: dtype must be a paddle.inference.DataType, got "
                        f"{type(dtype).__name__}")
    return _NUM_BYTES.get(dtype, -1)


def get_trt_compile_version():
    """(0, 0, 0): built without TensorRT, as Paddle's CPU wheel."""
    return (0, 0, 0)


def get_trt_runtime_version():
    return (0, 0, 0)


_LOW = {PrecisionType.Half: "float16", PrecisionType.Bfloat16: "bfloat16"}


def convert_to_mixed_precision(model_file, params_file, mixed_model_file, mixed_params_file, mixed_precision,
                               backend, keep_io_types=True, black_list=None, **kwargs):
    """Write a copy of a float32 inference model whose ops and weights run in float16 or bfloat16 (those in
    ``black_list`` stay float32); the inputs and outputs stay float32."""
    from .predictor import _load
    if mixed_precision not in _LOW:
        raise ValueError(f"convert_to_mixed_precision: mixed_precision must be PrecisionType.Half or "
                         f"PrecisionType.Bfloat16, got {mixed_precision!r}")
    if not isinstance(backend, PlaceType):
        raise TypeError(f"convert_to_mixed_precision: backend must be a PlaceType, got {type(backend).__name__}")
    if not keep_io_types:
        raise ValueError("convert_to_mixed_precision: keep_io_types=False (half-precision inputs and outputs) is "
                         "not supported by torchpaddle; the converted model takes and returns float32")
    unknown = set(kwargs) - {"white_list"}
    if unknown:
        raise TypeError(f"convert_to_mixed_precision: unexpected arguments {sorted(unknown)}")
    scope, executor = Scope(), Executor()
    program, feeds, fetches, _ = _load(Config(model_file, params_file), executor, scope)
    low = _LOW[mixed_precision]
    lists = AutoMixedPrecisionLists(custom_white_list=kwargs.get("white_list"),
                                    custom_black_list=set(black_list or ()), dtype=low)
    block = program.global_block()
    # a legacy ProgramDesc marks weights only persistable; the AMP rewrite converts parameters, so they become ones
    params = {p.name for p in block.all_parameters()}
    for var in [v for v in block.vars.values() if v.persistable and v.name not in params and
                v.dtype.name == "float32" and v.name not in ("feed", "fetch")]:
        block._remove_var(var.name)
        block.create_parameter(list(var.shape), var.dtype, name=var.name)
    with scope_guard(scope):
        names = cast_model_to_fp16(program, lists, use_fp16_guard=False, dest_type=low, level="O2")
        cast_parameters_to_fp16(None, program, scope, to_fp16_var_names=names, dest_type=low)
        old = get_flags("FLAGS_enable_pir_api")
        tmp = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(mixed_model_file)))
        try:
            set_flags({"FLAGS_enable_pir_api": str(mixed_model_file).endswith(".json")})
            save_inference_model(os.path.join(tmp, "m"), [block.var(n) for n in feeds],
                                 [block.var(n) for n in fetches], executor, program=program)
            # only the model and its parameters: the save's own bookkeeping files stay behind
            for name in [f for f in os.listdir(tmp) if f in ("m.json", "m.pdmodel", "m.pdiparams")]:
                os.replace(os.path.join(tmp, name),
                           mixed_params_file if name.endswith(".pdiparams") else mixed_model_file)
        finally:
            set_flags(old)
            shutil.rmtree(tmp, ignore_errors=True)
