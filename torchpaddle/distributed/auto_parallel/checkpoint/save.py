"""``save_state_dict``: each process writes its chunks to ``<rank>_<id>.distcp`` (a paddle.save pickle of NumPy
arrays with the ``StructuredToParameterName@@`` name table) and the coordinator writes ``<id>.metadata``
listing every chunk of every tensor and the file holding it; a chunk several processes hold is written once,
spread over the files as Paddle does."""
import collections
import dataclasses
import os

from ....framework.io import save as _paddle_save
from ....framework.tensor import wrap
from ... import collective as _collective
from ... import env as _env
from ... import group as _group
from .chunks import chunk_of, dtype_name, flatten_state_dict
from .sharded_weight import ShardedWeight
from .metadata import DATA_FILE, LocalTensorIndex, LocalTensorMetadata, Metadata, write_metadata

__all__ = ["save_state_dict"]


def _world(process_group, api):
    """True when this is a multi-process job (the default group is started as Paddle does)."""
    if _env.get_world_size() <= 1:
        return False
    if process_group is None and not _group.is_initialized():
        _env.init_parallel_env()
    return True


def existing_id(path):
    """The highest ``<id>`` of the ``<rank>_<id>.distcp`` files in ``path`` (0 when none), as Paddle picks it."""
    ids = [int(m.group(2)) for m in map(DATA_FILE.match, os.listdir(path)) if m]
    return max(ids, default=0)


def _check_id(unique_id, api):
    if unique_id is not None and (not isinstance(unique_id, int) or isinstance(unique_id, bool) or unique_id < 0):
        raise ValueError(f"{api}: unique_id must be an int >= 0 or None, got {unique_id!r}")


def save_state_dict(state_dict, path, process_group=None, coordinator_rank=0, unique_id=None, async_save=False,
                    safetensors=False, save_replicas=False):
    """Save a (nested) dict of Tensors, dist tensors and ShardedWeights to the folder ``path``; every process
    of the job calls it. ``async_save`` saves before returning (the files are the same)."""
    api = "save_state_dict"
    if safetensors:
        raise NotImplementedError(f"{api}: safetensors=True is not supported by torchpaddle")
    if not isinstance(path, str):
        raise TypeError(f"{api}: path must be a str, got {type(path).__name__}")
    _check_id(unique_id, api)
    flat, mapping = flatten_state_dict(state_dict, api)
    use_dist = _world(process_group, api)
    os.makedirs(path, exist_ok=True)
    if unique_id is None:
        unique_id = existing_id(path)
    rank = _env.get_rank()
    file_name = f"{rank}_{unique_id}.distcp"

    local_tensors, local_meta, local_storage = {}, {}, {}
    for key, value in flat.items():
        chunk = chunk_of(value)
        if chunk.local is None:
            continue
        if chunk.local.numel() == 0 and all(chunk.global_shape):
            continue   # an empty shard of a non-empty tensor (uneven split): nothing to save
        name = value.local_tensor.name if isinstance(value, ShardedWeight) else value.name
        local_tensors[key] = (chunk.local, name)
        local_meta[key] = LocalTensorMetadata(chunk.offset, chunk.shape, dtype_name(chunk.local),
                                              tuple(chunk.global_shape), False, None)
        local_storage[LocalTensorIndex(key, chunk.offset, local_shape=chunk.shape)] = file_name

    if use_dist:
        gathered = []
        _collective.all_gather_object(gathered, (unique_id, local_meta, local_storage, mapping), process_group)
        if any(g[0] != unique_id for g in gathered):
            raise ValueError(f"{api}: the processes chose different unique_ids {[g[0] for g in gathered]}")
    else:
        gathered = [(unique_id, local_meta, local_storage, mapping)]
    metadata = Metadata(_merge_chunks([g[1] for g in gathered]),
                        _assign_files([g[2] for g in gathered], save_replicas),
                        _first_wins([g[3] for g in gathered]))
    writer = _coordinator(process_group, coordinator_rank, api)
    if not use_dist or rank == writer:
        write_metadata(os.path.join(path, f"{unique_id}.metadata"), metadata)

    mine = {index.tensor_key for index, name in metadata.storage_metadata.items() if name == file_name}
    out = {}
    for key, (local, name) in local_tensors.items():
        if key in mine:
            out[key] = wrap(local.detach())
            out[key].name = name
    _paddle_save(out, os.path.join(path, file_name))
    if use_dist:
        _collective.barrier(process_group)


def _coordinator(process_group, coordinator_rank, api):
    ranks = list(range(_env.get_world_size())) if process_group is None else list(process_group.ranks)
    if not isinstance(coordinator_rank, int) or not 0 <= coordinator_rank < len(ranks):
        raise ValueError(f"{api}: coordinator_rank must be a rank of the group (0..{len(ranks) - 1}), "
                         f"got {coordinator_rank!r}")
    return ranks[coordinator_rank]


def _merge_chunks(per_rank):
    out = {}
    for meta in per_rank:
        for key, chunk in meta.items():
            chunks = out.setdefault(key, [])
            if chunk not in chunks:
                chunks.append(chunk)
    return out


def _first_wins(per_rank):
    out = {}
    for mapping in per_rank:
        for key, value in mapping.items():
            out.setdefault(key, value)
    return out


def _assign_files(per_rank, save_replicas):
    """Each chunk goes to the least loaded of the files holding it (ties: the first by name); with
    ``save_replicas`` the other holders keep copies numbered by ``replica_id``."""
    holders = collections.defaultdict(set)
    for storage in per_rank:
        for index, file_name in storage.items():
            holders[index].add(file_name)
    load, out = collections.defaultdict(int), {}
    for index, files in holders.items():
        candidates = sorted(files)
        main = min(candidates, key=lambda f: load[f])
        load[main] += 1
        if not save_replicas:
            out[index] = main
            continue
        out[dataclasses.replace(index, replica_id=0)] = main
        for replica, other in enumerate((f for f in candidates if f != main), start=1):
            out[dataclasses.replace(index, replica_id=replica)] = other
    return out
