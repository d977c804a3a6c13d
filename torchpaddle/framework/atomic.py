"""Atomic saves of one file and of a set of files saved together, and the load check that refuses a torn set.

One file (paddle.save, static.save_to_file): written to a temporary file in the same folder, fsynced,
``os.replace``d over the target, folder fsynced; a killed save leaves the previous file. An existing path that
is not a regular file (a FIFO, /dev/null, another device) is written through: renaming over it would destroy
the node, and Paddle writes through too.

A set (Model.save, static.save, static.save_inference_model, jit.save) cannot be replaced by one rename, and a
kill between two renames would leave old and new members that load together silently. Such a save also
writes ``<prefix>.tpsave``, a JSON manifest that records for every file of its kind (``.pdparams``, ``.pdopt``,
``.pdscaler``; or ``.pdmodel``, ``.pdiparams``, ``.pdiparams.info``...) the file it writes ("new": size,
SHA-256, stat identity; null for one it does not write, such as an earlier save's ``.pdopt``, which it
removes) and the file that was there ("old": size and stat identity, plus the SHA-256 the previous manifest
gave it while it is still that very file; no file is read for this). In order:
  1. every member goes to a temporary file (fsync); a failure removes them and leaves the old set whole;
  2. the manifest replaces the previous one (atomically, folder fsynced);
  3. temporaries are renamed over the members, files not written are removed, the folder is fsynced.
Loading a member checks the manifest when there is one. Each file is "new", "old", both (same content) or
neither (by stat identity, else by hash). All new, or all old (a kill before any rename), or all neither
(every file rewritten by another tool since) is one whole set and loads; anything else is a torn set (a kill
during step 3, or one file replaced since) and raises ``IncompleteSaveError``, which says to save again or
delete the manifest. Members hold exactly Paddle's bytes and Paddle never reads the manifest; files written
by Paddle have no manifest and load as before. A single-file save over a member removes the manifest, since
that file leaves the set.

Temporaries are ``.<name>.<host>-<pid>-<random>.tmp``. A save removes its target's temporaries left by dead
processes of this host, and those of other hosts (or of older torchpaddle versions) untouched for a day; a
live save's temporaries are kept.
"""
import errno
import hashlib
import json
import os
import re
import secrets
import socket
import stat
import time

__all__ = ["IncompleteSaveError", "write_file", "write_set", "check_member", "MANIFEST_SUFFIX"]

MANIFEST_SUFFIX = ".tpsave"
_FORMAT = "torchpaddle-save-set"
_VERSION = 1
# longest first: "x.pdiparams.info" is a member of prefix "x", not "x.pdiparams"
_MEMBER_SUFFIXES = (".pdiparams.info", ".pdiparams", ".pdparams", ".pdscaler", ".pdmodel", ".json", ".pdopt")
_MAX_MANIFEST = 1 << 20
_STALE_AGE = 24 * 3600  # seconds; for temporaries whose writer cannot be checked
_HOST = hashlib.sha1(socket.gethostname().encode("utf-8", "surrogateescape")).hexdigest()[:8]
_TEMP_TAIL = re.compile(r"(?:([0-9a-f]{8})-([0-9]{1,12})-)?[0-9a-f]{12}\.tmp")
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class IncompleteSaveError(ValueError):
    """Files saved together by one save do not all come from that save (it was interrupted, or one was replaced)."""


# -- temporaries ------------------------------------------------------------------------------------------
def _stem(base):
    # the temporary's name must stay under NAME_MAX (255 bytes) when the target's is close to it
    if len(os.fsencode(base)) <= 200:
        return base
    return base[:40] + "~" + hashlib.sha1(os.fsencode(base)).hexdigest()[:8]


def _open_temp(path):
    folder, base = os.path.split(path)
    while True:
        tmp = os.path.join(folder, f".{_stem(base)}.{_HOST}-{os.getpid()}-{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, _FLAGS, 0o666), tmp  # the umask applies, as for a plain open()
        except FileExistsError:
            continue


def _writer_alive(host, pid):
    """Whether the save that made a temporary may still run: False when it is known dead, None when that cannot
    be told from here (another host, or no signal 0 to ask with)."""
    if host != _HOST or os.name == "nt":
        return None
    if pid == os.getpid():
        return True  # another thread of this process may be saving to the same path
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):  # PermissionError: alive, another user's
        return True
    return True


def remove_stale_temps(path):
    """Remove temporaries of ``path`` left by killed saves (ours by name; never a live save's)."""
    folder, base = os.path.split(path)
    head = f".{_stem(base)}."
    try:
        entries = list(os.scandir(folder or "."))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(head) and name.endswith(".tmp")):
            continue
        found = _TEMP_TAIL.fullmatch(name, len(head))
        try:
            if found is None or not entry.is_file(follow_symlinks=False):
                continue
            alive = _writer_alive(found.group(1), int(found.group(2))) if found.group(1) else None
            if alive is None:
                alive = time.time() - entry.stat(follow_symlinks=False).st_mtime < _STALE_AGE
            if not alive:
                os.unlink(entry.path)
        except OSError:
            continue  # gone already, or not ours to remove


