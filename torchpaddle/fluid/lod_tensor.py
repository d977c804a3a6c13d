"""fluid.LoDTensor / LoDTensorArray / create_lod_tensor / create_random_int_lodtensor, and how LoD values enter
and leave the executor (feeds, fetches)."""
import numbers

import numpy as np

from ..framework.tensor import Tensor as _EagerTensor
from ..static.lod import check_lod, lengths_to_lod
from ..static.scope import LoDTensor, torch_value

__all__ = ["create_lod_tensor", "create_random_int_lodtensor", "LoDTensor", "LoDTensorArray"]


class LoDTensorArray(list):
    """A list of LoDTensors (Paddle 1.x's ``LoDTensorArray``: append, indexing, len)."""

    def append(self, tensor):
        if not isinstance(tensor, LoDTensor):
            raise TypeError(f"LoDTensorArray.append: expected a LoDTensor, got {type(tensor).__name__}")
        super().append(tensor)

    def _move_to_list(self):
        return list(self)


def _lengths(recursive_seq_lens, who):
    if not isinstance(recursive_seq_lens, (list, tuple)) or not all(
            isinstance(level, (list, tuple)) and all(isinstance(n, numbers.Integral) and n >= 0 for n in level)
            for level in recursive_seq_lens):
        raise TypeError(f"{who}: recursive_seq_lens must be a list of lists of non-negative ints, got "
                        f"{recursive_seq_lens!r}")
    return [[int(n) for n in level] for level in recursive_seq_lens]


def create_lod_tensor(data, recursive_seq_lens, place):
    """A LoDTensor of ``data`` with the sequence lengths ``recursive_seq_lens`` (one list per level).

    ``data``: an ndarray (its rows are the sequences' entries), a LoDTensor or Tensor (its values, new
    lengths), or a list of sequences (each a list of ints: an int64 [N, 1] tensor; the last level of lengths
    must match the sequences')."""
    lengths = _lengths(recursive_seq_lens, "create_lod_tensor")
    if isinstance(data, (LoDTensor, _EagerTensor)):
        data = np.array(torch_value(data).cpu().numpy())
    elif isinstance(data, list):
        if lengths and [len(seq) for seq in data] != lengths[-1]:
            raise ValueError(f"create_lod_tensor: the sequences of data have lengths {[len(s) for s in data]}, "
                             f"but the last level of recursive_seq_lens is {lengths[-1]}")
        flat = [v for seq in data for v in seq]
        data = np.array(flat, dtype="int64").reshape(len(flat), 1)
    elif not isinstance(data, np.ndarray):
        raise TypeError(f"create_lod_tensor: data must be a numpy.ndarray, list or LoDTensor, got "
                        f"{type(data).__name__}")
    lod = check_lod(lengths_to_lod(lengths), data.shape[0] if data.ndim else None, "create_lod_tensor")
    tensor = LoDTensor()
    tensor.set(data, place)
    tensor.set_lod(lod)
    return tensor


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low, high):
    """Random int64 values in [low, high] of shape [sum of the last level's lengths] + ``base_shape``
    (``base_shape`` itself for ``recursive_seq_lens=[]``)."""
    lengths = _lengths(recursive_seq_lens, "create_random_int_lodtensor")
    if not isinstance(base_shape, (list, tuple)):
        raise TypeError(f"create_random_int_lodtensor: base_shape must be a list of ints, got {base_shape!r}")
    shape = [sum(lengths[-1])] + list(base_shape) if lengths else list(base_shape)   # no LoD: base_shape
    data = np.random.randint(low, high + 1, shape).astype("int64")
    return create_lod_tensor(data, lengths, place)


def _is_lod_pair(value):
    return (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], np.ndarray)
            and isinstance(value[1], (list, tuple)) and all(isinstance(level, (list, tuple)) for level in value[1]))


def as_lod_feed(name, value):
    """A fed value as the executor takes it: an ``(ndarray, lod)`` pair (lod: offsets per level) becomes a
    LoDTensor; anything else is returned as it is."""
    if _is_lod_pair(value):
        array, lod = value
        tensor = LoDTensor()
        tensor.set(array)
        tensor.set_lod(check_lod(lod, array.shape[0] if array.ndim else None,
                                 f"Executor.run: the value fed to {name!r}"))
        return tensor
    return value


def fetched_lod_tensor(value, lod):
    """A fetched value (a Tensor) as the LoDTensor Paddle 1.x returns with return_numpy=False."""
    t = torch_value(value)
    if t is None:
        return value
    tensor = LoDTensor()
    tensor.set(t)
    if lod:
        # NOTE: as made by the program, unchecked: ctc_align's "nothing decoded" row keeps an all-zero LoD
        tensor._holder.lod = [list(level) for level in lod]
    return tensor
