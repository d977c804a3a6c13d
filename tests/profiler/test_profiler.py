"""paddle.profiler on torch.profiler: the step machinery against real Paddle 3.3.1, traces and tables by hand."""
import json
import os
import re
import time

import pytest

import paddle_ref
import torchpaddle as paddle
from torchpaddle import profiler
from tests.profiler import profiler_cases


def _same(ours, theirs, name):
    assert ours == theirs, f"{name}: ours {ours!r}, Paddle {theirs!r}"


reference, ours, test_matches_real_paddle = paddle_ref.case_table(
    "tests.profiler.profiler_cases", {"states": 0, "ready": 0, "step_info": 0, "step_info_again": 0},
    lambda: profiler_cases.run(profiler), _same)


def test_record_event_trace_and_summary(tmp_path, capsys):
    p = profiler.Profiler(scheduler=(1, 3), on_trace_ready=profiler.export_chrome_tracing(str(tmp_path), "w"))
    p.start()
    for _ in range(4):
        with profiler.RecordEvent("my_event"):
            paddle.ones([4, 4]).sum()
        event = profiler.RecordEvent("by_hand")
        event.begin()
        event.end()
        p.step()
    p.stop()
    files = sorted(os.listdir(tmp_path))
    assert len(files) == 1 and files[0].startswith("w_time_") and files[0].endswith(".paddle_trace.json")
    names = [e.get("name") for e in json.load(open(tmp_path / files[0]))["traceEvents"]]
    # steps 1 and 2 were recorded (scheduler (1, 3)): two of each range and their step ranges
    assert names.count("my_event") == 2 and names.count("by_hand") == 2
    assert "ProfileStep#1" in names and "ProfileStep#2" in names and "ProfileStep#0" not in names
    p.export(str(tmp_path / "again.json"))
    assert "my_event" in (tmp_path / "again.json").read_text()
    with pytest.raises(ValueError, match="json"):
        p.export(str(tmp_path / "again.pb"), format="pb")
    p.summary(time_unit="us", views=[profiler.SummaryView.OverView, profiler.SummaryView.UDFView])
    text = capsys.readouterr().out
    assert "Overview Summary" in text and "Time unit: us" in text
    assert re.search(r"\nmy_event +2 +[0-9.]+ / [0-9.]+ / [0-9.]+ / [0-9.]+ / [0-9.]+", text)
    assert re.search(r"\nProfileStep +2 ", text)


def test_timer_only_ips_by_hand():
    p = profiler.Profiler(timer_only=True)
    p.start()
    for _ in range(3):
        time.sleep(0.02)
        p.step(num_samples=8)
    m = re.fullmatch(r" batch_cost: ([0-9.]+) s ips: ([0-9.]+) samples/s", p.step_info())
    cost, ips = float(m.group(1)), float(m.group(2))
    assert 0.02 <= cost < 0.5 and ips == pytest.approx(8 / cost, rel=1e-2)
    assert p.step_info() == ""   # nothing since the previous call
    p.stop()


def test_errors():
    with pytest.raises(ValueError):
        profiler.make_scheduler(closed=-1, ready=0, record=1)
    with pytest.raises(ValueError):
        profiler.make_scheduler(closed=0, ready=0, record=0)
    with pytest.raises(ValueError):
        profiler.Profiler(scheduler=(3, 1))
    with pytest.raises(TypeError):
        profiler.Profiler(targets=["cpu"])
    with pytest.raises(RuntimeError, match="chrome"):
        profiler.export_protobuf("/tmp")
    with pytest.raises(RuntimeError, match="chrome"):
        profiler.load_profiler_result("x.pb")
    with pytest.raises(RuntimeError, match="nothing was recorded"):
        profiler.Profiler(timer_only=True).summary()
    with pytest.raises(TypeError):
        profiler.RecordEvent(3)
