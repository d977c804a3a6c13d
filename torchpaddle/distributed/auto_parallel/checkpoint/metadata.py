"""The ``<id>.metadata`` file of a sharded checkpoint: Paddle's three record classes, written under Paddle's
class names (so real Paddle unpickles them) and read back with the allow-list unpickler (nothing in the file
can run code). Every field is checked after loading: a file name must be a ``<rank>_<id>.distcp`` in the
checkpoint folder, offsets and shapes tuples of non-negative ints."""
import io
import pickle
import re
from dataclasses import dataclass, fields

from ....framework import atomic as _atomic
from ....framework.io import CorruptFileError, UnsafePickleError, _SafeUnpickler

__all__ = ["LocalTensorMetadata", "LocalTensorIndex", "Metadata", "write_metadata", "read_metadata",
           "DATA_FILE"]

DATA_FILE = re.compile(r"^(\d+)_(\d+)\.distcp$")


@dataclass(frozen=True)
class LocalTensorMetadata:
    """Where one saved chunk sits in its global tensor."""
    global_offset: tuple
    local_shape: tuple
    dtype: str
    global_shape: tuple = None
    is_flattened: bool = False
    flattened_range: tuple = None


@dataclass(frozen=True)
class LocalTensorIndex:
    """The key of one saved chunk in ``Metadata.storage_metadata``."""
    tensor_key: str
    global_offset: tuple
    is_flattened: bool = False
    flattened_range: tuple = None
    replica_id: int = None
    local_shape: tuple = None


@dataclass
class Metadata:
    state_dict_metadata: dict = None    # key -> [LocalTensorMetadata]
    storage_metadata: dict = None       # LocalTensorIndex -> "<rank>_<id>.distcp"
    flat_mapping: dict = None           # flat key -> tuple of nested keys


_CLASSES = (LocalTensorMetadata, LocalTensorIndex, Metadata)
_FIELDS = {cls: frozenset(f.name for f in fields(cls)) for cls in _CLASSES}
# 3.3.1 writes flex_checkpoint.dcp.metadata; checkpoints of 2.6-3.0 name paddle.distributed.checkpoint.metadata
_PADDLE_MODULE = "paddle.distributed.flex_checkpoint.dcp.metadata"
_READ_AS = {(module, cls.__name__): cls for cls in _CLASSES
            for module in (_PADDLE_MODULE, "paddle.distributed.checkpoint.metadata", __name__)}


class _Pickler(pickle._Pickler):
    """Writes our record classes under Paddle's module name (pickle would otherwise check it is importable)."""

    def save_global(self, obj, name=None):
        if obj not in _CLASSES:
            return super().save_global(obj, name)
        self.save(_PADDLE_MODULE)
        self.save(obj.__name__)
        self.write(pickle.STACK_GLOBAL)
        self.memoize(obj)


def write_metadata(path, metadata):
    """Write ``metadata`` to ``path`` as paddle.save does (a protocol-4 pickle), atomically."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=4).dump(metadata)
    data = buffer.getvalue()
    _atomic.write_file(path, lambda f: f.write(data))


class _Unpickler(_SafeUnpickler):
    def find_class(self, module, name):
        found = _READ_AS.get((module, name))
        return found if found is not None else super().find_class(module, name)

    def load_build(self):
        inst, state = self.stack[-2:] if len(self.stack) >= 2 else (None, None)
        if type(inst) not in _FIELDS:
            return _SafeUnpickler.load_build(self)
        if not isinstance(state, dict) or not set(state) <= _FIELDS[type(inst)]:
            raise CorruptFileError(f"load_state_dict: bad state for a {type(inst).__name__} in the metadata")
        for value in state.values():
            self._check_key(value)   # frozen records are hashed as dict keys: no deeply nested tuples
        pickle._Unpickler.load_build(self)

    dispatch = dict(_SafeUnpickler.dispatch)
    dispatch[pickle.BUILD[0]] = load_build


def read_metadata(path):
    """The Metadata in ``path``, checked field by field; a hostile or corrupt file raises, nothing runs."""
    with open(path, "rb") as f:
        try:
            found = _Unpickler(f, encoding="latin1").load()
        except UnsafePickleError as e:
            raise UnsafePickleError(f"load_state_dict: refused to read {path}: {e}") from None
        except CorruptFileError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure inside the restricted unpickler is a bad file
            raise CorruptFileError(f"load_state_dict: {path} is truncated or not a checkpoint metadata file "
                                   f"({type(e).__name__}: {e})") from None
    try:
        _check_metadata(found)
    except (TypeError, ValueError, AttributeError) as e:
        raise CorruptFileError(f"load_state_dict: {path} is not a valid checkpoint metadata file: {e}") from None
    return found


def _is_shape(value, allow_none=False):
    if value is None:
        return allow_none
    return type(value) is tuple and all(type(v) is int and v >= 0 for v in value)


def _check_metadata(md):
    if type(md) is not Metadata:
        raise TypeError(f"expected a Metadata record, got {type(md).__name__}")
    if type(md.state_dict_metadata) is not dict or type(md.storage_metadata) is not dict:
        raise TypeError("state_dict_metadata and storage_metadata must be dicts")
    for key, chunks in md.state_dict_metadata.items():
        if type(key) is not str or type(chunks) is not list or not chunks:
            raise TypeError(f"state_dict_metadata[{key!r}] must be a non-empty list")
        for chunk in chunks:
            if (type(chunk) is not LocalTensorMetadata or not _is_shape(chunk.global_offset)
                    or not _is_shape(chunk.local_shape) or type(chunk.dtype) is not str
                    or not _is_shape(chunk.global_shape, True)
                    or len(chunk.global_offset) != len(chunk.local_shape)):
                raise ValueError(f"bad chunk record for {key!r}: {chunk!r}")
    for index, file_name in md.storage_metadata.items():
        if (type(index) is not LocalTensorIndex or type(index.tensor_key) is not str
                or not _is_shape(index.global_offset) or not _is_shape(index.local_shape, True)
                or not (index.replica_id is None or type(index.replica_id) is int)):
            raise ValueError(f"bad storage record {index!r}")
        if type(file_name) is not str or not DATA_FILE.match(file_name):
            raise ValueError(f"storage file {file_name!r} is not a <rank>_<id>.distcp file name")
    if md.flat_mapping is not None:
        if type(md.flat_mapping) is not dict or not all(
                type(k) is str and type(v) is tuple and all(type(p) is str for p in v)
                for k, v in md.flat_mapping.items()):
            raise ValueError("flat_mapping must map str to a tuple of str")
