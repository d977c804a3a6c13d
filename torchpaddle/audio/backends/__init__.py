"""``paddle.audio.backends``."""
from . import wave_backend
from .init_backend import get_current_backend, list_available_backends, set_backend

__all__ = ["get_current_backend", "list_available_backends", "set_backend"]
