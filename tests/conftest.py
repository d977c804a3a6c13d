import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


import pytest  # noqa: E402


@pytest.fixture
def legacy_program_format():
    """Saves write the legacy ``.pdmodel`` ProgramDesc (FLAGS_enable_pir_api off), as the Paddle references of the
    tests using this run. Paddle 3.3.1's default, and torchpaddle's, is the PIR ``.json`` program."""
    import torchpaddle as paddle
    old = paddle.get_flags("FLAGS_enable_pir_api")
    paddle.set_flags({"FLAGS_enable_pir_api": False})
    try:
        yield
    finally:
        paddle.set_flags(old)


@pytest.fixture
def static_mode():
    """Static mode with fresh default programs, a fresh global scope and fresh names; dygraph again after."""
    import torchpaddle as paddle
    from torchpaddle.framework import program as _program
    main, startup = paddle.static.Program(), paddle.static.Program()
    old_main = _program.switch_main_program(main)
    old_startup = _program.switch_startup_program(startup)
    paddle.enable_static()
    try:
        with paddle.utils.unique_name.guard(), paddle.static.scope_guard(paddle.static.Scope()):
            yield main, startup
    finally:
        paddle.disable_static()
        _program.switch_main_program(old_main)
        _program.switch_startup_program(old_startup)
