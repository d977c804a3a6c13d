"""``paddle.jit.save`` / ``paddle.jit.load`` in Paddle's legacy inference format.

``path.pdmodel``: the traced program as a ProgramDesc (normalized as save_inference_model does: pruned to the
outputs, ``is_test`` on, feed/fetch ops); ``path.pdiparams``: its persistable variables sorted by name as one
tensor stream; ``path.pdiparams.info``: a pickled dict, variable name -> {structured_name, stop_gradient,
trainable (parameters only)}, which Paddle's jit.load reads to tell parameters from buffers. This is what
PaddlePaddle 3.3.1 writes with FLAGS_enable_pir_api=0; files written here load in it and the other way round.
The three files are saved as one set (``path.tpsave`` manifest, framework.atomic): a torn save is refused.
With FLAGS_enable_pir_api on (the default), as in PaddlePaddle 3.3.1, the program is written as ``path.json``
(static.pir_program_io) beside ``path.pdiparams``, and no ``.info``: every persistable loads as a parameter.
Loading reads whichever program file is there (both: the one the flag picks).
"""
import io as _pyio
import os
import pickle

from ..framework import atomic as _atomic
from ..framework import io as _fio
from ..framework.parameter import Parameter
from ..framework.place import to_torch_device
from ..framework.tensor import wrap
from ..framework.program import StaticParameter
from ..static import io as _static_io
from ..static import pir_program_io, program_io
from ..static.prune import normalize_program, persistable_vars
from ..static.scope import Scope
from .api import check_input_spec, static_function_of
from .translated_layer import TranslatedLayer

__all__ = ["save", "load"]

_SAVE_CONFIGS = ("output_spec", "with_hook", "combine_params", "clip_extra", "skip_forward",
                 "input_names_after_prune", "skip_prune_program", "separate_params")
_LOAD_CONFIGS = ("model_filename", "params_filename", "keep_name_table")


def _check_path(path, who):
    if not isinstance(path, str):
        raise TypeError(f"{who}: path must be a str, got {type(path).__name__}")
    dirname, prefix = os.path.split(path)
    if prefix == "":
        raise ValueError(f"{who}: the path must be of the form dirname/file_prefix, but the file prefix of "
                         f"{path!r} is empty (a directory was given)")
    return dirname, prefix


def _structured_names(layer):
    """id(tensor) -> its key in ``layer.state_dict()`` (Paddle's structured name)."""
    from ..nn import Layer
    if not isinstance(layer, Layer):
        return {}
    names = {}
    for key, value in layer.state_dict().items():
        names.setdefault(id(value), key)
    return names


