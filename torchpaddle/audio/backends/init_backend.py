"""Backend selection: only the standard-library wave backend exists here (no paddleaudio/soundfile)."""
_BACKENDS = ["wave_backend"]
_current = ["wave_backend"]


def list_available_backends():
    return list(_BACKENDS)


def get_current_backend():
    return _current[0]


def set_backend(backend_name):
    """Select the backend that audio.load/save/info use; only 'wave_backend' is available."""
    if backend_name not in _BACKENDS:
        raise NotImplementedError(f"set_backend: backend_name must be one of {_BACKENDS}, got {backend_name!r} "
                                  f"(soundfile needs paddleaudio, which torchpaddle does not ship)")
    _current[0] = backend_name
