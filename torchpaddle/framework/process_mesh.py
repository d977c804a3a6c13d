"""ProcessMesh: an n-D array of process ids with a name per dimension, as the static IR's dist attributes see it.

This is the description only (shape, ids, names). ``paddle.distributed.ProcessMesh`` subclasses it to add what
needs processes (sub-meshes by name, process groups, a torch DeviceMesh).
"""
import numpy as np

from . import hooks as _hooks
from .tensor import PaddleAssertionError

__all__ = ["ProcessMesh", "get_current_process_mesh", "set_current_process_mesh", "reset_current_process_mesh"]

# ``with mesh:`` makes a mesh current (Paddle's legacy annotation scope); a stack, so scopes nest
_CURRENT = []


def get_current_process_mesh():
    return _CURRENT[-1] if _CURRENT else None


def set_current_process_mesh(mesh):
    _CURRENT.append(mesh)


def reset_current_process_mesh():
    if _CURRENT:
        _CURRENT.pop()


def _current_rank():
    # NOTE: torch's group when there is one, else Paddle's launch variable (framework cannot ask distributed)
    import torch.distributed as dist
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank()
    import os
    return int(os.environ.get("PADDLE_TRAINER_ID", os.environ.get("RANK", "0")))


_UNIQUE_IDS = {}


