"""fluid.profiler on torch.profiler: ``start_profiler`` / ``stop_profiler`` / ``reset_profiler`` and the
``profiler`` context manager. The summary table printed at stop is torch's (sorted by fluid's key); the file
at ``profile_path`` is a Chrome trace (JSON), not fluid's protobuf profile."""
import contextlib

import torch

__all__ = ["cuda_profiler", "reset_profiler", "profiler", "start_profiler", "stop_profiler"]

_STATES = ("CPU", "GPU", "All")
_SORT_KEYS = {None: None, "calls": "count", "total": "cpu_time_total", "max": "cpu_time_total",
              "min": "cpu_time_total", "ave": "cpu_time"}
_TRACERS = ("Default", "OpDetail", "AllOpDetail")
_ACTIVE = []


def _check(state, tracer_option):
    if state not in _STATES:
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    if tracer_option not in _TRACERS:
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")


def start_profiler(state, tracer_option="Default"):
    """Start recording (``state``: 'CPU', 'GPU' or 'All'); a second start while recording does nothing."""
    _check(state, tracer_option)
    if _ACTIVE:
        return
    activities = [torch.profiler.ProfilerActivity.CPU]
    if state != "CPU" and torch.cuda.is_available():
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    session = torch.profiler.profile(activities=activities, record_shapes=tracer_option != "Default")
    session.__enter__()
    _ACTIVE.append(session)


def stop_profiler(sorted_key=None, profile_path="/tmp/profile"):
    """Stop recording, print the per-op summary sorted by ``sorted_key`` and write the trace to
    ``profile_path``; without a running profiler it does nothing."""
    if sorted_key not in _SORT_KEYS:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave'")
    if not _ACTIVE:
        return
    session = _ACTIVE.pop()
    session.__exit__(None, None, None)
    events = session.key_averages()
    if len(events):
        print(events.table(sort_by=_SORT_KEYS[sorted_key] or "cpu_time_total", row_limit=50))
    if profile_path:
        session.export_chrome_trace(profile_path)


def reset_profiler():
    """Drop what was recorded so far; recording goes on."""
    if _ACTIVE:
        state = _ACTIVE.pop()
        state.__exit__(None, None, None)
        start_profiler("All" if torch.cuda.is_available() else "CPU")


@contextlib.contextmanager
def profiler(state, sorted_key=None, profile_path="/tmp/profile", tracer_option="Default"):
    """Profile the block (``start_profiler`` on entry, ``stop_profiler`` on exit)."""
    _check(state, tracer_option)
    if sorted_key not in _SORT_KEYS:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave'")
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)


@contextlib.contextmanager
def cuda_profiler(output_file, output_mode=None, config=None):
    """fluid's nvprof wrapper; torchpaddle has no nvprof hook, so this says so instead of profiling nothing."""
    raise NotImplementedError("fluid.profiler.cuda_profiler drives nvprof, which torchpaddle does not wrap; use "
                              "fluid.profiler.profiler('GPU') (torch.profiler) instead")
    yield  # pragma: no cover