def save(layer, path, input_spec=None, **configs):
    """Trace ``layer`` (a Layer or function) for ``input_spec`` and write ``path.pdmodel``,
    ``path.pdiparams`` and ``path.pdiparams.info``."""
    for key in configs:
        if key not in _SAVE_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.jit.save` is not supported.")
    if configs.get("output_spec") is not None:
        raise ValueError("paddle.jit.save: output_spec is not supported by torchpaddle; return only the outputs "
                         "to save from forward")
    dirname, _ = _check_path(path, "paddle.jit.save")
    static = static_function_of(layer, "paddle.jit.save")
    if input_spec is not None:
        input_spec = check_input_spec(input_spec, "paddle.jit.save")
        concrete = static.concrete_program_for_specs(input_spec)
    elif static.input_spec is not None or static._last is not None:
        concrete = static.concrete_program
    else:
        raise ValueError(f"paddle.jit.save: no input_spec was given and {static.__name__} has not been traced; "
                         "pass input_spec, decorate it with to_static(input_spec=...), or call it once before "
                         "saving")
    if not concrete.fetch_vars:
        raise ValueError(f"paddle.jit.save: {static.__name__} returns no Tensor to save")
    program = normalize_program(concrete.main_program, concrete.inputs, concrete.fetch_vars,
                                skip_prune_program=configs.get("skip_prune_program", False))
    model_suffix, model = pir_program_io.model_bytes(
        program, lambda: program_io.program_to_desc_bytes(program, clip_extra=configs.get("clip_extra", True),
                                                          training_info=False), "paddle.jit.save")
    pir = model_suffix == ".json"
    variables = persistable_vars(program)
    bound = dict(concrete.bindings)
    scope = Scope()
    for var in variables:
        scope._set(var.name, bound[var.name]._t.detach())
    # values are gathered before anything is written, so a failure leaves no half-saved model
    params = _static_io._stream(scope, variables) if variables else None
    structured = _structured_names(layer)
    info = {}
    for var in variables:
        tensor = bound[var.name]
        entry = {"structured_name": structured.get(id(tensor), var.name), "stop_gradient": tensor.stop_gradient}
        if isinstance(tensor, Parameter):
            entry["trainable"] = tensor.trainable
        info[var.name] = entry
    buffer = _pyio.BytesIO()
    pickle.dump(info, buffer, protocol=2)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    for suffix in _static_io.INFERENCE_FILES:
        if os.path.isdir(path + suffix):
            raise ValueError(f"paddle.jit.save: {path + suffix!r} is an existing directory")
    members = [(model_suffix, model)] + ([(".pdiparams", params)] if params is not None else [])
    if not pir:
        members.append((".pdiparams.info", buffer.getvalue()))
    _atomic.write_set(path, members, _static_io.INFERENCE_FILES)


def _model_files(path, configs):
    """(model file, params file) of ``path``: a prefix, or a folder with model_filename/params_filename."""
    model_filename, params_filename = configs.get("model_filename"), configs.get("params_filename")
    if os.path.isdir(path) and (model_filename is not None or params_filename is not None):
        model = os.path.join(path, model_filename or "__model__")
        params = os.path.join(path, params_filename) if params_filename else None
        return model, params
    if os.path.isdir(path):
        raise ValueError(f"paddle.jit.load: {path!r} is a directory; give the path prefix the model was saved "
                         "with (path/prefix for path/prefix.pdmodel), or model_filename and params_filename")
    return pir_program_io.model_file(path), path + ".pdiparams"


def _read_info(path):
    """The ``.pdiparams.info`` dict, read with the allow-list unpickler (nothing in a file runs)."""
    if not os.path.isfile(path):
        return None
    with open(path, "rb") as f:
        data = f.read()
    try:
        info = _fio._SafeUnpickler(_pyio.BytesIO(data)).load()
    except Exception as e:  # noqa: BLE001 - any damage is reported as one clear error
        raise ValueError(f"paddle.jit.load: cannot read {path}: {e}") from None
    if not isinstance(info, dict):
        raise ValueError(f"paddle.jit.load: {path} does not hold a dict of variable information")
    return info


def _is_parameter(name, program):
    """Paddle's rule without ``.info``: a persistable that ops read and only the reading op writes."""
    readers = [op for b in program.blocks for op in b.ops if name in op.input_arg_names]
    if not readers:
        return False
    return all(op in readers for b in program.blocks for op in b.ops if name in op.output_arg_names)


def load(path, **configs):
    """Load what ``jit.save`` wrote (here or in Paddle) as a TranslatedLayer."""
    for key in configs:
        if key not in _LOAD_CONFIGS:
            raise ValueError(f"The additional config ({key}) of `paddle.jit.load` is not supported.")
    _check_path(path, "paddle.jit.load")
    model_path, params_path = _model_files(path, configs)
    if not os.path.isfile(model_path):
        raise _fio._PathNotFoundError(2, f"paddle.jit.load: the model file {model_path} does not exist",
                                      model_path)
    _atomic.check_member(model_path)  # refuse a torn save (see framework.atomic)
    with open(model_path, "rb") as f:
        data = f.read()
    try:
        program = _static_io.deserialize_program(data)
        program_io.check_op_types(program)
    except ValueError as e:
        raise ValueError(f"paddle.jit.load: cannot load {model_path}: {e}") from None
    feed_names = program_io.feed_target_names(program)
    fetch_names = program_io.fetch_target_names(program)
    if not fetch_names:
        raise ValueError(f"paddle.jit.load: {model_path} has no fetch targets (it is not an inference model)")
    variables = persistable_vars(program)
    pir = pir_program_io.is_pir_bytes(data)
    info = _read_info(params_path + ".info") if params_path and not pir else None
    persistables = {}
    if variables:
        if params_path is None or not os.path.isfile(params_path):
            raise _fio._PathNotFoundError(2, f"paddle.jit.load: the parameter file {params_path} does not exist "
                                          f"(the model has {len(variables)} persistable variables)", params_path)
        with open(params_path, "rb") as f:
            params = f.read()
        scope = Scope()
        _static_io.load_params(params, variables, scope, to_torch_device(None), params_path, pir)
        for var in variables:
            value = scope._get(var.name)
            entry = info.get(var.name) if info is not None else None
            if info is not None and entry is None:
                raise ValueError(f"paddle.jit.load: the model is incomplete: variable {var.name!r} is not in "
                                 f"{params_path}.info")
            if entry is not None:
                is_param, stop_gradient = "trainable" in entry, bool(entry.get("stop_gradient", False))
            elif pir:   # as Paddle's PIR jit.load: every persistable is a parameter, trainable as the file says
                is_param, stop_gradient = isinstance(var, StaticParameter), var.stop_gradient
            else:
                is_param = _is_parameter(var.name, program)
                stop_gradient = not is_param
            if is_param:
                tensor = Parameter.from_tensor(value, trainable=not stop_gradient, name=var.name)
            else:
                tensor = wrap(value)
                tensor.name = var.name
                tensor.persistable = True
            persistables[var.name] = tensor
    return TranslatedLayer(program, feed_names, fetch_names, persistables)


def _load_state_dict(path, config):
    """``paddle.load(prefix)`` of a model jit.save (or save_inference_model) wrote: structured name (the var
    name without ``.info``) -> NumPy array, as Paddle returns it; None when ``path`` is no such prefix."""
    if not isinstance(path, str) or not (os.path.isfile(path + ".pdmodel") and os.path.isfile(path + ".pdiparams")):
        return None
    layer = load(path)
    info = _read_info(path + ".pdiparams.info") or {}
    state = {}
    for var_name, attr in layer._persistable_var_name_dict.items():
        tensor = layer._parameters.get(attr)
        if tensor is None:
            tensor = layer._buffers.get(attr)
        key = info.get(var_name, {}).get("structured_name", var_name)
        state[key] = tensor.numpy()
    return state


_fio.register_path_loader(_load_state_dict)
