"""Dygraph vs static mode; the static side registers its hooks here so lower layers never import it."""

__all__ = ["in_dynamic_mode", "in_static_mode", "enable_static", "disable_static", "STATE"]


class _ModeState:
    __slots__ = ("static", "static_append", "on_enable", "on_disable")


STATE = _ModeState()
STATE.static = False


def _no_static_layer(opdef, inputs, attrs):
    raise RuntimeError(f"{opdef.type}: static graph mode is on (paddle.enable_static()), but torchpaddle's "
                       "static layer (Program/Executor) is not available yet; call paddle.disable_static()")


# Replaced by torchpaddle.static: static_append(opdef, inputs, attrs) appends an op to the current block.
STATE.static_append = _no_static_layer
STATE.on_enable = []
STATE.on_disable = []


def in_dynamic_mode():
    return not STATE.static


def in_static_mode():
    return STATE.static


def enable_static():
    if STATE.static_append is _no_static_layer:
        try:
            import torchpaddle.static  # noqa: F401  registers the static hooks
        except ImportError:
            pass
    STATE.static = True
    for callback in STATE.on_enable:
        callback()


def disable_static(place=None):
    STATE.static = False
    if place is not None:
        from .place import set_device
        set_device(place)
    for callback in STATE.on_disable:
        callback()
