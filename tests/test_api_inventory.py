"""Every name of the `002:paddle` inventory section resolves in torchpaddle and has a test: an op-table row
calling it, or a test file listed here that exercises it."""
import csv
import os

import pytest

import torchpaddle
from conftest import ROOT
from tests.optable.runner import load_rows

INVENTORY = os.path.join(ROOT, "..", "shared", "api", "inventory.tsv")
# Names that later issues bring (see the issue texts).
LATER = {"paddle.DataParallel"}
# Names tested outside the op table: name -> test file that exercises it.
TESTED_ELSEWHERE = {
    "paddle.Tensor": "tests/framework/test_tensor.py",
    "paddle.CPUPlace": "tests/framework/test_place.py",
    "paddle.CUDAPlace": "tests/framework/test_place.py",
    "paddle.CUDAPinnedPlace": "tests/framework/test_place.py",
    "paddle.XPUPlace": "tests/framework/test_place.py",
    "paddle.set_device": "tests/framework/test_place.py",
    "paddle.get_device": "tests/framework/test_place.py",
    "paddle.is_compiled_with_cuda": "tests/framework/test_place.py",
    "paddle.is_compiled_with_xpu": "tests/framework/test_place.py",
    "paddle.get_cudnn_version": "tests/framework/test_place.py",
    "paddle.set_default_dtype": "tests/framework/test_dtype.py",
    "paddle.get_default_dtype": "tests/framework/test_dtype.py",
    "paddle.in_dynamic_mode": "tests/framework/test_mode.py",
    "paddle.enable_static": "tests/framework/test_mode.py",
    "paddle.disable_static": "tests/framework/test_mode.py",
    "paddle.is_tensor": "tests/framework/test_tensor.py",
    "paddle.grad": "tests/autograd/test_grad.py",
    "paddle.no_grad": "tests/autograd/test_grad_mode.py",
    "paddle.save": "tests/framework/test_save_load.py",
    "paddle.load": "tests/framework/test_save_load.py",
    "paddle.seed": "tests/framework/test_random_state.py",
    "paddle.get_cuda_rng_state": "tests/framework/test_random_state.py",
    "paddle.set_cuda_rng_state": "tests/framework/test_random_state.py",
    "paddle.ParamAttr": "tests/framework/test_param_attr.py",
    "paddle.Model": "tests/hapi/test_hapi_api.py",
    "paddle.summary": "tests/hapi/test_hapi_api.py",
    "paddle.flops": "tests/hapi/test_hapi_api.py",
}


def _section(name):
    if not os.path.exists(INVENTORY):
        pytest.skip("shared/api/inventory.tsv not beside the repo")
    with open(INVENTORY, newline="") as f:
        return [row["qualified_name"] for row in csv.DictReader(f, delimiter="\t") if row["seed_section"] == name]


def _resolve(qualified):
    obj = torchpaddle
    for part in qualified.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def test_every_paddle_name_resolves():
    missing = []
    for name in _section("002:paddle"):
        if name in LATER:
            continue
        try:
            _resolve(name)
        except AttributeError:
            missing.append(name)
    assert not missing, f"{len(missing)} names do not resolve: {missing}"


def test_every_paddle_name_is_tested():
    tested = {"paddle." + case.api for case in load_rows().values() if not case.api.startswith("Tensor.")}
    untested = []
    for name in _section("002:paddle"):
        if name in LATER or name in tested:
            continue
        path = TESTED_ELSEWHERE.get(name)
        short = name.rsplit(".", 1)[1]
        if path is None or not os.path.exists(os.path.join(ROOT, path)):
            untested.append(name)
            continue
        with open(os.path.join(ROOT, path)) as f:
            if short not in f.read():
                untested.append(f"{name} (not mentioned in {path})")
    assert not untested, f"{len(untested)} names have no test: {untested}"


# Issue 3's sections: each name must resolve, and its short name must appear in a test or cases module of the
# folders that test that area (the op table counts for functionals).
_AREA_TESTS = {
    "002:paddle.nn": ["tests/nn", "tests/optimizer", "tests/distributed"],
    "002:paddle.nn.functional": ["tests/nn"],
    "002:paddle.vision.transforms": ["tests/vision", "tests/fixtures/vision"],
    "extra:nn.Layer": ["tests/nn"],
    "extra:optimizer": ["tests/optimizer"],
    "extra:optimizer.lr": ["tests/optimizer"],
    "extra:io": ["tests/io"],
    "extra:metric": ["tests/metric"],
    "extra:Model": ["tests/hapi"],
}


def _area_text(folders):
    text = []
    for folder in folders:
        path = os.path.join(ROOT, folder)
        for dirpath, _, files in os.walk(path):
            for name in files:
                if name.endswith(".py"):
                    with open(os.path.join(dirpath, name)) as f:
                        text.append(f.read())
    return "\n".join(text)


@pytest.mark.parametrize("section", sorted(_AREA_TESTS))
def test_issue3_names_resolve_and_are_tested(section):
    import re
    rows = {case.api for case in load_rows().values()}
    text = _area_text(_AREA_TESTS[section])
    missing, untested = [], []
    for name in _section(section):
        try:
            _resolve(name)
        except AttributeError:
            missing.append(name)
            continue
        short = name.rsplit(".", 1)[1]
        if name[len("paddle."):] in rows:
            continue
        if not re.search(r"\b" + re.escape(short) + r"\b", text):
            untested.append(name)
    assert not missing, f"{section}: {len(missing)} names do not resolve: {missing}"
    assert not untested, f"{section}: {len(untested)} names are not exercised by any test: {untested}"
