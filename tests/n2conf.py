import os
import tests.test_conformance as tc
MODS = os.environ["MODS"].split(",")
tc.row_modules = lambda: MODS
from tests.test_conformance import reference  # noqa
import pytest
NAMES = sorted(n for n, c in tc.ROWS.items() if c.conformance and c.module in MODS)

@pytest.mark.parametrize("name", NAMES)
def test_conf(name, reference):
    tc.test_matches_real_paddle.__wrapped__(name, reference) if hasattr(tc.test_matches_real_paddle, "__wrapped__") else tc.test_matches_real_paddle(name, reference)