class _Hashing:
    """A file wrapper that hashes what goes through ``write``."""
    __slots__ = ("_f", "hash")

    def __init__(self, f):
        self._f, self.hash = f, hashlib.sha256()

    def write(self, data):
        self.hash.update(data)
        return self._f.write(data)


def _write_temp(path, write, mode_from, hashing=False):
    """Write a temporary beside ``path`` with ``write(f)``, fsynced; (temp path, sha256 hex or None)."""
    fd, tmp = _open_temp(path)
    digest = None
    try:
        with os.fdopen(fd, "wb") as f:
            target = _Hashing(f) if hashing else f
            write(target)
            f.flush()
            os.fsync(f.fileno())
        if hashing:
            digest = target.hash.hexdigest()
        if mode_from is not None:
            try:
                os.chmod(tmp, stat.S_IMODE(mode_from.st_mode))  # keep an existing file's permissions
            except OSError:
                pass
    except BaseException:
        _unlink(tmp)
        raise
    return tmp, digest


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def fsync_folder(folder):
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _target(path):
    """The file a save to ``path`` replaces (a symlink's target) and its stat (None for a new path)."""
    if os.path.islink(path):
        path = os.path.realpath(path)
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return path, None
    if stat.S_ISDIR(found.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return path, found


def _write_through(path, write):
    with open(path, "wb") as f:
        write(f)


# -- one file ---------------------------------------------------------------------------------------------
def write_file(path, write):
    """Replace ``path`` atomically by what ``write(f)`` writes; a FIFO or device is written through."""
    logical = path
    path, found = _target(path)
    if found is not None and not stat.S_ISREG(found.st_mode):
        return _write_through(path, write)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    remove_stale_temps(path)
    tmp, _ = _write_temp(path, write, found)
    try:
        _leave_set(logical)
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise
    fsync_folder(folder)


def _set_prefix(path):
    for suffix in _MEMBER_SUFFIXES:
        if path.endswith(suffix):
            return path[:-len(suffix)]
    return None


def _leave_set(path):
    """``path`` is about to hold a file that no set save wrote: a manifest listing it no longer describes it."""
    prefix = _set_prefix(path)
    if prefix is not None and os.path.lexists(prefix + MANIFEST_SUFFIX):
        _unlink(prefix + MANIFEST_SUFFIX)


# -- a set of files ---------------------------------------------------------------------------------------
def write_set(prefix, members, family):
    """Write ``prefix + suffix`` for each ``(suffix, bytes or write(f))`` of ``members`` as one set (see the
    module docstring); the suffixes of ``family`` not among them are removed as left over from an earlier save."""
    members = [(s, data if callable(data) else (lambda f, data=data: f.write(data))) for s, data in members]
    targets = {s: _target(prefix + s) for s, _ in members}
    manifest = prefix + MANIFEST_SUFFIX
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    if any(found is not None and not stat.S_ISREG(found.st_mode) for _, found in targets.values()):
        # a FIFO or device cannot take part in a rename; such a set is written member by member
        _unlink(manifest)
        for suffix, write in members:
            write_file(prefix + suffix, write)
        return
    entries = _previous(prefix, set(family).union(targets))
    temps, folders = [], {os.path.dirname(os.path.abspath(manifest))}
    try:
        for suffix, write in members:
            path, found = targets[suffix]
            remove_stale_temps(path)
            tmp, digest = _write_temp(path, write, found, hashing=True)
            temps.append((tmp, path))
            folders.add(os.path.dirname(os.path.abspath(path)))
            entries[suffix]["new"] = dict(_identity(os.stat(tmp)), sha256=digest)
        text = json.dumps({"format": _FORMAT, "version": _VERSION, "members": entries}, indent=1, sort_keys=True)
        remove_stale_temps(manifest)
        tmp, _ = _write_temp(manifest, lambda f: f.write(text.encode("ascii")), None)
        temps.append((tmp, manifest))
        os.replace(tmp, manifest)
        temps.pop()
        for folder in folders:
            fsync_folder(folder)   # the manifest is on disk before the first member moves
        while temps:
            tmp, path = temps[0]
            os.replace(tmp, path)
            temps.pop(0)
    except BaseException:
        for tmp, _ in temps:
            _unlink(tmp)
        raise
    for suffix, entry in entries.items():
        path = prefix + suffix
        if entry["new"] is None and (os.path.islink(path) or os.path.isfile(path)):
            _unlink(path)   # left by an earlier save; never a FIFO or device
    for folder in folders:
        fsync_folder(folder)


def _identity(found):
    return {"size": found.st_size, "stat": [found.st_dev, found.st_ino, found.st_mtime_ns]}


def _previous(prefix, family):
    """{suffix: {"old": what is there now, "new": None}}; an old file's hash is taken from the manifest of the
    save that wrote it when that is still the very file (no file is read here)."""
    try:
        known = _read_manifest(prefix + MANIFEST_SUFFIX)
    except (OSError, ValueError):
        known = {}
    entries = {}
    for suffix in family:
        try:
            found = os.stat(prefix + suffix)
        except OSError:
            found = None
        old = None
        if found is not None and stat.S_ISREG(found.st_mode):
            old = _identity(found)
            wrote = (known.get(suffix) or {}).get("new")
            if wrote is not None and wrote.get("stat") == old["stat"] and wrote["size"] == old["size"]:
                old["sha256"] = wrote["sha256"]
        elif found is not None:
            old = {"size": -1}   # not a regular file: no file can match it
        entries[suffix] = {"old": old, "new": None}
    return entries


# -- the load check ---------------------------------------------------------------------------------------
def check_member(path):
    """Raise IncompleteSaveError when ``path`` belongs to a set whose manifest shows it torn; else nothing."""
    prefix = _set_prefix(path)
    if prefix is not None:
        check_set(prefix)


def check_set(prefix):
    manifest = prefix + MANIFEST_SUFFIX
    if not os.path.isfile(manifest):
        return
    fits = {}   # suffix -> the subset of {"new", "old"} the file on disk is
    for suffix, entry in _read_manifest(manifest).items():
        fit = _fit(prefix + suffix, entry["new"], entry["old"])
        if fit is not None:
            fits[suffix] = fit
    values = list(fits.values())
    if all("new" in f for f in values) or all("old" in f for f in values) or \
            all("absent" in f or not f for f in values):
        return   # the last save's set, the one it replaced, or files another tool wrote since: all one set

    def names(chosen):
        return ", ".join(os.path.basename(prefix) + s for s in chosen)
    new = [s for s, f in fits.items() if "new" in f and "old" not in f]
    rest = [s for s, f in fits.items() if "new" not in f]
    raise IncompleteSaveError(
        f"the files at {prefix!r} were saved together, but {names(rest)} {'is' if len(rest) == 1 else 'are'} not "
        f"what that save wrote while {names(new)} {'is' if len(new) == 1 else 'are'}: the save was interrupted "
        f"or a file was replaced since, and the files would load as a mix of two saves. Save again, or delete "
        f"{manifest} to load them as they are.")


def _fit(path, new, old):
    """Which of the last save's file (``new``) and the one it replaced (``old``) ``path`` is, tagged "absent" when
    only its absence tells; None when that tells nothing (missing although the save wrote it: the loader says so)."""
    try:
        found = os.stat(path)
    except OSError:
        found = None
    if found is None:
        if (new is None) == (old is None):
            return None
        return {"new" if new is None else "old", "absent"}
    if not stat.S_ISREG(found.st_mode):
        return set()
    fit, digest = set(), []
    for name, record in (("new", new), ("old", old)):
        if record is not None and _matches(path, found, record, digest):
            fit.add(name)
    return fit


def _matches(path, found, record, digest):
    if found.st_size != record["size"]:
        return False
    if record.get("stat") == [found.st_dev, found.st_ino, found.st_mtime_ns]:
        return True   # the very file the save saw or renamed into place, untouched since
    if "sha256" not in record:
        return False
    if not digest:   # hashed at most once, however many records ask
        h = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
        except OSError:
            return False
        digest.append(h.hexdigest())
    return digest[0] == record["sha256"]


def _read_manifest(manifest):
    """{suffix: {"new": record or None, "old": record or None}}; ValueError naming the file when it is bad."""
    def bad(why):
        return ValueError(f"cannot read the save manifest {manifest} ({why}); delete it to load the files it lists "
                          "without checking that they come from one save")
    with open(manifest, "rb") as f:
        data = f.read(_MAX_MANIFEST + 1)
    if len(data) > _MAX_MANIFEST:
        raise bad("too large")
    try:
        doc = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as e:
        raise bad(f"not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
        raise bad("not a torchpaddle save manifest")
    if doc.get("version") != _VERSION:
        raise bad(f"version {doc.get('version')!r}; this torchpaddle reads version {_VERSION}")
    members = doc.get("members")
    if not isinstance(members, dict):
        raise bad("no member table")
    for suffix, entry in members.items():
        if suffix not in _MEMBER_SUFFIXES or not isinstance(entry, dict) or \
                not all(_good_record(entry.get(k), k == "new") for k in ("new", "old")):
            raise bad(f"bad entry for {suffix!r}")
    return members


def _good_record(record, hashed):
    if record is None:
        return True
    return (isinstance(record, dict) and type(record.get("size")) is int and
            (record.get("stat") is None or (isinstance(record["stat"], list) and len(record["stat"]) == 3)) and
            (("sha256" not in record and not hashed) or
             (isinstance(record.get("sha256"), str) and re.fullmatch(r"[0-9a-f]{64}", record["sha256"]))))
