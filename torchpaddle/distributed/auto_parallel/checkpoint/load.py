"""``load_state_dict`` (in place, resharded to whatever mesh and placements the target tensors have, any number
of processes) and ``load_merged_state_dict`` (whole tensors in one process).

Which saved chunks overlap the chunk a process needs is torch.distributed.checkpoint's planning
(``create_read_items_for_chunk_list``); the files are read with paddle.load's allow-list unpickler. Every
process reads the chunks it needs from ``path`` itself, so ``path`` must be visible to all of them (a shared
or local folder), where Paddle ships chunks between GPUs.
"""
import math
import os
import warnings

import numpy as np
import torch
from torch.distributed.checkpoint.metadata import ChunkStorageMetadata, TensorProperties, TensorStorageMetadata
from torch.distributed.checkpoint.planner_helpers import create_read_items_for_chunk_list
from torch.distributed.tensor import DTensor, Partial as _Partial, Replicate as _Replicate

from ....framework import dtype as _dtype
from ....framework.io import CorruptFileError, load as _paddle_load
from ....framework.tensor import wrap
from ... import collective as _collective
from ..reshard import redistribute as _redistribute
from .chunks import dist_chunk, flatten_state_dict
from .metadata import read_metadata
from .save import _check_id, _world, existing_id
from .sharded_weight import ShardedWeight

__all__ = ["load_state_dict", "load_merged_state_dict"]

_COMM_METHODS = ("send_recv", "broadcast", "multi_group_broadcast", "grouped_send_recv", "parallel_broadcast")


def _open(path, unique_id, api):
    if not isinstance(path, str):
        raise TypeError(f"{api}: path must be a str, got {type(path).__name__}")
    _check_id(unique_id, api)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"{api}: the checkpoint folder {path!r} does not exist")
    if unique_id is None:
        unique_id = existing_id(path)
    file = os.path.join(path, f"{unique_id}.metadata")
    if not os.path.isfile(file):
        raise FileNotFoundError(f"{api}: {path!r} holds no {unique_id}.metadata (not a checkpoint saved with "
                                f"unique_id={unique_id})")
    return _Checkpoint(path, read_metadata(file), api)


class _Checkpoint:
    """The metadata of one checkpoint and the data files read so far."""

    def __init__(self, path, metadata, api):
        self.path, self.metadata, self.api, self._files = path, metadata, api, {}
        self._where = {}   # (key, global_offset) -> file name; replicas other than the first are ignored
        for index, file_name in metadata.storage_metadata.items():
            if index.replica_id in (None, 0):
                self._where.setdefault((index.tensor_key, index.global_offset), file_name)

    def keys(self):
        return self.metadata.state_dict_metadata.keys()

    def global_shape(self, key):
        chunks = self.metadata.state_dict_metadata[key]
        if chunks and chunks[0].global_shape is not None:
            return tuple(chunks[0].global_shape)
        ndim = len(chunks[0].local_shape) if chunks else 0
        return tuple(max((c.global_offset[d] + c.local_shape[d] for c in chunks), default=0) for d in range(ndim))

    def dtype(self, key):
        return self.metadata.state_dict_metadata[key][0].dtype

    def _array(self, file_name, key, chunk):
        if file_name not in self._files:
            found = _paddle_load(os.path.join(self.path, file_name), return_numpy=True)
            if not isinstance(found, dict):
                raise CorruptFileError(f"{self.api}: {file_name} does not hold a dict of arrays")
            self._files[file_name] = found
        array = self._files[file_name].get(key)
        if not isinstance(array, np.ndarray) or tuple(array.shape) != tuple(chunk.local_shape):
            raise CorruptFileError(f"{self.api}: {file_name} lacks {key!r} of shape {list(chunk.local_shape)} that "
                                   "the metadata places there")
        t = torch.from_numpy(array)
        if chunk.dtype == "bfloat16" and array.dtype == np.uint16:   # paddle.save keeps bfloat16 as its bits
            t = t.view(torch.bfloat16)
        return t

    def fill(self, key, buffer, offset):
        """Copy the part of ``key`` at ``offset`` (of ``buffer``'s shape) into ``buffer``."""
        chunks = self.metadata.state_dict_metadata[key]
        saved = TensorStorageMetadata(TensorProperties(dtype=buffer.dtype), torch.Size(self.global_shape(key)),
                                      [ChunkStorageMetadata(torch.Size(c.global_offset), torch.Size(c.local_shape))
                                       for c in chunks])
        wanted = ChunkStorageMetadata(torch.Size(offset), torch.Size(buffer.shape))
        covered = 0
        for item in create_read_items_for_chunk_list(key, saved, [wanted]):
            chunk = chunks[item.storage_index.index]
            file_name = self._where.get((key, tuple(chunk.global_offset)))
            if file_name is None:
                raise CorruptFileError(f"{self.api}: the metadata names no file for {key!r} at offset "
                                       f"{list(chunk.global_offset)}")
            source = self._array(file_name, key, chunk)
            src = tuple(slice(o, o + n) for o, n in zip(item.storage_offsets, item.lengths))
            dst = tuple(slice(o, o + n) for o, n in zip(item.dest_offsets, item.lengths))
            buffer[dst] = source[src].to(buffer.dtype)
            covered += math.prod(item.lengths)
        if covered != buffer.numel():
            raise ValueError(f"{self.api}: the checkpoint holds only {covered} of the {buffer.numel()} values of "
                             f"{key!r} at offset {list(offset)} (an incomplete checkpoint)")


