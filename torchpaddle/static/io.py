"""Static-graph persistence in Paddle's wire formats (``paddle.static.save_inference_model`` and friends).

- ``path_prefix.json``: the PIR program (pir_program_io; Paddle 3's default), or ``path_prefix.pdmodel``, a
  ProgramDesc protobuf (program_io) with FLAGS_enable_pir_api off; ``path_prefix.pdiparams``: the persistable
  variables of the program, sorted by name, as one tensor stream (what Paddle's save_combine writes).
- ``static.save``: ``.pdparams`` (parameters) and ``.pdopt`` (other persistables) as pickled dicts of
  NumPy arrays, and ``.pdmodel``. They load with the allow-list unpickler: nothing in a file runs.
- Every file is written atomically (temporary file, fsync, rename), so a killed save leaves the old one; the
  files of one save form a set with a ``.tpsave`` manifest, and loading refuses a torn set (framework.atomic).
Values live in ``global_scope()``, as in Paddle; the executor only gives the device.
"""
import errno
import os
import pickle
import warnings

import numpy as np
import torch

from ..framework import atomic as _atomic
from ..framework import dtype as _dtype
from ..framework import io as _fio
from ..framework.place import to_torch_device
from ..framework.program import Program, StaticParameter, Variable, default_main_program
from ..framework.tensor import Tensor
from . import pir_program_io, program_io
from .scope import global_scope
from .serialization import TensorRecord, parse_program, read_records, write_tensors
from .serialization import framework_pb2 as _pb
from .prune import normalize_program, is_persistable, persistable_vars

__all__ = ["save", "load", "load_program_state", "set_program_state", "serialize_program", "deserialize_program",
           "serialize_persistables", "deserialize_persistables", "save_to_file", "load_from_file",
           "save_inference_model", "load_inference_model", "normalize_program", "is_persistable",
           "get_program_persistable_vars", "save_vars", "load_vars"]


class ProgramStateError(ValueError, AssertionError):
    """A checkpoint does not fit the program (missing variable, shape or dtype mismatch). Paddle asserts
    here; this is a ValueError too, the type bad values get elsewhere."""


# -- argument checks ----------------------------------------------------------------------------------------
def _check_vars(name, var_list):
    items = var_list if isinstance(var_list, (list, tuple)) else [var_list]
    if not all(isinstance(v, Variable) for v in items):
        raise ValueError(f"'{name}' should be a Variable or a list of Variable.")


def _valid_program(program):
    if program is None:
        return default_main_program()
    inner = getattr(program, "_program", None)   # a CompiledProgram
    if inner is not None and isinstance(inner, Program):
        return inner
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `paddle.static.Program`, but received `{type(program)}`")
    return program


def _normalize_path_prefix(path_prefix):
    if not isinstance(path_prefix, str):
        raise ValueError(f"'path_prefix' should be a string, got {type(path_prefix).__name__}")
    if path_prefix.endswith("/") or (os.sep != "/" and path_prefix.endswith(os.sep)):
        raise ValueError("'path_prefix' should not be a directory")
    return os.path.abspath(os.path.normpath(path_prefix))


def _device(executor):
    return executor._device if executor is not None and hasattr(executor, "_device") else to_torch_device(None)


# -- scope values <-> tensor records ------------------------------------------------------------------------
_BITS = {torch.bfloat16: np.uint16, torch.float8_e4m3fn: np.uint8, torch.float8_e5m2: np.uint8}


def _record(scope, var):
    """The scope value of ``var`` as a TensorRecord (bfloat16/float8 as raw bits, with their VarType)."""
    found = scope.find_var(var.name)
    t = None if found is None else found._value
    if t is None:
        raise RuntimeError(f"cannot save variable {var.name!r}: it holds no value in the scope (run the startup "
                           "program first)")
    t = t.detach().cpu().contiguous()
    bits = _BITS.get(t.dtype)
    if bits is not None:
        array = t.view(torch.int16 if bits is np.uint16 else torch.uint8).numpy().view(bits)
    else:
        array = t.numpy()
    lod = getattr(found, "lod", None) or ()
    return TensorRecord(array, _dtype.from_torch_dtype(t.dtype).proto, lod)


