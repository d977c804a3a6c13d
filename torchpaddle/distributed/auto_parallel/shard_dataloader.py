"""``shard_dataloader`` / ``ShardDataloader``: batches as dist tensors; each process reads only its part.

With ``shard_dims`` (the data-parallel mesh dim, per mesh or for all), every global batch of the user's
loader is cut along axis 0 into one contiguous part per index of that mesh dim (``torch.chunk`` sizes) and
each process reads only its part; the batch comes out ``Shard(0)`` on that mesh dim and Replicate elsewhere,
so its global value is the user's loader's batch. Without ``shard_dims`` every process reads the whole batch
(Replicate). ``is_dataset_splitted=True`` (or a loader already on a ``DistributedBatchSampler``): the loader
already yields this process's part, which is wrapped as is (even parts assumed, as Paddle).

Unlike Paddle 3.3.1: the global batch is the loader's own batch (Paddle re-batches the dataset with a
``DistributedBatchSampler``, so a global batch interleaves two halves of the dataset), ``Shard(0)`` is put on
the ``shard_dims`` mesh dim (Paddle always uses mesh dim 0), uneven and tiny last batches work, and the user's
loader is never iterated (a new loader reads the same dataset). With ``shuffle=True`` every process must draw
the same order: seed every process alike (``paddle.seed``).
"""
import torch
from torch.distributed.tensor import DTensor, distribute_tensor
from torch.distributed.tensor import placement_types as _tp

from ...framework.process_mesh import ProcessMesh
from ...framework.tensor import Tensor, wrap
from ...io import DataLoader, DistributedBatchSampler
from . import dispatch as _dispatch
from .device_mesh import device_mesh, world_rank

__all__ = ["ShardDataloader", "ShardDataLoader", "shard_dataloader"]


