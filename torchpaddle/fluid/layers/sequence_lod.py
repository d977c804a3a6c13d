"""fluid.layers: sequence_lod. Every name works on LoD tensors and comes with LoD support (a later issue): each
resolves and raises NotImplementedError saying so -- except sequence_mask, which needs no LoD."""
from ... import tensor as _T
from ...framework import dtype as _dtype
from ._helper import check_dtype, needs_lod

__all__ = ["sequence_concat", "sequence_conv", "sequence_enumerate", "sequence_expand", "sequence_expand_as",
           "sequence_first_step", "sequence_last_step", "sequence_mask", "sequence_pad", "sequence_pool",
           "sequence_reshape", "sequence_reverse", "sequence_scatter", "sequence_slice", "sequence_softmax",
           "sequence_unpad"]

for _name in __all__:
    globals()[_name] = needs_lod(_name)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """mask[..., j] = j < x[...] for the lengths ``x``, j in [0, maxlen) (maxlen: max(x) when None)."""
    check_dtype(x, "sequence_mask", "x", ("int32", "int64"))
    d = _dtype.convert_dtype(dtype)
    if maxlen is None:
        maxlen = _T.max(x)
    steps = _T.arange(0, maxlen, 1, x.dtype)
    return _T.cast(_T.unsqueeze(x, -1) > steps, d)