def _to_torch(array, dtype=None):
    """NumPy array -> torch tensor; ``dtype`` (a Paddle dtype) says how raw bits (uint16/uint8) read."""
    array = np.ascontiguousarray(array)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    if dtype is not None and dtype.name == "bfloat16" and array.dtype == np.uint16:
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    if dtype is not None and dtype.name.startswith("float8") and array.dtype == np.uint8:
        return torch.from_numpy(array.copy()).view(dtype.torch)
    if array.dtype == np.uint16:   # as paddle.to_tensor reads it: bfloat16 bits
        return torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    if array.dtype.kind not in "biufc":
        raise TypeError(f"an array of dtype {array.dtype} cannot be a tensor value")
    return torch.from_numpy(array.copy())


def _set_value(scope, name, value, device, lod=()):
    holder = scope.var(name)
    holder._value = value.to(device) if value.device != device else value
    if lod:
        holder.lod = [list(level) for level in lod]


def _stream(scope, variables):
    return write_tensors([_record(scope, v) for v in sorted(variables, key=lambda v: v.name)])


def _load_stream(data, variables, scope, device, where):
    """Set ``variables`` (sorted by name) from the tensor stream ``data``; checks count, dtypes and shapes."""
    variables = sorted(variables, key=lambda v: v.name)
    try:
        records = read_records(data, count=len(variables))
    except ValueError as e:
        raise ValueError(f"{where}: {e} (expected the values of {len(variables)} variables)") from None
    for var, record in zip(variables, records):
        _check_loaded(var, record.array.shape, record.dtype, where)
        try:
            dtype = _dtype.convert_dtype(record.data_type)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: variable {var.name!r} holds {record.dtype} values, which torchpaddle "
                             "tensors cannot hold") from None
        _set_value(scope, var.name, _to_torch(record.array, dtype), device, record.lod)


def _check_loaded(var, shape, dtype_name, where):
    want = var.desc_shape
    if want and all(d >= 0 for d in want) and tuple(want) != tuple(shape):
        raise RuntimeError(f"{where}: shape mismatch, the program needs variable {var.name!r} with shape "
                           f"{list(want)}, but the loaded value has shape {list(shape)}")
    if var.var_type in ("LOD_TENSOR", "DENSE_TENSOR") and dtype_name != var.dtype.name:
        raise RuntimeError(f"{where}: dtype mismatch, the program needs variable {var.name!r} of dtype "
                           f"{var.dtype.name}, but the loaded value is {dtype_name}")


# -- files --------------------------------------------------------------------------------------------------
def save_to_file(path, content):
    """Write ``content`` (bytes) to ``path``, atomically."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    if not isinstance(path, str):
        raise TypeError(f"save_to_file: path must be a str, got {type(path).__name__}")
    _fio._atomic_write(path, lambda f: f.write(content))


def load_from_file(path):
    if not isinstance(path, str):
        raise TypeError(f"load_from_file: path must be a str, got {type(path).__name__}")
    with open(path, "rb") as f:
        return f.read()


def _var_file(dirname, name):
    """``dirname/name``, the file of one variable (1.x per-variable layout). Names come from programs, which
    may come from files: one that would reach outside ``dirname`` is refused (Paddle would follow it)."""
    parts = name.replace("\\", "/").split("/")
    if "\x00" in name or os.path.isabs(name) or os.path.splitdrive(name)[0] or \
            any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"variable {name!r} cannot have its own file in {dirname!r}: its name must be a relative "
                         "path inside the folder (no '..', '.' or empty part, no absolute path or drive, no NUL)")
    return os.path.join(dirname, name)


def _read_file(path, what):
    if not os.path.isfile(path):
        raise _fio._PathNotFoundError(errno.ENOENT, f"{what} {path} does not exist", path)
    return load_from_file(path)


# -- program bytes ------------------------------------------------------------------------------------------
def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The normalized program (pruned to the fetch targets, feed/fetch ops) as ProgramDesc bytes."""
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = normalize_program(_valid_program(kwargs.get("program")), feed_vars, fetch_vars)
    return program_io.program_to_desc_bytes(program)


