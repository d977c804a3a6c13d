"""``paddle.inference`` predictors: a saved inference model run on the static Executor's cached plans.

A predictor owns a Scope holding the model's weights; ``clone()`` shares that scope and the program (so the
weights and the compiled plans) and keeps its own input and output tensors, as Paddle's clones do."""
import json
import os

import numpy as np

from ..framework import dtype as _dtype
from ..framework.tensor import Tensor as _PaddleTensor
from ..static.executor import Executor
from ..static.io import load_inference_model
from ..static.pir_program_io import is_pir_bytes
from ..static.scope import Scope, scope_guard
from .config import Config, DataType

__all__ = ["Predictor", "Tensor", "PredictorPool", "create_predictor"]

_DATA_TYPES = {"float64": DataType.FLOAT64, "float32": DataType.FLOAT32, "float16": DataType.FLOAT16,
               "bfloat16": DataType.BFLOAT16, "int64": DataType.INT64, "int32": DataType.INT32,
               "uint8": DataType.UINT8, "int8": DataType.INT8, "bool": DataType.BOOL}


def _data_type(dtype_name):
    found = _DATA_TYPES.get(dtype_name)
    if found is None:
        raise ValueError(f"paddle.inference: dtype {dtype_name} has no paddle.inference.DataType")
    return found


def _read(path, what):
    if not os.path.isfile(path):
        raise RuntimeError(f"(NotFound) Cannot open file {path}, please confirm whether the {what} is normal.")
    with open(path, "rb") as f:
        return f.read()


