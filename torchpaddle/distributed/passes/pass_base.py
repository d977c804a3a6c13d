"""Paddle's pass framework: ``new_pass(name, attrs)`` makes a registered pass, ``pass.apply(main_programs,
startup_programs, context)`` runs it on each pair, ``PassManager`` runs a list in order and a ``PassContext``
records what was applied. A pass refuses itself (``_check_self``) when its attributes make no sense, and a
pass of a type already applied in the context is skipped, as in Paddle."""
from abc import ABC, abstractmethod

__all__ = ["PassContext", "PassType", "PassBase", "register_pass", "new_pass", "PassManager"]


class PassContext:
    """What passes applied in one pipeline share: the applied passes and named attributes."""

    def __init__(self):
        self._applied_passes = []
        self._attrs = {}

    def set_attr(self, key, value):
        self._attrs[key] = value

    def get_attr(self, key, default=None):
        return self._attrs.get(key, default)

    @property
    def passes(self):
        return self._applied_passes

    def _add_pass(self, pass_obj):
        self._applied_passes.append(pass_obj)

    def _pop_pass(self):
        del self._applied_passes[-1]


class PassType:
    UNKNOWN = 0
    COMM_OPT = 1
    CALC_OPT = 2
    PARALLEL_OPT = 3
    FUSION_OPT = 4


class PassBase(ABC):
    """A program rewrite with attributes (``set_attr``/``get_attr``)."""

    _REGISTERED_PASSES = {}
    name = None

    def __init__(self):
        self._attrs = {}

    def set_attr(self, key, value):
        self._attrs[key] = value
        return self

    def get_attr(self, key, default=None):
        return self._attrs.get(key, default)

    @abstractmethod
    def _check_self(self):
        """Whether the attributes allow the pass to run (False: ``apply`` does nothing)."""

    def _check_conflict(self, other_pass):
        return True

    def _type(self):
        return PassType.UNKNOWN

    def _compatible(self, other_pass):
        return self._check_conflict(other_pass) and type(other_pass) is not type(self)

    def apply(self, main_programs, startup_programs, context=None):
        if context is None:
            context = PassContext()
        if not self._check_self() or not all(self._compatible(p) for p in context.passes):
            return context
        if not isinstance(main_programs, list) or not isinstance(startup_programs, list):
            # AssertionError, as Paddle
            raise AssertionError(f"{type(self).__name__}.apply: main_programs and startup_programs must be lists")
        if len(main_programs) != len(startup_programs):
            raise AssertionError(f"{type(self).__name__}.apply: {len(main_programs)} main programs for "
                                 f"{len(startup_programs)} startup programs")
        for main, startup in zip(main_programs, startup_programs):
            self._apply_single_impl(main, startup, context)
        context._add_pass(self)
        return context

    @abstractmethod
    def _apply_single_impl(self, main_program, startup_program, context):
        """Rewrite one (main, startup) pair."""


def register_pass(name):
    """Class decorator: make the pass available to ``new_pass(name)``."""
    def impl(cls):
        if not (isinstance(cls, type) and issubclass(cls, PassBase)):
            raise TypeError(f"register_pass: {cls!r} is not a PassBase subclass")
        PassBase._REGISTERED_PASSES[name] = cls
        cls.name = name
        return cls
    return impl


def new_pass(name, pass_attrs={}):  # noqa: B006 - Paddle's signature; the dict is only read
    """The registered pass ``name`` with the attributes ``pass_attrs``."""
    cls = PassBase._REGISTERED_PASSES.get(name)
    if cls is None:
        # AssertionError, as Paddle
        raise AssertionError(f"Pass {name} is not registered")
    pass_obj = cls()
    for key, value in pass_attrs.items():
        pass_obj.set_attr(key, value)
    return pass_obj


class PassManager:
    """Applies ``passes`` in order, each with the shared context. ``auto_solve_conflict`` drops the passes that
    refuse themselves or conflict with one before them (Paddle orders them by a longest compatible chain; the
    passes here never conflict, so the order given is kept)."""

    def __init__(self, passes, context=None, auto_solve_conflict=True):
        self._context = context if context is not None else PassContext()
        passes = list(passes)
        if auto_solve_conflict:
            kept = []
            for p in passes:
                if p._check_self() and all(p._compatible(q) for q in self._context.passes + kept):
                    kept.append(p)
            passes = kept
        self._passes = passes

    def apply(self, main_programs, startup_programs):
        context = self._context
        for p in self._passes:
            context = p.apply(main_programs, startup_programs, context)
        self._context = context
        return context

    @property
    def context(self):
        return self._context

    @property
    def names(self):
        return [p.name for p in self._passes]

    @property
    def passes(self):
        return tuple(self._passes)
