"""The workload registry.

A workload is written once against the Paddle API, as a function ``build(paddle) -> run`` where ``paddle``
is the backend module (torchpaddle, real Paddle, or the torch shim) and ``run(n)`` does ``n`` iterations and
returns the last result (used for a cross-backend checksum). Setup (data, layers) happens in ``build`` and
is not timed.

A workload may replace its function for one backend (``@wl.backend("torch")``), e.g. a training step
written in plain torch, or mark a backend unsupported with ``wl.backend("torch")(None)``.

This package must import without torch or torchpaddle: the real-Paddle worker loads it too.
"""
import fnmatch
import importlib
import pkgutil

__all__ = ["Workload", "REGISTRY", "workload", "load_all", "select", "BACKENDS"]

BACKENDS = ("torch", "torchpaddle", "paddle")
REGISTRY = {}


class Workload:
    """One benchmark: a name, a group, how many ops one iteration holds, and a function per backend."""

    def __init__(self, name, group, build, ops=1, requires=(), doc="", repeats=None):
        self.name = name
        self.group = group
        self.ops = ops
        self.repeats = repeats  # cap on timed repeats, for workloads whose one iteration takes milliseconds
        self.requires = tuple(requires)
        self.doc = doc or (build.__doc__ or "").strip().splitlines()[0]
        self._builds = {b: build for b in BACKENDS}
        self._replaced = set()  # backends with their own build: ``requires`` (Paddle names) does not apply

    def backend(self, name):
        """Decorator: use a different build function (or None: unsupported) for backend ``name``."""
        if name not in BACKENDS:
            raise ValueError(f"unknown backend {name!r}; expected one of {BACKENDS}")

        def register(build):
            self._builds[name] = build
            self._replaced.add(name)
            return build
        return register

    def build_for(self, backend):
        return self._builds[backend]

    def missing(self, module, backend=None):
        """The Paddle API names this workload needs that ``module`` lacks (dotted names allowed); none for a
        backend that has its own build function."""
        if backend in self._replaced:
            return []
        out = []
        for name in self.requires:
            obj = module
            for part in name.split("."):
                obj = getattr(obj, part, None)
                if obj is None:
                    break
            if obj is None:
                out.append(name)
        return out

    def __repr__(self):
        return f"Workload({self.name!r}, group={self.group!r}, ops={self.ops})"


def workload(name, group, ops=1, requires=(), doc="", repeats=None):
    """Register ``build(paddle) -> run(n)`` as workload ``name``; returns the Workload. ``repeats`` caps the
    timed repeats (full run; a quick run takes a third of it) for workloads whose iteration is slow."""
    def register(build):
        if name in REGISTRY:
            raise ValueError(f"workload {name!r} is registered twice")
        wl = Workload(name, group, build, ops=ops, requires=requires, doc=doc, repeats=repeats)
        REGISTRY[name] = wl
        return wl
    return register


def load_all():
    """Import every module of this package (each registers its workloads); returns REGISTRY."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{info.name}")
    return REGISTRY


def select(patterns):
    """Workloads whose name or group matches one of the comma-separated glob ``patterns`` (all if empty)."""
    load_all()
    if not patterns:
        return list(REGISTRY.values())
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [wl for wl in REGISTRY.values()
              if any(fnmatch.fnmatchcase(wl.name, p) or fnmatch.fnmatchcase(wl.group, p) for p in wanted)]
    if not chosen:
        names = ", ".join(sorted(REGISTRY)) + "; groups: " + ", ".join(sorted({w.group for w in REGISTRY.values()}))
        raise SystemExit(f"--only {patterns!r} matches no workload (workloads: {names})")
    return chosen