def deserialize_program(data):
    """ProgramDesc (or PIR `.json`) bytes -> Program; ValueError for corrupt bytes or a newer program version."""
    if isinstance(data, (bytes, bytearray, memoryview)) and pir_program_io.is_pir_bytes(data):
        return pir_program_io.program_from_pir_bytes(data)
    program = Program.parse_from_string(data)
    version = getattr(program, "_desc_version", 0)
    if version > program_io._protos.PROGRAM_VERSION:
        raise ValueError(f"Unsupported program version: {version}\n")
    return program


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The persistable values the normalized program needs, as a tensor stream (None when there are none)."""
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = normalize_program(_valid_program(kwargs.get("program")), feed_vars, fetch_vars)
    variables = persistable_vars(program)
    if not variables:
        warnings.warn("no variable in your model, please ensure there are any variables in your model to save")
        return None
    return _stream(global_scope(), variables)


def deserialize_persistables(program, data, executor):
    """Set the persistables of ``program`` in the global scope from ``data`` (serialize_persistables' bytes)."""
    if not isinstance(program, Program):
        raise TypeError(f"program type must be `paddle.static.Program`, but received `{type(program)}`")
    variables = persistable_vars(program)
    if data is None:
        if any(isinstance(v, StaticParameter) for v in variables):
            raise ValueError("Required 'data' shall be not None if program contains parameter, but received "
                             "'data' is None.")
        return None
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"deserialize_persistables: data must be bytes, got {type(data).__name__}")
    _load_stream(data, variables, global_scope(), _device(executor), "deserialize_persistables")
    return None


