"""``paddle.profiler`` on torch.profiler."""
from .profiler import (Profiler, ProfilerState, ProfilerTarget, RecordEvent, TracerEventType,  # noqa: F401
                       export_chrome_tracing, export_protobuf, load_profiler_result, make_scheduler)
from .statistic import SortedKeys, SummaryView  # noqa: F401

__all__ = ["ProfilerState", "ProfilerTarget", "make_scheduler", "export_chrome_tracing", "export_protobuf",
           "Profiler", "RecordEvent", "load_profiler_result", "SortedKeys", "SummaryView"]
