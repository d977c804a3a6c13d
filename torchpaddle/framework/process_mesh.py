"""ProcessMesh: an n-D array of process ids with a name per dimension, as the static IR's dist attributes see it.

This is the description only (shape, ids, names). ``paddle.distributed.ProcessMesh`` subclasses it to add what
needs processes (sub-meshes by name, process groups, a torch DeviceMesh).
"""
import numpy as np

from .tensor import PaddleAssertionError

__all__ = ["ProcessMesh"]


class ProcessMesh:
    """``ProcessMesh(mesh, dim_names=None)``, or ``ProcessMesh(shape=..., process_ids=...)``.

    Two meshes are equal when their shapes and process ids are; the dim names do not count (as in Paddle,
    whose hash does count them; here equal meshes hash equal)."""

    def __init__(self, mesh=None, dim_names=None, shape=None, process_ids=None):
        if mesh is None:
            if shape is None or process_ids is None:
                raise ValueError("ProcessMesh: give mesh, or both shape and process_ids")
            mesh = np.array(list(process_ids)).reshape(list(shape))
        if not isinstance(mesh, (list, np.ndarray)):
            raise ValueError(f"ProcessMesh: mesh must be a list or np.ndarray, got {type(mesh).__name__}")
        if dim_names is not None and not isinstance(dim_names, list):
            raise ValueError(f"ProcessMesh: dim_names must be a list, got {type(dim_names).__name__}")
        mesh = np.array(mesh)
        ids = mesh.flatten().tolist()
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
                raise ValueError(f"ProcessMesh: no dimension named {dim!r}; the names are {self._dim_names}")
            return self._dim_names.index(dim)
        if isinstance(dim, int) and not isinstance(dim, bool):
            if not -self.ndim <= dim < self.ndim:
                raise ValueError(f"ProcessMesh: dimension {dim} is out of range for a {self.ndim}-D mesh")
            return dim % self.ndim
        raise ValueError(f"ProcessMesh: dim must be a str or an int, got {type(dim).__name__}")

    def dim_size(self, dim):
        return self._shape[self._dim_index(dim)]

    get_dim_size = dim_size

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
