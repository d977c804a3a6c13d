"""paddle.utils.download: fetch a file (model weights, a dataset archive) into a cache folder once, check its
MD5 and unpack tar/zip archives. A file already in the cache (with the right MD5) is used without any network
access, so a machine without one works from a pre-filled cache; otherwise the download error says where to
put the file. Archives are unpacked safely (no member may land outside the target folder)."""
import hashlib
import http.client
import os
import shutil
import tarfile
import tempfile
import urllib.request
import zipfile

__all__ = ["get_weights_path_from_url", "get_path_from_url", "is_url", "WEIGHTS_HOME"]

WEIGHTS_HOME = os.path.expanduser("~/.cache/paddle/hapi/weights")
DOWNLOAD_RETRY_LIMIT = 3


def is_url(path):
    return path.startswith("http://") or path.startswith("https://")


def get_weights_path_from_url(url, md5sum=None):
    """The local path of the weights at ``url``, downloaded into ~/.cache/paddle/hapi/weights if needed."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)


def _map_path(url, root_dir):
    return os.path.join(root_dir, os.path.split(url)[-1])


def _md5check(fullname, md5sum=None):
    if md5sum is None:
        return True
    md5 = hashlib.md5()
    with open(fullname, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            md5.update(chunk)
    return md5.hexdigest() == md5sum


def _fetch(url, target):
    """Copy the resource at ``url`` into the file ``target``."""
    with urllib.request.urlopen(url, timeout=60) as response, open(target, "wb") as f:
        shutil.copyfileobj(response, f)


def _download(url, path, md5sum=None, method="get"):
    """Download ``url`` into the folder ``path`` (retrying, MD5-checked, atomically); -> the file's path."""
    if method not in ("get", "wget"):
        raise ValueError(f"download method should be 'get' or 'wget', got {method!r}")
    os.makedirs(path, exist_ok=True)
    fullname = _map_path(url, path)
    errors = []
    for _ in range(DOWNLOAD_RETRY_LIMIT):
        fd, tmp = tempfile.mkstemp(dir=path, prefix=".download-")
        os.close(fd)
        try:
            _fetch(url, tmp)
            if _md5check(tmp, md5sum):
                os.replace(tmp, fullname)
                return fullname
            errors.append("MD5 mismatch")
        except (OSError, http.client.HTTPException, ValueError) as exc:
            errors.append(str(exc))
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    raise RuntimeError(f"Download from {url} failed. Retry limit reached ({'; '.join(errors)}). Without network "
                       f"access, put the file at {fullname} to use it from the cache.")


def _is_a_single_file(names):
    return len(names) == 1 and "/" not in names[0].strip("/")


def _is_a_single_dir(names):
    roots = {name.replace("\\", "/").split("/")[0] for name in names}
    return len(roots) == 1


def _check_member(name, target):
    dest = os.path.realpath(os.path.join(target, name))
    root = os.path.realpath(target)
    if os.path.isabs(name) or not (dest == root or dest.startswith(root + os.sep)):
        raise ValueError(f"refusing to unpack {name!r}: it would be written outside {target}")


def _decompress(fname):
    """Unpack a tar or zip archive next to it; -> the unpacked file or folder."""
    if tarfile.is_tarfile(fname):
        archive = tarfile.open(fname, "r:*")
        names = archive.getnames()
    elif zipfile.is_zipfile(fname):
        archive = zipfile.ZipFile(fname)
        names = archive.namelist()
    else:
        raise TypeError(f"Unsupported compress file type {fname}")
    with archive:
        file_dir = os.path.dirname(fname)
        if _is_a_single_file(names) or _is_a_single_dir(names):
            target = file_dir
            result = os.path.join(file_dir, names[0].replace("\\", "/").strip("/").split("/")[0])
        else:
            result = target = os.path.join(file_dir, os.path.splitext(os.path.basename(fname))[0])
            os.makedirs(target, exist_ok=True)
        for name in names:
            _check_member(name, target)
        if isinstance(archive, tarfile.TarFile):
            archive.extractall(target, filter="data")
        else:
            archive.extractall(target)
    return result


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True, method="get"):
    """The local path of ``url`` under ``root_dir``: the cached file when it exists (and matches ``md5sum``),
    else a fresh download; archives are unpacked (the unpacked path is returned)."""
    assert is_url(url), f"downloading from {url} not a url"
    fullpath = _map_path(url, root_dir)
    if not (os.path.exists(fullpath) and check_exist and _md5check(fullpath, md5sum)):
        fullpath = _download(url, root_dir, md5sum, method)
    if decompress and (tarfile.is_tarfile(fullpath) or zipfile.is_zipfile(fullpath)):
        fullpath = _decompress(fullpath)
    return fullpath
