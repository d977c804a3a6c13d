"""Fault injection for the save tests: stop a save at a chosen step, as a kill or a full disk would
(the steps are those of torchpaddle/framework/atomic.py)."""
import contextlib
import errno
import os


class Killed(BaseException):
    """Stands for the process dying: a BaseException, so no ``except Exception`` in a save handles it."""


@contextlib.contextmanager
def killed_at_rename(n):
    """Let the save do ``n`` renames, then stop it at the next one. A set save renames its manifest first
    (rename 0), then its members in order (1, 2, ...)."""
    real, done = os.replace, [0]

    def replace(src, dst, **kwargs):
        if done[0] == n:
            raise Killed(f"killed before renaming {src} to {dst}")
        done[0] += 1
        return real(src, dst, **kwargs)
    os.replace = replace
    try:
        yield
    finally:
        os.replace = real


@contextlib.contextmanager
def disk_full_at_fsync(n):
    """fsync number ``n`` (0-based) fails with ENOSPC: a set save fsyncs each member's temporary in order."""
    real, done = os.fsync, [0]

    def fsync(fd):
        if done[0] == n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        done[0] += 1
        return real(fd)
    os.fsync = fsync
    try:
        yield
    finally:
        os.fsync = real
