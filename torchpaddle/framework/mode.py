"""Dygraph vs static mode, kept per thread as Paddle keeps it; the static side registers its hooks here so
lower layers never import it."""
import threading
import weakref

__all__ = ["in_dynamic_mode", "in_static_mode", "enable_static", "disable_static", "STATE"]


def _no_static_layer(opdef, inputs, attrs):
    raise RuntimeError(f"{opdef.type}: static graph mode is on (paddle.enable_static()), but torchpaddle's "
                       "static layer (Program/Executor) is not available yet; call paddle.disable_static()")


class _AnyStatic:
    """``on`` is False only while no thread can be in static mode: the eager op path reads this plain slot
    before the thread-local ``STATE.static``, which costs twice as much."""
    __slots__ = ("on",)


ANY_STATIC = _AnyStatic()
ANY_STATIC.on = False


class _Token:
    """Held by each thread's state: in ``_STATIC_THREADS`` while the thread is in static mode, gone with it."""
    __slots__ = ("__weakref__",)


_STATIC_THREADS = weakref.WeakSet()
# the threads alive when static mode last came on in a process where no thread had it: they were in dygraph then
_RUNNING_BEFORE = weakref.WeakSet()
_LOCK = threading.RLock()


class _ModeState(threading.local):
    """``STATE.static``: whether the calling thread builds programs. The hooks are class attributes, shared by
    every thread."""
    # Replaced by torchpaddle.static (install_static_append): static_append(opdef, inputs, attrs) appends an op
    # to the current block.
    static_append = staticmethod(_no_static_layer)
    on_enable = []
    on_disable = []
    # NOTE: Paddle 3.3.1 starts a new thread in the mode last switched to by any thread (its thread-local
    # tracer is initialised from a module global that every switch writes), so a thread started after
    # paddle.enable_static() builds programs too. A thread already running keeps its mode.
    _last = False
    # whether enable_static/disable_static was ever called: legacy fluid code enters static mode only if not
    chosen = False

    def __init__(self):
        # runs on a thread's first read of STATE, which the eager path skips while ANY_STATIC.on is False
        self._token = _Token()
        self.static = False
        with _LOCK:
            if _ModeState._last and threading.current_thread() not in _RUNNING_BEFORE:
                self._set(True)

    def _set(self, static):
        self.static = _ModeState._last = static
        if static:
            if not ANY_STATIC.on:
                _RUNNING_BEFORE.clear()
                _RUNNING_BEFORE.update(threading.enumerate())
            _STATIC_THREADS.add(self._token)
            ANY_STATIC.on = True
        else:
            _STATIC_THREADS.discard(self._token)
            # a thread that ended in static mode leaves ``on`` set until the next switch: slower, still right
            ANY_STATIC.on = bool(_STATIC_THREADS)


STATE = _ModeState()


def install_static_append(fn):
    """Make ``fn`` the static-mode op hook of every thread."""
    _ModeState.static_append = staticmethod(fn)


def _switch(static):
    with _LOCK:
        STATE._set(static)
        _ModeState.chosen = True


def in_dynamic_mode():
    return not (ANY_STATIC.on and STATE.static)


def in_static_mode():
    return ANY_STATIC.on and STATE.static


def enable_static():
    # torchpaddle/__init__ imports the static package, which installs the static hooks before any user code runs
    _switch(True)
    for callback in STATE.on_enable:
        callback()


def disable_static(place=None):
    _switch(False)
    if place is not None:
        from .place import set_device
        set_device(place)
    for callback in STATE.on_disable:
        callback()
