"""Factories of quanters and observers: a config holds a factory (class and arguments) and makes one quanter
per layer it quantizes."""
import functools
import sys

__all__ = ["ClassWithArguments", "QuanterFactory", "ObserverFactory", "quanter"]


class ClassWithArguments:
    def __init__(self, *args, **kwargs):
        self._args, self._kwargs = args, kwargs

    @property
    def args(self):
        return self._args

    @property
    def kwargs(self):
        return self._kwargs

    def _get_class(self):
        raise NotImplementedError(f"{type(self).__name__} must define _get_class()")

    def __str__(self):
        parts = [str(a) for a in self.args] + [f"{k}={v}" for k, v in self.kwargs.items()]
        return f"{type(self).__name__}({','.join(parts)})"

    __repr__ = __str__


class QuanterFactory(ClassWithArguments):
    """Makes the quanter of one layer: ``_get_class()(layer, *args, **kwargs)``."""

    def _instance(self, layer):
        return functools.partial(self._get_class(), *self.args, **self.kwargs)(layer)


ObserverFactory = QuanterFactory


def quanter(class_name):
    """Class decorator: declares, in the decorated class's module, a factory class ``class_name`` whose
    instances make that quanter (``MyQuanter(args)`` in a QuantConfig -> ``MyQuanterLayer(layer, args)``)."""
    if not isinstance(class_name, str) or not class_name.isidentifier():
        raise ValueError(f"quanter: class_name must be an identifier string, got {class_name!r}")

    def wrapper(target_class):
        factory = type(class_name, (QuanterFactory,), {"_get_class": lambda self: target_class,
                                                       "__module__": target_class.__module__})
        module = sys.modules.get(target_class.__module__)
        if module is not None:
            setattr(module, class_name, factory)
            if isinstance(getattr(module, "__all__", None), list):
                module.__all__.append(class_name)
        return target_class
    return wrapper
