"""paddle.base.dygraph_utils: applying a layer's ``act`` in dygraph."""
from ..ops.registry import get_op

__all__ = ["_append_activation_in_dygraph"]


def _append_activation_in_dygraph(input, act=None, use_cudnn=None, use_mkldnn=None):
    """``act`` (an activation op type such as 'relu', or None) applied to ``input``."""
    if not act:
        return input
    return get_op(act).eager(input)
