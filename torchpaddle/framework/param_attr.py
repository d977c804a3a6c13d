"""ParamAttr: how a layer should create a parameter (name, initializer, learning rate, regularizer...)."""

__all__ = ["ParamAttr", "WeightNormParamAttr"]


class ParamAttr:
    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=True, need_clip=True):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str or None, got {type(name).__name__}")
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError(f"ParamAttr: learning_rate must be a float, got {type(learning_rate).__name__}")
        if not isinstance(trainable, bool):
            raise TypeError(f"ParamAttr: trainable must be a bool, got {type(trainable).__name__}")
        if learning_rate < 0:
            raise ValueError(f"ParamAttr: learning_rate must be >= 0, got {learning_rate}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @staticmethod
    def _to_attr(arg):
        """None -> default ParamAttr; str -> named; ParamAttr -> itself; False -> False (no parameter)."""
        if arg is None:
            return ParamAttr()
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if arg is False:
            return False
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if arg is True:
            return ParamAttr()
        # Duck-typed by base class name: framework must not import nn or regularizer (layers point upward).
        bases = {c.__name__ for c in type(arg).__mro__}
        if "Initializer" in bases:
            return ParamAttr(initializer=arg)
        if "WeightDecayRegularizer" in bases or bases & {"L1Decay", "L2Decay"}:
            return ParamAttr(regularizer=arg)
        raise TypeError(f"ParamAttr: cannot turn {type(arg).__name__} into a ParamAttr")

    def _to_kwargs(self, with_initializer=False):
        kwargs = {"name": self.name, "optimize_attr": {"learning_rate": self.learning_rate},
                  "regularizer": self.regularizer, "trainable": self.trainable,
                  "do_model_average": self.do_model_average, "need_clip": self.need_clip}
        if with_initializer:
            kwargs["initializer"] = self.initializer
        return kwargs

    def __repr__(self):
        return (f"ParamAttr(name={self.name!r}, learning_rate={self.learning_rate}, "
                f"trainable={self.trainable}, need_clip={self.need_clip})")


class WeightNormParamAttr(ParamAttr):
    """A ParamAttr asking for weight normalization, ``w = g * v / ||v||`` with the norm over every dim but
    ``dim`` (all of them when None). Static graph only, as in Paddle."""

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0, regularizer=None, trainable=True,
                 do_model_average=False, need_clip=True):
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate, regularizer=regularizer,
                         trainable=trainable, do_model_average=do_model_average, need_clip=need_clip)
        if dim is not None and not isinstance(dim, int):
            raise TypeError(f"WeightNormParamAttr: dim must be an int or None, got {type(dim).__name__}")
        self.dim = dim
