"""Dygraph vs static mode; the static side registers its hooks here so lower layers never import it."""

__all__ = ["in_dynamic_mode", "in_static_mode", "enable_static", "disable_static", "STATE"]


class _ModeState:
    __slots__ = ("static", "static_append", "on_enable", "on_disable")


STATE = _ModeState()
STATE.static = False
# Set by torchpaddle.static: called as static_append(opdef, inputs, attrs) to append an op to the current block.
STATE.static_append = None
STATE.on_enable = []
STATE.on_disable = []


def in_dynamic_mode():
    return not STATE.static


def in_static_mode():
    return STATE.static


def enable_static():
    if STATE.static_append is None:
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
