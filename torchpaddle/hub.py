"""paddle.hub: models published as a ``hubconf.py`` (its public callables are the entry points, its
``dependencies`` list the modules they need).

``source='local'`` reads the hubconf.py of a local folder. NOTE: that executes the file, by design, as in
Paddle: only point it at code you trust. ``source='github'``/``'gitee'`` download the repository archive into
~/.cache/paddle/hub first (a repository already there is reused, so it works offline once cached; otherwise the
download error says so).
"""
import builtins
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import warnings
import zipfile
from urllib.parse import urlparse

from .framework.io import load as _load
from .framework.place import get_device, set_device
from .utils.download import _download, get_path_from_url

__all__ = ["list", "help", "load", "load_state_dict_from_url"]

MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
HUB_DIR = os.path.expanduser(os.path.join("~", ".cache", "paddle", "hub"))
_SOURCES = ("github", "gitee", "local")


def _check_source(source):
    if source not in _SOURCES:
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "gitee" | "local".')


def _parse_repo_info(repo, source):
    branch = "main" if source == "github" else "master"
    repo_info = repo
    if ":" in repo:
        repo_info, branch = repo.split(":")
    if repo_info.count("/") != 1:
        raise ValueError(f"hub: a {source} repository is 'owner/name[:branch]', got {repo!r}")
    owner, name = repo_info.split("/")
    return owner, name, branch


def _archive_url(owner, name, branch, source):
    if source == "github":
        return f"https://github.com/{owner}/{name}/archive/{branch}.zip"
    return f"https://gitee.com/{owner}/{name}/repository/archive/{branch}.zip"


def _get_cache_or_reload(repo, force_reload, source):
    """The local folder of ``repo``'s archive: the cached one, or a fresh download."""
    owner, name, branch = _parse_repo_info(repo, source)
    normalized = branch.replace("/", "_")
    repo_dir = os.path.join(HUB_DIR, "_".join([owner, name, normalized]))
    if not force_reload and os.path.exists(repo_dir):
        sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    os.makedirs(HUB_DIR, exist_ok=True)
    cached = os.path.join(HUB_DIR, normalized + ".zip")
    if os.path.exists(cached):
        os.remove(cached)
    fpath = get_path_from_url(_archive_url(owner, name, branch, source), HUB_DIR, check_exist=not force_reload,
                              decompress=False)
    shutil.move(fpath, cached)
    with zipfile.ZipFile(cached) as archive:
        top = archive.infolist()[0].filename.split("/")[0]   # GitHub's "<name>-<branch>/" folder
        extracted = os.path.join(HUB_DIR, top)
        if os.path.exists(extracted):
            shutil.rmtree(extracted)
        for member in archive.namelist():
            target = os.path.realpath(os.path.join(HUB_DIR, member))
            if not target.startswith(os.path.realpath(HUB_DIR) + os.sep):
                raise ValueError(f"hub: refusing to unpack {member!r} outside {HUB_DIR}")
        archive.extractall(HUB_DIR)
    os.remove(cached)
    if os.path.exists(repo_dir):
        shutil.rmtree(repo_dir)
    shutil.move(extracted, repo_dir)
    return repo_dir


def _import_hubconf(repo_dir):
    """Execute ``repo_dir``/hubconf.py as a module (its folder importable meanwhile, for its own imports)."""
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise RuntimeError("Please make sure config exists or repo error messages above fixed when importing")
    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location(MODULE_HUBCONF[:-3], path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except ImportError as exc:
        raise RuntimeError("Please make sure config exists or repo error messages above fixed when importing "
                           f"({exc})") from exc
    finally:
        sys.path.remove(repo_dir)
    return module


def _resolve(repo_dir, source, force_reload):
    _check_source(source)
    if source in ("github", "gitee"):
        repo_dir = _get_cache_or_reload(repo_dir, force_reload, source)
    return _import_hubconf(repo_dir)


def _entry(module, name):
    if not isinstance(name, str):
        raise ValueError("Invalid input: model should be a str of function name")
    func = getattr(module, name, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {name} in hubconf")
    return func


def _check_dependencies(module):
    missing = []
    for package in getattr(module, VAR_DEPENDENCY, None) or ():
        try:
            __import__(package)
        except ImportError:
            missing.append(package)
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def list(repo_dir, source="github", force_reload=False):
    """The entry points (public callables) of the repository's hubconf.py."""
    module = _resolve(repo_dir, source, force_reload)
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(repo_dir, model, source="github", force_reload=False):
    """The docstring of entry point ``model``."""
    return _entry(_resolve(repo_dir, source, force_reload), model).__doc__


def load(repo_dir, model, source="github", force_reload=False, **kwargs):
    """Call entry point ``model`` with ``kwargs`` (after checking the hubconf's dependencies)."""
    module = _resolve(repo_dir, source, force_reload)
    _check_dependencies(module)
    return _entry(module, model)(**kwargs)


def _paddle_home():
    return os.path.expanduser(os.getenv("PADDLE_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"),
                                                                    "paddle")))


def get_dir():
    if os.getenv("PADDLE_HUB"):
        warnings.warn("PADDLE_HUB is deprecated, please use env PADDLE_HOME instead")
    return os.path.join(_paddle_home(), "hub")


_MAP_LOCATIONS = ("cpu", "gpu", "xpu", "npu", "numpy", "np")


def _load_file(path, map_location):
    if map_location in ("numpy", "np"):
        return _load(path, return_numpy=True)
    if map_location:
        previous = get_device()
        set_device(map_location)
        try:
            return _load(path)
        finally:
            set_device(previous)
    return _load(path)


def _check_sha256(path, filename):
    # the documented convention: "<name>-<first 8+ hex digits of the SHA256>.<ext>"
    match = re.search(r"-([a-f0-9]{8,})\.", filename)
    if match is None:
        raise ValueError(f"load_state_dict_from_url: check_hash needs a file name like 'name-<sha256 prefix>.ext', "
                         f"got {filename!r}")
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
    if not digest.hexdigest().startswith(match.group(1)):
        os.remove(path)
        raise RuntimeError(f'invalid hash value (expected "{match.group(1)}", got "{digest.hexdigest()}") for {path}')


def load_state_dict_from_url(url, model_dir=None, check_hash=False, file_name=None, map_location=None):
    """paddle.load of the file at ``url``, downloaded into ``model_dir`` (default <PADDLE_HOME>/hub/checkpoints)
    unless already there; a zip holding one file is unpacked first."""
    if map_location is not None and map_location not in _MAP_LOCATIONS:
        raise ValueError(f"load_state_dict_from_url: map_location must be one of {builtins.list(_MAP_LOCATIONS)}, "
                         f"got {map_location!r}")
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        downloaded = _download(url, model_dir)
        if check_hash:
            _check_sha256(downloaded, filename)
        if downloaded != cached:
            os.replace(downloaded, cached)
    if zipfile.is_zipfile(cached):
        with zipfile.ZipFile(cached) as archive:
            members = archive.infolist()
            if len(members) == 1 and not members[0].is_dir():
                name = os.path.basename(members[0].filename)
                with archive.open(members[0]) as src, open(os.path.join(model_dir, name), "wb") as dst:
                    shutil.copyfileobj(src, dst)
                cached = os.path.join(model_dir, name)
    return _load_file(cached, map_location)
