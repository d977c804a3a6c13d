"""Runs a hapi_cases scenario on torchpaddle and compares it with what real Paddle 3.3.1 produced."""
import json
import math
import os
import re
import sys
import types

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "hapi")
sys.path.insert(0, FIXTURES)

import hapi_cases  # noqa: E402

_FLOAT = re.compile(r"-?\d+\.\d+(?:e[-+]\d+)?")
_TIMER = re.compile(r"\d+\.\d+ (sec|samples/sec)")   # verbose=3 reader/batch costs: real time, not the fake clock


def expected():
    with open(os.path.join(FIXTURES, "expected.json")) as f:
        return json.load(f)


def run(name, tmp_path):
    import torchpaddle
    ctx = types.SimpleNamespace(tmp=str(tmp_path), fixtures=FIXTURES,
                                checkpoint=os.path.join(FIXTURES, "paddle_ckpt"))
    return json.loads(json.dumps(hapi_cases.run_case(torchpaddle, name, ctx)))


def split_text(text):
    """(template, numbers): the text with its decimals replaced by '#', and those decimals."""
    text = _TIMER.sub(r"<T> \1", text)
    return _FLOAT.sub("#", text), [float(x) for x in _FLOAT.findall(text)]


def assert_close(actual, expected, path="", rtol=1e-4, atol=2e-5):
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected a dict, got {actual!r}"
        assert sorted(actual) == sorted(expected), f"{path}: keys {sorted(actual)} != {sorted(expected)}"
        for key in expected:
            assert_close(actual[key], expected[key], f"{path}.{key}", rtol, atol)
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{path}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{path}: length {len(actual)} != {len(expected)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, f"{path}[{i}]", rtol, atol)
    elif isinstance(expected, float) or (isinstance(actual, float) and isinstance(expected, int)):
        assert isinstance(actual, (int, float)) and not isinstance(actual, bool), f"{path}: {actual!r}"
        assert math.isclose(actual, expected, rel_tol=rtol, abs_tol=atol), f"{path}: {actual} != {expected}"
    elif isinstance(expected, str) and path.endswith("stdout"):
        assert_same_text(actual, expected, path)
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


def assert_same_text(actual, expected, path="stdout", atol=1.5e-4):
    """Identical text except printed decimals, which may differ by one unit in the last printed digit."""
    template_a, numbers_a = split_text(actual)
    template_e, numbers_e = split_text(expected)
    if template_a != template_e:
        raise AssertionError(f"{path} differs:\n--- torchpaddle ---\n{actual!r}\n--- paddle ---\n{expected!r}")
    for a, e in zip(numbers_a, numbers_e):
        assert math.isclose(a, e, rel_tol=1e-4, abs_tol=atol), f"{path}: printed {a} != {e}\n{actual}"