# -- inference models ---------------------------------------------------------------------------------------
# the files of a save_inference_model / jit.save; one that a save does not write is left over from another
INFERENCE_FILES = (".pdmodel", ".json", ".pdiparams", ".pdiparams.info")


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Write ``path_prefix.json`` (the normalized program as PIR; ``.pdmodel``, extra attributes clipped, with
    FLAGS_enable_pir_api off) and ``path_prefix.pdiparams`` (its persistables from the global scope)."""
    path_prefix = _normalize_path_prefix(path_prefix)
    os.makedirs(os.path.dirname(path_prefix), exist_ok=True)
    model_path, params_path = path_prefix + ".pdmodel", path_prefix + ".pdiparams"
    for path in (path_prefix + ".json", model_path, params_path):
        if os.path.isdir(path):
            raise ValueError(f"'{path}' is an existing directory.")
    _check_vars("feed_vars", feed_vars)
    _check_vars("fetch_vars", fetch_vars)
    program = normalize_program(_valid_program(kwargs.get("program")), feed_vars, fetch_vars,
                                skip_prune_program=kwargs.get("skip_prune_program", False))
    def legacy():
        return program_io.program_to_desc_bytes(program, clip_extra=kwargs.get("clip_extra", True),
                                                training_info=False)
    model_suffix, model = (".pdmodel", legacy()) if kwargs.get("separate_parameters", False) else \
        pir_program_io.model_bytes(program, legacy, "save_inference_model")
    variables = persistable_vars(program)
    # values are gathered before anything is written, so a missing one leaves no half-saved model
    params = _stream(global_scope(), variables) if variables else None
    if kwargs.get("separate_parameters", False):
        paths = [_var_file(os.path.dirname(params_path), var.name) for var in variables]   # all, before writing
        save_to_file(os.path.join(os.path.dirname(model_path), "__model__"), model)
        for var, path in zip(variables, paths):
            save_to_file(path, write_tensors([_record(global_scope(), var)]))
        return
    if params is None:
        warnings.warn("no variable in your model, please ensure there are any variables in your model to save")
    members = [(model_suffix, model)] + ([(".pdiparams", params)] if params is not None else [])
    _atomic.write_set(path_prefix, members, INFERENCE_FILES)


def _with_suffix(path, suffix):
    """``path + suffix`` when that file exists, else ``path`` (how Paddle finds 1.x model files)."""
    return path + suffix if os.path.exists(path + suffix) else path


def load_inference_model(path_prefix, executor, **kwargs):
    """Load what save_inference_model wrote (here or by Paddle); returns
    ``[program, feed_target_names, fetch_targets]`` and sets the parameters in the global scope."""
    for key in kwargs:
        if key not in ("model_filename", "params_filename"):
            raise ValueError(f"load_inference_model: unsupported argument {key!r} (supported: model_filename, "
                             "params_filename)")
    model_filename, params_filename = kwargs.get("model_filename"), kwargs.get("params_filename")
    separate_dir = None
    if path_prefix is None:
        # from memory: the two arguments are the bytes themselves
        if params_filename is None:
            raise ValueError("params_filename cannot be None when path_prefix is None.")
        if not isinstance(model_filename, (bytes, bytearray)):
            raise ValueError("model_filename must be the program's bytes when path_prefix is None")
        program_bytes, params = bytes(model_filename), params_filename
    else:
        path_prefix = _normalize_path_prefix(path_prefix)
        if not os.path.isdir(os.path.dirname(path_prefix)):
            raise ValueError(f"There is no directory named {os.path.dirname(path_prefix)}")
        if not kwargs:
            model_path, params_path = pir_program_io.model_file(path_prefix), path_prefix + ".pdiparams"
        else:   # the 1.x layout: path_prefix is a folder holding the files
            named = os.path.join(path_prefix, model_filename) if model_filename is not None else None
            model_path = os.path.join(path_prefix, "__model__") if named is None else \
                named + ".json" if os.path.exists(named + ".json") else _with_suffix(named, ".pdmodel")
            if params_filename is None:
                params_path, separate_dir = None, path_prefix
            else:
                params_path = _with_suffix(os.path.join(path_prefix, params_filename), ".pdiparams")
        program_bytes = _read_file(model_path, "the model file")
        _atomic.check_member(model_path)  # refuse a torn save (see framework.atomic)
        params = None
    try:
        program = deserialize_program(program_bytes)
        # NOTE: Paddle loads a model holding ops it cannot run and fails at the first run; the model is loaded
        # to be run, so every such op type is named here, at once
        program_io.check_op_types(program)
    except ValueError as e:
        where = "the model bytes" if path_prefix is None else model_path
        raise ValueError(f"load_inference_model: cannot load {where}: {e}") from None
    variables = persistable_vars(program)
    if variables:
        scope, device = global_scope(), _device(executor)
        if separate_dir is not None:
            for var, path in [(var, _var_file(separate_dir, var.name)) for var in variables]:
                _load_stream(_read_file(path, "the variable file"), [var], scope, device, path)
        else:
            if params is None:
                params = _read_file(params_path, "the parameter file")
            load_params(params, variables, scope, device, "the parameter bytes" if path_prefix is None else
                        params_path, pir_program_io.is_pir_bytes(program_bytes))
    feed_names = program_io.feed_target_names(program)
    fetch_targets = [program.global_block().var(n) for n in program_io.fetch_target_names(program)]
    return [program, feed_names, fetch_targets]


def load_params(data, variables, scope, device, where, pir=False):
    """``_load_stream`` for a saved model; for a `.json` program a parameter whose stored shape or dtype is not
    the one the program declares is a ValueError (the file lies about it)."""
    try:
        _load_stream(data, variables, scope, device, where)
    except RuntimeError as e:
        if not pir:
            raise
        raise ValueError(str(e)) from None


# -- save_vars / load_vars (the 1.x per-variable and combined files) --------------------------------------
def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    """Save ``vars`` (or the program's variables passing ``predicate``) to one file per variable in
    ``dirname``, to ``dirname/filename`` as one stream, or, with neither, return the stream's bytes."""
    program = _valid_program(main_program)
    if vars is None:
        vars = [v for v in program.list_vars() if predicate is None or predicate(v)]
    vars = [v for v in vars if program_io._kind_code(v.var_type) != _pb.VarType.RAW]
    if not vars:
        warnings.warn("no variable in your model, please ensure there are any variables in your model to save")
        return None
    scope = global_scope()
    if dirname is None and filename is None:
        return _stream(scope, vars)
    if filename is None:
        for var, path in [(var, _var_file(os.path.normpath(dirname), var.name)) for var in vars]:
            save_to_file(path, write_tensors([_record(scope, var)]))
        return None
    save_to_file(os.path.join(os.path.normpath(dirname), filename), _stream(scope, vars))
    return None


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None):
    program = _valid_program(main_program)
    if vars is None:
        vars = [v for v in program.list_vars() if predicate is None or predicate(v)]
    vars = [v for v in vars if program_io._kind_code(v.var_type) != _pb.VarType.RAW]
    scope, device = global_scope(), _device(executor)
    if filename:
        path = filename if dirname is None else os.path.join(dirname, filename)
        _load_stream(_read_file(path, "the variables file"), vars, scope, device, path)
        return
    if dirname is None:
        raise ValueError("The directory path and params cannot be None at the same time.")
    for var, path in [(var, _var_file(dirname, var.name)) for var in vars]:
        _load_stream(_read_file(path, "the variable file"), [var], scope, device, path)


