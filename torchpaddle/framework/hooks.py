"""What the framework layer calls but upper layers implement, handed down when those layers are imported:
the one way a lower layer reaches up (DESIGN.md: lower layers never import higher ones).

``provide(name, value)`` is called by the upper layer at import; ``get(name)`` by the framework when it needs
it. ``torchpaddle/__init__`` imports every layer, so by the time user code runs everything is provided. The
eager op path's static-mode switch is the exception: it lives in ``mode.STATE`` for speed.
"""
__all__ = ["provide", "get"]

_PROVIDED = {}


def provide(name, value):
    _PROVIDED[name] = value


def get(name):
    try:
        return _PROVIDED[name]
    except KeyError:
        raise RuntimeError(f"torchpaddle: {name!r} comes from a package that has not been imported yet") from None