def _pir_fetch_names(program_bytes):
    """The output names a `.json` program gives its fetch ops (``fetch_name_0``...), by column: Paddle's predictor
    names its outputs by them, not by the fetched values."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if str(node.get("#", "")).endswith(".fetch"):
                attrs = {a.get("N"): a.get("AT", {}).get("D") for a in node.get("A", []) if isinstance(a, dict)}
                found.append((attrs.get("col", len(found)), attrs.get("name")))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(json.loads(program_bytes))
    return [name for _, name in sorted(found, key=lambda p: p[0])]


def _load(config, executor, scope):
    """(program, feed names, fetch variable names, output names) of the model ``config`` names, its weights put
    in ``scope``."""
    with scope_guard(scope):
        if config.model_from_memory():
            model, params = config._buffers
            program, feeds, fetches = load_inference_model(None, executor, model_filename=model,
                                                           params_filename=params)
        elif config.prog_file():
            model = _read(config.prog_file(), "model file")
            params = _read(config.params_file(), "params file") if config.params_file() else None
            if params is None:
                raise ValueError("create_predictor: the Config has a prog_file but no params_file")
            program, feeds, fetches = load_inference_model(None, executor, model_filename=model,
                                                           params_filename=params)
        elif config.model_dir():
            # the 1.x layout: ``__model__`` and one file per variable (or ``__params__`` holding them all)
            folder = config.model_dir()
            model = _read(os.path.join(folder, "__model__"), "model file")
            params = "__params__" if os.path.isfile(os.path.join(folder, "__params__")) else None
            program, feeds, fetches = load_inference_model(folder, executor, model_filename="__model__",
                                                           params_filename=params)
        else:
            raise ValueError("create_predictor: the Config names no model (give model_dir, or prog_file and "
                             "params_file, or set_model_buffer)")
    fetch_names = [v.name for v in fetches]
    out_names = fetch_names
    if is_pir_bytes(model):
        pir_names = _pir_fetch_names(model)
        if len(pir_names) == len(fetch_names) and all(isinstance(n, str) for n in pir_names):
            out_names = pir_names
    return program, list(feeds), fetch_names, out_names


class Tensor:
    """An input or output of a predictor (Paddle's ``PaddleInferTensor``): numpy in, numpy out."""

    def __init__(self, predictor, name, var, is_input):
        self._predictor, self._name, self._var, self._is_input = predictor, name, var, is_input
        self._shape = None
        self._lod = []

    @property
    def name(self):
        return self._name

    def _value(self):
        store = self._predictor._inputs if self._is_input else self._predictor._outputs
        return store.get(self._name)

    def copy_from_cpu(self, data):
        if not self._is_input:
            raise RuntimeError(f"copy_from_cpu: {self._name!r} is an output of the predictor")
        if isinstance(data, list) and all(isinstance(s, str) for s in data):
            raise TypeError("copy_from_cpu: string inputs are not supported by torchpaddle")
        if not isinstance(data, np.ndarray):
            raise TypeError("In copy_from_cpu, we only support numpy ndarray and list[str] data type.")
        self._predictor._inputs[self._name] = np.array(data, order="C", copy=True)
        self._shape = None

    def share_external_data(self, data):
        """Feed a paddle Tensor without copying it."""
        if not self._is_input:
            raise RuntimeError(f"share_external_data: {self._name!r} is an output of the predictor")
        if not isinstance(data, _PaddleTensor):
            raise TypeError(f"share_external_data: data must be a paddle.Tensor, got {type(data).__name__}")
        self._predictor._inputs[self._name] = data
        self._shape = None

    def copy_to_cpu(self):
        value = self._value()
        if value is None:
            raise RuntimeError(f"(PreconditionNotMet) Tensor {self._name!r} holds no memory: for an output, call "
                               "the predictor's run() first; for an input, copy_from_cpu.")
        return value.numpy() if isinstance(value, _PaddleTensor) else value.copy()

    def reshape(self, shape):
        if not isinstance(shape, (list, tuple)) or not all(isinstance(d, (int, np.integer)) and d >= 0
                                                           for d in shape):
            raise ValueError(f"reshape: shape must be a list of non-negative ints, got {shape!r}")
        if not self._is_input:
            raise RuntimeError(f"reshape: {self._name!r} is an output; its shape is what run() computes")
        self._shape = [int(d) for d in shape]

    def shape(self):
        value = self._value()
        if value is not None and self._shape is None:
            return list(value.shape)
        return list(self._shape) if self._shape is not None else [0]

    def type(self):
        value = self._value()
        if value is None:
            return _data_type(self._var.dtype.name)
        if isinstance(value, _PaddleTensor):
            return _data_type(value.dtype.name)
        return _data_type(_dtype.from_numpy_dtype(value.dtype).name)

    def lod(self):
        return [list(level) for level in self._lod]

    def set_lod(self, lod):
        self._lod = [list(level) for level in lod]


class Predictor:
    """Runs one saved inference model; made by ``create_predictor(config)``."""

    def __init__(self, config, _shared=None):
        if not isinstance(config, Config):
            raise TypeError(f"create_predictor: config must be a paddle.inference.Config, got "
                            f"{type(config).__name__}")
        self._config = Config(config)
        self._executor = Executor()
        if _shared is None:
            self._scope = Scope()
            self._program, self._feed_names, self._fetch_names, self._output_names = \
                _load(config, self._executor, self._scope)
        else:
            (self._scope, self._program, self._feed_names, self._fetch_names, self._output_names) = _shared
        block = self._program.global_block()
        self._in_handles = {n: Tensor(self, n, block.var(n), True) for n in self._feed_names}
        self._out_handles = {n: Tensor(self, n, block.var(f), False)
                             for n, f in zip(self._output_names, self._fetch_names)}
        self._inputs, self._outputs = {}, {}

    def get_input_names(self):
        return list(self._feed_names)

    def get_output_names(self):
        return list(self._output_names)

    def get_input_handle(self, name):
        found = self._in_handles.get(name)
        if found is None:
            raise RuntimeError(f"(PreconditionNotMet) The input named {name!r} is not found in the model (its "
                               f"inputs: {self._feed_names})")
        return found

    def get_output_handle(self, name):
        found = self._out_handles.get(name)
        if found is None:
            raise RuntimeError(f"(PreconditionNotMet) The output named {name!r} is not found in the model (its "
                               f"outputs: {self._output_names})")
        return found

    def run(self, inputs=None):
        """Run on the inputs set through the handles; or on ``inputs`` (paddle Tensors in the order of
        ``get_input_names()``), returning the outputs as paddle Tensors."""
        if inputs is not None:
            if not isinstance(inputs, (list, tuple)) or not all(isinstance(t, _PaddleTensor) for t in inputs):
                raise TypeError("Predictor.run: inputs must be a list of paddle.Tensor")
            if len(inputs) != len(self._feed_names):
                raise ValueError(f"Predictor.run: the model has {len(self._feed_names)} inputs "
                                 f"{self._feed_names}, got {len(inputs)} tensors")
            self._inputs = dict(zip(self._feed_names, inputs))
        missing = [n for n in self._feed_names if n not in self._inputs]
        if missing:
            raise RuntimeError(f"Predictor.run: no data for the inputs {missing}: set them with "
                               "get_input_handle(name).copy_from_cpu(array)")
        values = self._executor.run(self._program, feed=dict(self._inputs), fetch_list=self._fetch_names,
                                    scope=self._scope, return_numpy=False)
        self._outputs = dict(zip(self._output_names, values))
        if inputs is not None:
            return list(values)
        return None

    def clone(self, stream=None):
        """A predictor on the same weights and program, with inputs and outputs of its own."""
        return Predictor(self._config, _shared=(self._scope, self._program, self._feed_names, self._fetch_names,
                                                self._output_names))

    def clear_intermediate_tensor(self):
        """The executor frees intermediates after their last use; only the outputs remain."""
        return None

    def try_shrink_memory(self):
        self._outputs = {}
        return 0


def create_predictor(config):
    return Predictor(config)


class PredictorPool:
    """``size`` predictors on one model (clones of the first, sharing its weights)."""

    def __init__(self, config, size=1):
        if not isinstance(size, int) or size < 1:
            raise ValueError(f"PredictorPool: size must be a positive int, got {size!r}")
        first = Predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(size - 1)]

    def retrieve(self, idx):
        if not isinstance(idx, int) or not 0 <= idx < len(self._predictors):
            raise IndexError(f"PredictorPool.retrieve: idx must be in [0, {len(self._predictors)}), got {idx!r}")
        return self._predictors[idx]
