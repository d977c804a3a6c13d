import os
import pytest
import tests.test_conformance as tc
MODS = os.environ["MODS"].split(",")
tc.row_modules = lambda: MODS
NAMES = sorted(n for n, c in tc.ROWS.items() if c.conformance and c.module in MODS)


@pytest.fixture(scope="session")
def reference():
    return tc._compute_reference()   # no cache: a partial reference must never be stored


@pytest.mark.parametrize("name", NAMES)
def test_conf(name, reference):
    tc.test_matches_real_paddle(name, reference)
