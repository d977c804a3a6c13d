"""``paddle.profiler`` on torch.profiler: Paddle's step scheduler (closed / ready / record / record-and-return),
RecordEvent ranges, chrome-tracing export and a timer-only mode (batch cost and ips per step)."""
import datetime
import enum
import os
import shutil
import socket
import time

import torch
import torch.profiler as _tp

from .statistic import SortedKeys, SummaryView, summary_text

__all__ = ["ProfilerState", "ProfilerTarget", "TracerEventType", "make_scheduler", "export_chrome_tracing",
           "export_protobuf", "load_profiler_result", "Profiler", "RecordEvent"]


class ProfilerState(enum.Enum):
    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3   # the last step of a recording window: the trace is handed to on_trace_ready after it


class ProfilerTarget(enum.Enum):
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


class TracerEventType(enum.Enum):
    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14


def make_scheduler(*, closed, ready, record, repeat=0, skip_first=0):
    """The state of each step: ``skip_first`` steps closed, then cycles of ``closed`` closed, ``ready`` ready and
    ``record`` recording steps (the last one RECORD_AND_RETURN), ``repeat`` times (0: forever)."""
    for name, v in [("closed", closed), ("ready", ready), ("record", record), ("repeat", repeat),
                    ("skip_first", skip_first)]:
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"make_scheduler: {name} must be a non-negative int, got {v!r}")
    if record < 1:
        raise ValueError(f"make_scheduler: record must be at least 1, got {record}")
    cycle = closed + ready + record

    def scheduler(step):
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerState.CLOSED
        k = step % cycle
        if k < closed:
            return ProfilerState.CLOSED
        if k < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD_AND_RETURN if k == cycle - 1 else ProfilerState.RECORD
    return scheduler


def _always_record(step):
    return ProfilerState.RECORD


def _worker_name(worker_name):
    return worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"


def export_chrome_tracing(dir_name, worker_name=None):
    """An ``on_trace_ready`` that writes each trace to ``dir_name`` as chrome://tracing JSON."""
    if not isinstance(dir_name, str):
        raise TypeError(f"export_chrome_tracing: dir_name must be a str, got {type(dir_name).__name__}")

    def handle(prof):
        os.makedirs(dir_name, exist_ok=True)
        stamp = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
        prof.export(os.path.join(dir_name, f"{_worker_name(worker_name)}_time_{stamp}.paddle_trace.json"), "json")
    return handle


_NO_PROTOBUF = ("Paddle's profiler protobuf format is not written or read by torchpaddle (its traces come from "
                "torch.profiler); use export_chrome_tracing and open the JSON in chrome://tracing or Perfetto")


def export_protobuf(dir_name, worker_name=None):
    raise RuntimeError(f"export_protobuf: {_NO_PROTOBUF}")


def load_profiler_result(filename):
    raise RuntimeError(f"load_profiler_result: {_NO_PROTOBUF}")


class RecordEvent:
    """A named range in the trace (``begin()``/``end()``, or ``with RecordEvent(name):``)."""

    def __init__(self, name, event_type=TracerEventType.PythonUserDefined):
        if not isinstance(name, str):
            raise TypeError(f"RecordEvent: name must be a str, got {type(name).__name__}")
        self.name, self.event_type = name, event_type
        self._range = None

    def begin(self):
        if self._range is None:
            self._range = torch.autograd.profiler.record_function(self.name)
            self._range.__enter__()

    def end(self):
        if self._range is not None:
            self._range.__exit__(None, None, None)
            self._range = None

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()


_RECORDING = (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)


