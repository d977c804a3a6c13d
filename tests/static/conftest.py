import pytest

import torchpaddle as paddle


@pytest.fixture
def static_mode():
    """Static mode with fresh default programs, a fresh global scope and fresh names; dygraph again after."""
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
