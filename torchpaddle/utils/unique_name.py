"""paddle.utils.unique_name: ``generate(key)`` -> ``key_N`` with a counter per key; ``guard`` scopes counters."""
import collections
import contextlib
import itertools

__all__ = ["generate", "switch", "guard"]


class _Generator:
    def __init__(self, prefix=""):
        self.prefix = prefix
        self.counters = collections.defaultdict(itertools.count)

    def __call__(self, key):
        return f"{self.prefix}{key}_{next(self.counters[key])}"


_CURRENT = [_Generator()]


def generate(key):
    return _CURRENT[0](key)


def switch(new_generator=None):
    old = _CURRENT[0]
    _CURRENT[0] = new_generator if new_generator is not None else _Generator()
    return old


@contextlib.contextmanager
def guard(new_generator=None):
    if isinstance(new_generator, str):
        new_generator = _Generator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
