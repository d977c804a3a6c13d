"""ProcessMesh -> torch DeviceMesh (cached), the job's process group for it, and the global mesh of
``set_mesh``/``get_mesh``.

Meshes equal in Paddle's sense (same shape and ids, any dim names) share one DeviceMesh, so tensors on them mix
in one op; ``process_mesh`` of a dist tensor reports the first such mesh made. A one-process job gets a private
one-rank gloo group on first use, so a one-process mesh works without ``init_parallel_env``.
"""

import numpy as np
import torch
import torch.distributed as _dist
from torch.distributed.device_mesh import DeviceMesh

from ...framework import hooks as _hooks
from ...framework.place import to_torch_device
from ...framework.process_mesh import ProcessMesh
from .. import env as _env
from .. import group as _group

__all__ = ["device_mesh", "process_mesh_of", "get_mesh", "set_mesh", "world_rank"]

_BY_KEY = {}       # (shape, ids) -> DeviceMesh
_MESH_OF = {}      # id(DeviceMesh) -> ProcessMesh
_GLOBAL_MESH = [None]


def _ensure_world():
    if _dist.is_initialized():
        return
    if _env.ParallelEnv().world_size > 1:
        _env.init_parallel_env()
        return
    # NOTE: torch's DeviceMesh needs a default process group, even for one process
    _dist.init_process_group("gloo", store=_dist.HashStore(), rank=0, world_size=1)


def _forget_meshes():
    _BY_KEY.clear()
    _MESH_OF.clear()


_env.WORLD_REPLACED.append(_forget_meshes)


def world_rank():
    _ensure_world()
    return _dist.get_rank()


def _key(mesh):
    return (tuple(mesh.shape), tuple(mesh.process_ids))


def device_mesh(mesh, what="shard_tensor"):
    """The torch DeviceMesh of a ProcessMesh (made once per shape and ids; every rank must make it, in order)."""
    if not isinstance(mesh, ProcessMesh):
        raise ValueError(f"{what}: mesh must be a paddle.distributed.ProcessMesh, got {type(mesh).__name__}")
    key = _key(mesh)
    found = _BY_KEY.get(key)
    if found is not None:
        return found
    _ensure_world()
    world = _dist.get_world_size()
    outside = [p for p in mesh.process_ids if p >= world]
    if outside:
        raise ValueError(f"{what}: process mesh {mesh.process_ids} holds ranks {outside} that are not in this "
                         f"job of {world} process(es)")
    device_type = to_torch_device(None).type
    found = DeviceMesh(device_type, torch.tensor(np.asarray(mesh.mesh), dtype=torch.int64))
    _BY_KEY[key] = found
    _MESH_OF[id(found)] = mesh
    return found


def process_mesh_of(torch_mesh):
    """The ProcessMesh a DeviceMesh was made for (one made by torch code gets default dim names)."""
    mesh = _MESH_OF.get(id(torch_mesh))
    if mesh is None:
        mesh = ProcessMesh(torch_mesh.mesh.tolist(), dim_names=list(torch_mesh.mesh_dim_names)
                           if torch_mesh.mesh_dim_names else None)
        _BY_KEY.setdefault(_key(mesh), torch_mesh)
        _MESH_OF[id(torch_mesh)] = mesh
    return mesh


def _mesh_group(mesh, dim_name=None):
    """ProcessMesh.get_group: a paddle Group over this process's ranks along ``dim_name``."""
    if dim_name is None:
        if mesh.ndim != 1:
            raise ValueError(f"ProcessMesh.get_group: a {mesh.ndim}-D mesh needs dim_name, one of {mesh.dim_names}")
        dim_name = mesh.dim_names[0]
    axis = mesh.dim_names.index(dim_name) if dim_name in mesh.dim_names else None
    if axis is None:
        raise ValueError(f"ProcessMesh.get_group: no dimension named {dim_name!r}; the names are {mesh.dim_names}")
    torch_mesh = device_mesh(mesh, "ProcessMesh.get_group")
    rank = _dist.get_rank()
    if rank not in mesh.process_ids:
        return None
    sub = mesh.get_submesh_with_dim(dim_name)
    ranks = sub.process_ids
    pg = torch_mesh.get_group(axis)
    gid = max(max(_group._STATE.groups, default=9), 9) + 1
    group = _group.Group(ranks.index(rank) if len(ranks) > 1 else -1, gid, ranks, pg=pg,
                         name=f"_mesh_pg{gid}")
    _group._STATE.groups[gid] = group
    return group


def get_mesh():
    """The global mesh given to ``set_mesh`` (None before)."""
    return _GLOBAL_MESH[0]


def set_mesh(mesh):
    if mesh is not None and not isinstance(mesh, ProcessMesh):
        raise ValueError(f"set_mesh: mesh must be a paddle.distributed.ProcessMesh, got {type(mesh).__name__}")
    _GLOBAL_MESH[0] = mesh


_hooks.provide("process_mesh_group", _mesh_group)