class Profiler:
    def __init__(self, *, targets=None, scheduler=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, timer_only=False, emit_nvtx=False, custom_device_types=None,
                 with_flops=False):
        targets = list(targets) if targets is not None else \
            [ProfilerTarget.CPU] + ([ProfilerTarget.GPU] if torch.cuda.is_available() else [])
        for t in targets:
            if not isinstance(t, ProfilerTarget):
                raise TypeError(f"Profiler: targets must be ProfilerTarget values, got {t!r}")
        self.targets = targets
        if scheduler is None:
            scheduler = _always_record
        elif isinstance(scheduler, (tuple, list)):
            if len(scheduler) != 2 or not all(isinstance(v, int) for v in scheduler) or \
                    not 0 <= scheduler[0] < scheduler[1]:
                raise ValueError(f"Profiler: scheduler as a tuple must be (start_batch, end_batch) with "
                                 f"0 <= start_batch < end_batch, got {scheduler!r}")
            start, end = scheduler
            scheduler = make_scheduler(closed=max(start - 1, 0), ready=1 if start > 0 else 0, record=end - start,
                                       repeat=1)
        elif not callable(scheduler):
            raise TypeError(f"Profiler: scheduler must be callable or a (start, end) tuple, got {scheduler!r}")
        self.scheduler = scheduler
        self.on_trace_ready = on_trace_ready if on_trace_ready is not None else \
            export_chrome_tracing("./profiler_log/")
        self.record_shapes, self.profile_memory, self.with_flops = record_shapes, profile_memory, with_flops
        self.timer_only = timer_only
        self.step_num = 0
        self.current_state = ProfilerState.CLOSED
        self._torch = None         # the torch profiler of the window being recorded
        # the torch profiler, events and chrome-trace file of the last finished window
        self._done, self._events, self._done_file = None, None, None
        self._step_range = None
        self._times, self._samples, self._last = [], [], None

    # -- recording windows -------------------------------------------------------------------------------------
    def _begin_window(self):
        activities = [_tp.ProfilerActivity.CPU]
        if ProfilerTarget.GPU in self.targets and torch.cuda.is_available():
            activities.append(_tp.ProfilerActivity.CUDA)
        self._torch = _tp.profile(activities=activities, record_shapes=self.record_shapes,
                                  profile_memory=self.profile_memory, with_flops=self.with_flops)
        self._torch.start()

    def _end_window(self):
        self._end_step_range()
        self._torch.stop()
        self._done, self._events, self._done_file = self._torch, self._torch.events(), None
        self.on_trace_ready(self)

    def _begin_step_range(self):
        if self._torch is not None:
            self._step_range = RecordEvent(f"ProfileStep#{self.step_num}", TracerEventType.ProfileStep)
            self._step_range.begin()

    def _end_step_range(self):
        if self._step_range is not None:
            self._step_range.end()
            self._step_range = None

    def start(self):
        self._last = time.perf_counter()
        if self.timer_only:
            return
        self.current_state = self.scheduler(self.step_num)
        if self.current_state in _RECORDING:
            self._begin_window()
        self._begin_step_range()

    def step(self, num_samples=None):
        now = time.perf_counter()
        if self._last is not None:
            self._times.append(now - self._last)
            self._samples.append(num_samples)
        self._last = now
        if self.timer_only:
            self.step_num += 1
            return
        self._end_step_range()
        previous = self.current_state
        self.step_num += 1
        self.current_state = self.scheduler(self.step_num)
        if self._torch is not None and (previous == ProfilerState.RECORD_AND_RETURN or
                                        self.current_state not in _RECORDING):
            self._end_window()
            self._torch = None
        if self._torch is None and self.current_state in _RECORDING:
            self._begin_window()
        self._begin_step_range()

    def stop(self):
        if self._torch is not None:
            self._end_window()
            self._torch = None
        self.current_state = ProfilerState.CLOSED

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- results -----------------------------------------------------------------------------------------------
    def step_info(self, unit=None):
        """Batch cost and ips averaged over the steps since the previous call ('' when there were none)."""
        times, samples = self._times, self._samples
        self._times, self._samples = [], []
        if not times:
            return ""
        cost = sum(times) / len(times)
        if any(s is None for s in samples):
            ips, unit = 1.0 / cost if cost > 0 else 0.0, unit or "steps"
        else:
            ips, unit = sum(samples) / sum(times) if sum(times) > 0 else 0.0, unit or "samples"
        return f" batch_cost: {cost:.5f} s ips: {ips:.3f} {unit}/s"

    def export(self, path="", format="json"):
        if format != "json":
            raise ValueError(f"Profiler.export: format must be 'json' ({_NO_PROTOBUF}), got {format!r}")
        if self._done is None:
            raise RuntimeError("Profiler.export: no trace recorded")
        if self._done_file is not None and os.path.isfile(self._done_file):
            # torch writes a trace once; later exports of the same window copy that file
            shutil.copyfile(self._done_file, path)
        else:
            self._done.export_chrome_trace(path)
            self._done_file = os.path.abspath(path)

    def summary(self, sorted_by=SortedKeys.CPUTotal, op_detail=True, thread_sep=False, time_unit="ms",
                views=None):
        if time_unit not in ("s", "ms", "us", "ns"):
            raise ValueError(f"summary: time_unit must be one of 's', 'ms', 'us', 'ns', got {time_unit!r}")
        if not isinstance(sorted_by, SortedKeys):
            raise TypeError(f"summary: sorted_by must be a SortedKeys, got {sorted_by!r}")
        if self._events is None:
            raise RuntimeError("Profiler.summary: nothing was recorded (the scheduler never reached RECORD, or "
                               "timer_only=True)")
        print(summary_text(self._events, sorted_by, time_unit, views, op_detail))