def _master_weight_alias(key, saved_keys):
    """Paddle's dygraph/static names of an optimizer's master weight: ``opt.master_weights.w`` <->
    ``opt.w_fp32_master_0``."""
    parts = key.split(".")
    if "master_weights" in parts:
        parts.remove("master_weights")
        alias = ".".join(parts) + "_fp32_master_0"
    elif parts[-1].endswith("_fp32_master_0"):
        parts[-1] = parts[-1][:-len("_fp32_master_0")]
        parts.insert(1, "master_weights")
        alias = ".".join(parts)
    else:
        return None
    return alias if alias in saved_keys else None


def load_state_dict(state_dict, path, process_group=None, coordinator_rank=0, unique_id=None, offload=False,
                    mw_name_compatibility=True, aoa_config=None, safetensors=False, worker_groups=None,
                    comm_method="broadcast"):
    """Fill the tensors of ``state_dict`` (nested dicts of Tensors, dist tensors, ShardedWeights) in place from
    the checkpoint in ``path``, whatever mesh, placements and number of processes it was saved with."""
    api = "load_state_dict"
    if safetensors or aoa_config is not None:
        raise NotImplementedError(f"{api}: {'safetensors=True' if safetensors else 'aoa_config'} is not "
                                  "supported by torchpaddle")
    if comm_method not in _COMM_METHODS:
        raise ValueError(f"{api}: invalid comm_method {comm_method!r}; choose from {list(_COMM_METHODS)}")
    flat, _ = flatten_state_dict(state_dict, api)
    if _world(process_group, api):
        _collective.barrier(process_group)   # every process's save is complete
    checkpoint = _open(path, unique_id, api)
    missing = []
    for key, value in flat.items():   # the same order everywhere: a Partial target reshards collectively
        source = key
        if key not in checkpoint.keys():
            source = _master_weight_alias(key, checkpoint.keys()) if mw_name_compatibility else None
            if source is None:
                missing.append(key)
                continue
        _load_one(checkpoint, source, key, value, api)
    if missing:
        warnings.warn(f"{api}: the following keys are not found in the checkpoint {path!r} and were left "
                      f"unchanged: {missing}")


def _load_one(checkpoint, source, key, value, api):
    if isinstance(value, ShardedWeight):
        dest, offset, global_shape, partial = value.local_tensor._t, value.global_offset, value.global_shape, None
    elif isinstance(value._t, DTensor):
        t = value._t
        chunk = dist_chunk(t._local_tensor, t.device_mesh, t.placements, tuple(t.shape))
        if chunk.local is None:
            return   # this process is not in the tensor's mesh
        dest, offset, global_shape = chunk.local, chunk.offset, chunk.global_shape
        partial = t if any(isinstance(p, _Partial) for p in t.placements) else None
    else:
        dest, offset, global_shape, partial = value._t, (0,) * value._t.dim(), tuple(value._t.shape), None
    saved_shape = checkpoint.global_shape(source)
    if tuple(global_shape) != saved_shape:
        raise ValueError(f"{api}: {key!r} has shape {list(global_shape)} but the checkpoint holds "
                         f"{source!r} of shape {list(saved_shape)}")
    buffer = torch.empty(dest.shape, dtype=dest.dtype)
    if buffer.numel():
        checkpoint.fill(source, buffer, offset)
    if partial is not None:
        plain = tuple(_Replicate() if isinstance(p, _Partial) else p for p in partial.placements)
        whole = DTensor.from_local(buffer.to(dest.device), partial.device_mesh, plain, run_check=False,
                                   shape=partial.shape, stride=partial.stride())
        buffer = _redistribute(whole, tuple(partial.placements)).to_local()
    with torch.no_grad():
        dest.copy_(buffer)


def load_merged_state_dict(path, prefix=None, unique_id=None, offload=False, aoa_config=None, safetensors=False):
    """The whole (unsharded) tensors of a checkpoint, read in this process; with ``prefix``, only keys starting
    with it, returned without ``prefix.``."""
    api = "load_merged_state_dict"
    if safetensors or aoa_config is not None:
        raise NotImplementedError(f"{api}: {'safetensors=True' if safetensors else 'aoa_config'} is not "
                                  "supported by torchpaddle")
    if prefix is not None and not isinstance(prefix, str):
        raise TypeError(f"{api}: prefix must be a str or None, got {type(prefix).__name__}")
    checkpoint = _open(path, unique_id, api)
    out = {}
    for key in checkpoint.keys():
        if prefix is not None and not key.startswith(prefix):
            continue
        try:
            torch_dtype = _dtype.to_torch_dtype(checkpoint.dtype(key))
        except TypeError:
            raise CorruptFileError(f"{api}: unknown dtype {checkpoint.dtype(key)!r} for {key!r}") from None
        buffer = torch.zeros(checkpoint.global_shape(key), dtype=torch_dtype)
        if buffer.numel():
            checkpoint.fill(key, buffer, (0,) * buffer.dim())
        out[key[len(prefix) + 1:] if prefix else key] = wrap(buffer)
    return out