class _PartBatchSampler:
    """Each batch of ``batch_sampler`` cut into ``parts`` contiguous chunks (torch.chunk sizes); yields chunk
    ``index``, or the whole batch when some chunk would be empty (then every process slices locally)."""

    def __init__(self, batch_sampler, parts, index):
        self.batch_sampler, self.parts, self.index = batch_sampler, parts, index
        self.sizes = []          # per batch read so far: its global size

    def __iter__(self):
        self.sizes = []
        for batch in self.batch_sampler:
            batch = list(batch)
            self.sizes.append(len(batch))
            if len(batch) < self.parts:
                yield batch
                continue
            step = -(-len(batch) // self.parts)
            yield batch[self.index * step:(self.index + 1) * step]

    def __len__(self):
        return len(self.batch_sampler)


def _to_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class ShardDataloader:
    """See the module docstring; iterate it (or call it, which restarts) to get dist-tensor batches."""

    def __init__(self, dataloader, meshes, input_keys=None, shard_dims=None, is_dataset_splitted=False,
                 dense_tensor_idx=None):
        if not isinstance(dataloader, DataLoader):
            raise TypeError(f"shard_dataloader: dataloader must be a paddle.io.DataLoader, got "
                            f"{type(dataloader).__name__}")
        if is_dataset_splitted and shard_dims is None:
            raise ValueError("shard_dataloader: shard_dims must be set when is_dataset_splitted is True")
        self._meshes = _to_list(meshes) if meshes is not None else []
        if not self._meshes:
            raise ValueError("shard_dataloader: meshes must be set")
        for m in self._flat_meshes():
            if not isinstance(m, ProcessMesh):
                raise TypeError(f"shard_dataloader: meshes must be ProcessMesh objects, got {type(m).__name__}")
        if input_keys is not None and not isinstance(input_keys, (list, tuple)):
            raise TypeError(f"shard_dataloader: input_keys must be a list of keys, got {type(input_keys).__name__}")
        self._input_keys = input_keys
        self._one_mesh = len(self._meshes) == 1
        self._shard_dims = self._per_mesh(shard_dims)
        self.dense_tensor_idx = dense_tensor_idx
        rank = world_rank()
        if len([m for m in set(self._flat_meshes()) if rank in m.process_ids]) > 1:
            raise ValueError(f"shard_dataloader: process {rank} is in more than one mesh; the meshes are "
                             f"{self._meshes}")
        mesh, dim = self._mesh_of(rank)
        self._source = dataloader
        self.batch_size = getattr(dataloader.batch_sampler, "batch_size", dataloader.batch_size)
        self._parts = None
        if shard_dims is None or is_dataset_splitted or isinstance(dataloader.batch_sampler,
                                                                  DistributedBatchSampler):
            self._dataloader = dataloader
            self._splitted = shard_dims is not None
        else:
            self._splitted = False
            axis = self._axis(mesh, dim)
            degree = mesh.shape[axis]
            index = mesh.get_rank_by_dim_and_process_id(axis, rank) if rank in mesh.process_ids else 0
            if dataloader.batch_sampler is None or type(dataloader.batch_sampler).__name__ == \
                    "_InfiniteIterableSampler":
                self._dataloader = dataloader     # no indices to split: read whole batches, slice locally
            else:
                self._parts = _PartBatchSampler(dataloader.batch_sampler, degree, index)
                self._dataloader = DataLoader(
                    dataloader.dataset, feed_list=dataloader.feed_list, places=dataloader.places,
                    return_list=dataloader.return_list, batch_sampler=self._parts, collate_fn=dataloader.collate_fn,
                    num_workers=dataloader.num_workers, prefetch_factor=dataloader.prefetch_factor,
                    timeout=dataloader.timeout, worker_init_fn=dataloader.worker_init_fn,
                    persistent_workers=dataloader._persistent_workers)
                if self.batch_size is not None:
                    self.batch_size = -(-self.batch_size // degree)
        self.iter = None
        self._count = 0

    # -- meshes and placements ----------------------------------------------------------------------------
    def _flat_meshes(self):
        out = []
        for m in self._meshes:
            out.extend(_to_list(m))
        return out

    def _per_mesh(self, shard_dims):
        if shard_dims is None or isinstance(shard_dims, (int, str)):
            return [[shard_dims] * len(m) if isinstance(m, (list, tuple)) else shard_dims for m in self._meshes]
        if not isinstance(shard_dims, (list, tuple)) or len(shard_dims) != len(self._meshes):
            raise ValueError(f"shard_dataloader: shard_dims must be one mesh dim or one per mesh "
                             f"({len(self._meshes)}), got {shard_dims!r}")
        return list(shard_dims)

    def _mesh_of(self, rank):
        for m, d in zip(self._meshes, self._shard_dims):
            for mm, dd in zip(_to_list(m), _to_list(d) if isinstance(m, (list, tuple)) else [d]):
                if rank in mm.process_ids:
                    return mm, dd
        first = _to_list(self._meshes[0])[0]
        return first, _to_list(self._shard_dims[0])[0]

    @staticmethod
    def _axis(mesh, dim):
        if isinstance(dim, str):
            if dim not in mesh.dim_names:
                raise ValueError(f"shard_dataloader: shard_dims {dim!r} is not a dim of the mesh; its dims are "
                                 f"{mesh.dim_names}")
            return mesh.dim_names.index(dim)
        if isinstance(dim, bool) or not isinstance(dim, int) or not -mesh.ndim <= dim < mesh.ndim:
            raise ValueError(f"shard_dataloader: shard_dims must be a mesh dim name or index < {mesh.ndim}, got "
                             f"{dim!r}")
        return dim % mesh.ndim

    def _target(self, index, sub=None):
        """(mesh, shard dim) of the batch element ``index`` (``sub``: its position in a nested list)."""
        if self._one_mesh:
            mesh, dim = self._meshes[0], self._shard_dims[0]
        else:
            if index >= len(self._meshes):
                raise ValueError(f"shard_dataloader: the batch has more elements than the {len(self._meshes)} "
                                 "meshes given (one mesh per element, or one for all)")
            mesh, dim = self._meshes[index], self._shard_dims[index]
        if isinstance(mesh, (list, tuple)):
            mesh = mesh[sub or 0]
        if isinstance(dim, (list, tuple)):
            dim = dim[sub or 0]
        return mesh, dim

    def _dist(self, x, mesh, dim):
        torch_mesh = device_mesh(mesh, "shard_dataloader")
        _dispatch.enable()
        placements = [_tp.Replicate()] * mesh.ndim
        if dim is None:
            return wrap(DTensor.from_local(x._t, torch_mesh, placements, run_check=False))
        axis = self._axis(mesh, dim)
        placements[axis] = _tp.Shard(0)
        if self._splitted:
            return wrap(DTensor.from_local(x._t, torch_mesh, placements, run_check=False))
        size = self._parts.sizes[self._count - 1] if self._parts is not None else x.shape[0]
        if self._parts is None or size < mesh.shape[axis]:
            # this process holds the whole batch: keep its part, no communication
            return wrap(distribute_tensor(x._t, torch_mesh, placements, src_data_rank=None))
        shape = torch.Size([size] + list(x._t.shape[1:]))
        stride = torch.empty(shape, device="meta").stride()
        return wrap(DTensor.from_local(x._t, torch_mesh, placements, run_check=False, shape=shape, stride=stride))

    def _convert(self, value, mesh, dim):
        return self._dist(value, mesh, dim) if isinstance(value, Tensor) else value

    def _element(self, value, index, dense):
        if isinstance(value, (list, tuple)):
            return [v if (dense and j in dense) else self._convert(v, *self._target(index, j))
                    for j, v in enumerate(value)]
        if isinstance(value, Tensor):
            return value if dense else self._convert(value, *self._target(index))
        return value

    def _get_batch(self, batch):
        dense_idx = self.dense_tensor_idx
        if isinstance(batch, (list, tuple)):
            if not self._one_mesh and len(batch) != len(self._meshes):
                raise ValueError(f"shard_dataloader: a batch of {len(batch)} elements needs {len(batch)} meshes, "
                                 f"got {len(self._meshes)}")
            return [self._element(v, i, dense_idx[i] if dense_idx is not None else None)
                    for i, v in enumerate(batch)]
        if isinstance(batch, dict):
            keys = list(batch.keys()) if self._input_keys is None else list(self._input_keys)
            if not self._one_mesh and len(keys) != len(self._meshes):
                raise ValueError(f"shard_dataloader: {len(keys)} input keys need as many meshes, got "
                                 f"{len(self._meshes)}")
            out = dict(batch)
            for i, key in enumerate(keys):
                if key not in batch:
                    raise KeyError(f"shard_dataloader: input key {key!r} is not in the batch; its keys are "
                                   f"{list(batch.keys())}")
                out[key] = self._element(batch[key], i, dense_idx[i] if dense_idx is not None else None)
            return out
        if isinstance(batch, Tensor):
            return self._convert(batch, *self._target(0))
        raise ValueError(f"shard_dataloader: unsupported batch type {type(batch).__name__}")

    # -- iteration ----------------------------------------------------------------------------------------
    def __len__(self):
        return len(self._dataloader)

    def __iter__(self):
        self.iter = None
        return self

    def __next__(self):
        if self.iter is None:
            self.iter = iter(self._dataloader)
            self._count = 0
        batch = next(self.iter)
        self._count += 1
        return self._get_batch(batch)

    def __call__(self):
        self.iter = None
        return self

    @property
    def dataset(self):
        return self._source.dataset



# the spelling of the DistModel spec pages (Paddle's class is ShardDataloader)
ShardDataLoader = ShardDataloader

def shard_dataloader(dataloader, meshes, input_keys=None, shard_dims=None, is_dataset_splitted=False,
                     dense_tensor_idx=None):
    """A ShardDataloader over ``dataloader`` (see the module docstring)."""
    return ShardDataloader(dataloader, meshes, input_keys, shard_dims, is_dataset_splitted, dense_tensor_idx)
