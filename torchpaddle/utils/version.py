"""paddle.utils.require_version: check the running Paddle API version (torchpaddle's ``__version__``)."""
import re
import sys

__all__ = ["require_version"]


def installed_version():
    """torchpaddle.__version__, the Paddle version whose API it implements (read at call time: the package
    itself sits above utils)."""
    return sys.modules[__name__.split(".")[0]].__version__

_FORMAT = re.compile(r"\d+(\.\d+){0,3}")


def _check(value, what, allowed="str"):
    if not isinstance(value, str):
        raise TypeError(f"The type of '{what}' in require_version must be {allowed}, but received {type(value)}.")
    if not _FORMAT.fullmatch(value):
        raise ValueError(f"The value of '{what}' in require_version must be in format '\\d+(\\.\\d+){{0,3}}', like "
                         f"'1.5.2.0', but received {value}")


def _parts(text):
    parts = [int(p) for p in text.split(".")]
    return parts + [0] * (4 - len(parts))


def require_version(min_version, max_version=None):
    """Raise unless min_version <= the running version (<= max_version); both like '2.0' or '1.5.2.0'."""
    __version__ = installed_version()
    _check(min_version, "min_version")
    if max_version is not None:
        _check(max_version, "max_version", "str or type(None)")
    if __version__ == "0.0.0":  # a development build satisfies every requirement
        return
    current = _parts(__version__)
    if max_version is not None and not _parts(min_version) <= current <= _parts(max_version):
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] required, but "
                        f"{__version__} installed.")
    if current < _parts(min_version):
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is required, but "
                        f"{__version__} installed, please upgrade your PaddlePaddle to {min_version} or other "
                        "higher version.")