def get_program_persistable_vars(program):
    return persistable_vars(program, unique=False)


# -- static.save / static.load / program state ---------------------------------------------------------------
def _is_optimizer_var(var):
    return not isinstance(var, StaticParameter) and not var.need_check_feed and is_persistable(var)


def _scope_array(scope, var):
    record = _record(scope, var)
    return record.array


def save(program, model_path, protocol=4, **configs):
    """Write ``model_path.pdparams`` (parameters), ``.pdopt`` (other persistables) and ``.pdmodel``."""
    if not isinstance(program, Program):
        raise TypeError(f"static.save: program must be a Program, got {type(program).__name__}")
    if not isinstance(model_path, str) or os.path.basename(model_path) == "":
        raise ValueError("The input model_path MUST be format of dirname/filename [dirname\\filename in Windows "
                         f"system], but received model_path is {model_path!r}.")
    if "pickle_protocol" in configs:
        protocol = configs.pop("pickle_protocol")
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' instead.")
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise ValueError(f"The 'protocol' MUST be `int`, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"Expected 1<'protocol'<5, but received protocol={protocol}")
    scope = global_scope()
    params = {v.name: _scope_array(scope, v) for v in program.list_vars() if isinstance(v, StaticParameter)}
    opts = {v.name: _scope_array(scope, v) for v in program.list_vars() if _is_optimizer_var(v)}
    if protocol < 4:
        _fio._split_big_arrays(params)
    model = program_io.program_to_desc_bytes(program)
    _atomic.write_set(model_path, [(".pdparams", lambda f: pickle.dump(params, f, protocol=protocol)),
                                   (".pdopt", lambda f: pickle.dump(opts, f, protocol=protocol)),
                                   (".pdmodel", model)], _SUFFIXES)


_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel")


def _model_prefix(model_path):
    if not isinstance(model_path, str):
        raise TypeError(f"model_path must be a str, got {type(model_path).__name__}")
    for suffix in _SUFFIXES:
        if model_path.endswith(suffix):
            return model_path[:-len(suffix)]
    return model_path


def _load_dict(path):
    """A pickled {name: ndarray} (.pdparams/.pdopt) through the allow-list unpickler."""
    result = _fio.load(path, return_numpy=True)
    if not isinstance(result, dict) or not all(isinstance(k, str) for k in result):
        raise ValueError(f"{path} is not a parameter file: it holds a {type(result).__name__}, expected a dict of "
                         "name -> array")
    out = {}
    for key, value in result.items():
        if isinstance(value, Tensor):
            value = value.numpy()
        if not isinstance(value, np.ndarray):
            raise ValueError(f"{path}: entry {key!r} is a {type(value).__name__}, expected an array")
        out[key] = value
    return out


def _set_array(scope, var, array, device):
    _set_value(scope, var.name, _to_torch(array, var.dtype), device)


def load(program, model_path, executor=None, var_list=None):
    """Set the program's parameters and optimizer variables from what static.save (or save_vars /
    save_persistables) wrote at ``model_path``."""
    if not isinstance(program, Program):
        raise TypeError(f"static.load: program must be a Program, got {type(program).__name__}")
    prefix = _model_prefix(model_path)
    scope, device = global_scope(), _device(executor)
    params_file = prefix + ".pdparams"
    if not os.path.exists(params_file):
        if executor is None:
            raise ValueError("executor is required when loading model file saved with [ save_params, "
                             "save_persistables, save_vars ]")
        _load_legacy(program, model_path, executor, var_list)
        return
    loaded = _load_dict(params_file)
    for var in [v for v in program.list_vars() if isinstance(v, StaticParameter)]:
        if var.name not in loaded:
            raise ProgramStateError(f"Cannot find [{var.name}] in model file [{params_file}]")
        _set_array(scope, var, loaded[var.name], device)
    opt_vars = [v for v in program.list_vars() if _is_optimizer_var(v)]
    if opt_vars:
        opt_file = prefix + ".pdopt"
        if not os.path.exists(opt_file):
            raise ProgramStateError(f"Optimizer file [{opt_file}] not exits")
        loaded = _load_dict(opt_file)
        for var in opt_vars:
            if var.name not in loaded:
                raise ProgramStateError(f"Can not find [{var.name}] in model file [{opt_file}]")
            _set_array(scope, var, loaded[var.name], device)


def _load_legacy(program, model_path, executor, var_list):
    names = None if var_list is None else {v.name for v in var_list}
    if os.path.isdir(model_path):
        files = {os.path.relpath(os.path.join(root, f), model_path).replace("\\", "/")
                 for root, _, found in os.walk(model_path) for f in found}
        chosen = [v for v in program.list_vars() if v.name in files and (names is None or v.name in names)]
        unused = files - {v.name for v in chosen}
        if unused:
            warnings.warn(f"variable file [ {' '.join(sorted(unused))} ] not used")
        load_vars(executor, model_path, program, vars=chosen)
    elif os.path.isfile(model_path):
        if var_list is None:
            raise ValueError("var_list is required when loading model file saved with [ save_params, "
                             "save_persistables, save_vars ]")
        known = {v.name for v in program.list_vars()}
        for var in var_list:
            if var.name not in known:
                raise LookupError(f"loaded var [{var.name}] is not in program variable list")
        load_vars(executor, os.path.dirname(model_path), program, vars=list(var_list),
                  filename=os.path.basename(model_path))
    else:
        raise _fio._PathNotFoundError(errno.ENOENT, f"static.load: neither {model_path}.pdparams nor {model_path} "
                                      "exists", model_path)


def load_program_state(model_path, var_list=None):
    """{name: ndarray} from static.save's files, or from save_vars' per-variable files / combined file."""
    prefix = _model_prefix(model_path)
    params_file = prefix + ".pdparams"
    if os.path.exists(params_file):
        state = _load_dict(params_file)
        if os.path.exists(prefix + ".pdopt"):
            state.update(_load_dict(prefix + ".pdopt"))
        return state
    if os.path.isfile(model_path):
        if var_list is None:
            raise ValueError("var_list can not be None when model_path is a file type")
        records = read_records(_read_file(model_path, "the variables file"), count=len(var_list))
        ordered = sorted(var_list, key=lambda v: v.name)
        return {v.name: r.array for v, r in zip(ordered, records)}
    if not os.path.isdir(model_path):
        raise _fio._PathNotFoundError(errno.ENOENT, f"load_program_state: neither {prefix}.pdparams nor "
                                      f"{model_path} exists", model_path)
    if var_list is not None:
        wanted = [v.name for v in var_list]
    else:
        wanted = sorted(os.path.relpath(os.path.join(root, f), model_path).replace("\\", "/")
                        for root, _, found in os.walk(model_path) for f in found)
    state = {}
    for name in wanted:
        path = _var_file(model_path, name)
        try:
            (record,) = read_records(_read_file(path, "the variable file"), count=1)
        except (ValueError, OSError) as e:
            if var_list is not None:
                raise RuntimeError(f"Failed to load variable {name!r} from {path}: {e}") from None
            warnings.warn(f"Failed to load model/variables `{name}`: {e}", RuntimeWarning)
            continue
        state[name] = record.array
    return state


def set_program_state(program, state_dict):
    """Set the persistables of ``program`` (already in the scope: run the startup program first) from
    ``state_dict``; shapes and dtypes must match; unused entries give a warning."""
    if not isinstance(program, Program):
        raise TypeError(f"set_program_state: program must be a Program, got {type(program).__name__}")
    if not isinstance(state_dict, dict):
        raise TypeError(f"set_program_state: state_dict must be a dict, got {type(state_dict).__name__}")
    state_dict = dict(state_dict)
    _fio._merge_split_arrays(state_dict)
    scope = global_scope()
    used = set()
    for var in persistable_vars(program, unique=False):
        found = scope.find_var(var.name)
        if found is None or found._value is None:
            raise ProgramStateError(f"Variable [ {var.name} ] Not found, Please make sure run startup program")
        if var.name not in state_dict:
            continue
        value = state_dict[var.name]
        if isinstance(value, Tensor):
            value = value.numpy()
        value = np.asarray(value)
        current = found._value
        if tuple(current.shape) != value.shape:
            raise ProgramStateError(f"Parameter's shape does not match, the Program requires a parameter with the "
                                    f"shape of ({tuple(current.shape)}), while the loaded parameter (namely "
                                    f"[ {var.name} ]) has a shape of  ({value.shape}).")
        want = _dtype.from_torch_dtype(current.dtype)
        bits = want.name == "bfloat16" and value.dtype == np.uint16
        if not bits and (want.numpy is None or np.dtype(want.numpy) != value.dtype):
            raise ProgramStateError(f"Parameter's data type does not match, the Program requires a parameter with a "
                                    f"dtype of ({want.name}), while the loaded parameter (namely [ {var.name} ]) "
                                    f"has a dtype of  ({value.dtype}).")
        _set_value(scope, var.name, _to_torch(value, want), current.device)
        used.add(var.name)
    unused = [k for k in state_dict if k not in used]
    if unused:
        warnings.warn("This list is not set, Because of Parameter not found in program. There are: "
                      + " ".join(unused))


# -- paddle.save(program) / paddle.load of a .pdmodel --------------------------------------------------------
def _load_program_file(data, config):
    try:
        desc = parse_program(data)
    except ValueError:
        return None   # not a ProgramDesc: let paddle.load report the file as unreadable
    return program_io.program_from_desc(desc)


_fio.register_saver(Program, program_io.program_to_desc_bytes)
_fio.register_file_loader(_load_program_file)
