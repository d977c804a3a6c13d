"""segment_sum/mean/max/min: rows of ``data`` pooled by sorted ``segment_ids`` (max(id)+1 rows, empty ones 0)."""
from .. import ops as _ops
from ._args import check_tensor


def _segment(pooltype):
    def segment(data, segment_ids, name=None):
        check_tensor(f"segment_{pooltype.lower()}", "data", data, ("float16", "bfloat16", "float32", "float64",
                                                                   "int32", "int64"))
        check_tensor(f"segment_{pooltype.lower()}", "segment_ids", segment_ids, ("int32", "int64"))
        out, _ = _ops.segment_pool(data, segment_ids, pooltype=pooltype)
        return out
    segment.__name__ = f"segment_{pooltype.lower()}"
    segment.__doc__ = f"The {pooltype.lower()} of the rows of ``data`` in each segment."
    return segment


segment_sum, segment_mean, segment_max, segment_min = (_segment(p) for p in ("SUM", "MEAN", "MAX", "MIN"))
