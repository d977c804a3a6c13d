"""``paddle.inference``: run a saved inference model (``.pdmodel`` or ``.json`` with ``.pdiparams``) through a
Predictor built on the static Executor."""
from .config import Config, DataType, PlaceType, PrecisionType, XpuConfig  # noqa: F401
from .predictor import Predictor, PredictorPool, Tensor, create_predictor  # noqa: F401
from .tools import (convert_to_mixed_precision, get_num_bytes_of_data_type, get_trt_compile_version,  # noqa: F401
                    get_trt_runtime_version, get_version)

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Tensor", "Predictor", "create_predictor",
           "get_version", "get_trt_compile_version", "convert_to_mixed_precision", "get_trt_runtime_version",
           "get_num_bytes_of_data_type", "PredictorPool", "XpuConfig"]