class ProcessMesh:
    """``ProcessMesh(mesh, dim_names=None)``, or ``ProcessMesh(shape=..., process_ids=...)``.

    Two meshes are equal when their shapes and process ids are; the dim names do not count (as in Paddle,
    whose hash does count them; here equal meshes hash equal)."""

    def __init__(self, mesh=None, dim_names=None, shape=None, process_ids=None):
        if mesh is None:
            if shape is None or process_ids is None:
                raise ValueError("ProcessMesh: give mesh, or both shape and process_ids")
            mesh = np.array(list(process_ids)).reshape(list(shape))
        if isinstance(mesh, tuple):
            mesh = list(mesh)
        if not isinstance(mesh, (list, np.ndarray)):
            raise ValueError(f"ProcessMesh: mesh must be a list or np.ndarray, got {type(mesh).__name__}")
        if dim_names is not None and not isinstance(dim_names, list):
            raise ValueError(f"ProcessMesh: dim_names must be a list, got {type(dim_names).__name__}")
        mesh = np.array(mesh)
        ids = mesh.flatten().tolist()
        if mesh.dtype.kind in "iu":
            ids = [int(p) for p in ids]
        # NOTE: Paddle checks these with assert; PaddleAssertionError is also a ValueError.
        if not ids or not all(isinstance(p, int) for p in ids):
            raise PaddleAssertionError(f"ProcessMesh: the elements of mesh must be integers, got {mesh.tolist()}")
        if min(ids) < 0:
            raise PaddleAssertionError(f"ProcessMesh: the elements of mesh must be >= 0, got {mesh.tolist()}")
        if len(set(ids)) != len(ids):
            raise PaddleAssertionError(f"ProcessMesh: the elements of mesh must be unique, got {mesh.tolist()}")
        if dim_names is None:
            dim_names = [f"d{i}" for i in range(mesh.ndim)]
        if len(dim_names) != mesh.ndim:
            raise PaddleAssertionError(f"ProcessMesh: dim_names {dim_names} must name each of the {mesh.ndim} "
                                       f"dimensions of mesh")
        if len(set(dim_names)) != len(dim_names):
            raise PaddleAssertionError(f"ProcessMesh: dim_names {dim_names} must be unique")
        self._mesh = mesh
        self._shape = list(mesh.shape)
        self._process_ids = ids
        self._dim_names = list(dim_names)

    @classmethod
    def _empty(cls):
        """The mesh of a dist attribute that has none yet (Paddle's default-constructed core mesh)."""
        mesh = object.__new__(cls)
        mesh._mesh = np.zeros((0,), dtype=np.int64)
        mesh._shape, mesh._process_ids, mesh._dim_names = [], [], []
        return mesh

    @property
    def shape(self):
        return list(self._shape)

    @property
    def process_ids(self):
        return list(self._process_ids)

    @property
    def dim_names(self):
        return list(self._dim_names)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        return len(self._process_ids)

    @property
    def mesh(self):
        return self._mesh

    def empty(self):
        return not self._process_ids

    def contains(self, process_id):
        return process_id in self._process_ids

    def _dim_index(self, dim):
        if isinstance(dim, str):
            if dim not in self._dim_names:
                raise PaddleAssertionError(f"ProcessMesh: no dimension named {dim!r}; the names are {self._dim_names}")
            return self._dim_names.index(dim)
        if isinstance(dim, int) and not isinstance(dim, bool):
            if not -self.ndim <= dim < self.ndim:
                raise ValueError(f"ProcessMesh: dimension {dim} is out of range for a {self.ndim}-D mesh")
            return dim % self.ndim
        raise ValueError(f"ProcessMesh: dim must be a str or an int, got {type(dim).__name__}")

    def dim_size(self, dim):
        if dim is None:
            return 1
        return self._shape[self._dim_index(dim)]

    get_dim_size = dim_size

    @property
    def unique_id(self):
        """A small int naming (shape, process ids) for this process (Paddle numbers meshes as they appear)."""
        key = (tuple(self._shape), tuple(self._process_ids))
        return _UNIQUE_IDS.setdefault(key, len(_UNIQUE_IDS))

    def __getitem__(self, index):
        """Sub-meshes as NumPy indexes the id array; a str index is ``get_submesh_with_dim``."""
        if isinstance(index, str):
            return self.get_submesh_with_dim(index)
        if isinstance(index, tuple):
            names = [self._dim_names[i] for i, item in enumerate(index) if isinstance(item, slice)]
            names += self._dim_names[len(index):]
        elif isinstance(index, slice):
            names = self._dim_names
        else:
            names = self._dim_names[1:]
        try:
            sub = self._mesh[index]
        except IndexError as e:
            raise IndexError(f"ProcessMesh: index {index!r} is out of range for shape {self._shape}: {e}") from None
        if sub.ndim == 0:
            return ProcessMesh([int(sub)])
        return ProcessMesh(sub, list(names))

    def get_mesh_with_dim(self, dim_name, index=None):
        """The mesh with ``dim_name`` moved first; with ``index``, that part of it along ``dim_name``."""
        axis = self._dim_index(dim_name) if isinstance(dim_name, str) else None
        if axis is None:
            raise ValueError(f"ProcessMesh.get_mesh_with_dim: dim_name must be a str, got {dim_name!r}")
        order = [axis] + [i for i in range(self.ndim) if i != axis]
        names = [self._dim_names[i] for i in order]
        mesh = self._mesh.transpose(order)
        if index is None:
            return ProcessMesh(mesh, names)
        if len(names) > 1:
            return ProcessMesh(mesh[index], names[1:])
        return ProcessMesh(np.atleast_1d(mesh[index]), names)

    def get_submesh_with_dim(self, dim_name):
        """The 1-D mesh along ``dim_name`` that holds this process, or None when this process is not in the mesh."""
        flat = self.get_mesh_with_dim(dim_name).mesh.reshape(self.dim_size(dim_name), -1)
        rank = _current_rank()
        if rank not in self._process_ids:
            return None
        column = int(np.argmax(flat == rank)) % flat.shape[-1]
        return ProcessMesh(flat[:, column], [dim_name])

    def get_rank_by_dim_and_process_id(self, dim, process_id):
        """The coordinate of ``process_id`` along ``dim`` (-1 when it is not in the mesh)."""
        if process_id not in self._process_ids:
            return -1
        if dim is None:
            return 0
        # NOTE: Paddle's int(np.where(...)[i]) is a TypeError under NumPy 2; index the coordinate instead
        return int(np.argwhere(self._mesh == process_id)[0][self._dim_index(dim)])

    def get_group(self, dim_name=None):
        """The communication group of this process along ``dim_name`` (the whole mesh when None, 1-D only)."""
        return _hooks.get("process_mesh_group")(self, dim_name)

    def __enter__(self):
        set_current_process_mesh(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        reset_current_process_mesh()

    def __eq__(self, other):
        if not isinstance(other, ProcessMesh):
            return False
        return self._shape == other._shape and self._process_ids == other._process_ids

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((tuple(self._shape), tuple(self._process_ids)))

    def __deepcopy__(self, memo):
        return self   # immutable

    def __reduce__(self):
        if not self._process_ids:
            return (ProcessMesh._empty, ())
        return (ProcessMesh, (self._mesh.tolist(), list(self._dim_names)))

    def __copy__(self):
        return self

    def __str__(self):
        return f"shape {self._shape}, process_ids {self._process_ids}, dim_names {self._dim_names}"

    def __repr__(self):
        return f"ProcessMesh({self._mesh.tolist()}, dim_names={self._dim_names})"

    def _ir_str(self):
        """The form Paddle's dist attributes print: ``{shape: [2,2], process_ids: [0,1,2,3], dim_names: [x,y]}``."""
        return (f"{{shape: [{','.join(map(str, self._shape))}], process_ids: "
                f"[{','.join(map(str, self._process_ids))}], dim_names: [{','.join(self._dim_names)}]}}")
