"""Common layers: Linear, Bilinear, Embedding, dropouts, paddings, upsampling, Flatten/Unflatten, Fold/Unfold,
pixel/channel shuffles, distances."""
from ...framework import dtype as _dtype
from ...framework.tensor import PaddleAssertionError, Tensor
from ... import tensor as _tensor
from .. import functional as F
from .layers import Layer

__all__ = ["Identity", "Linear", "Bilinear", "Embedding", "Flatten", "Unflatten", "Dropout", "Dropout2D",
           "Dropout3D", "AlphaDropout", "FeatureAlphaDropout", "Upsample", "UpsamplingNearest2D",
           "UpsamplingBilinear2D", "CosineSimilarity", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle", "Unfold", "Fold", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


def _name_suffix(name):
    return f", name={name}" if name else ""


def _forbid(cls_name, kwargs, compat):
    # Paddle 3 rejects torch's keywords here and points to its paddle.compat twin.
    if kwargs:
        key = sorted(kwargs)[0]
        if key in compat:
            raise TypeError(f"paddle.nn.{cls_name}() received unexpected keyword argument '{key}'. \n"
                            f"Did you mean to use paddle.compat.nn.{cls_name}() instead?")
        raise TypeError(f"{cls_name}() got an unexpected keyword argument '{key}'")


def _input(x, kwargs, cls_name, alias="input"):
    if alias in kwargs and x is None:
        x = kwargs.pop(alias)
    if kwargs or x is None:
        raise TypeError(f"{cls_name}.forward() takes one tensor argument")
    return x


class Identity(Layer):
    """Returns its input; any constructor arguments are ignored."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Layer):
    """y = x @ weight + bias, with weight of shape [in_features, out_features] (Paddle's layout)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None, **kwargs):
        _forbid("Linear", kwargs, ("bias", "device", "dtype"))
        super().__init__()
        self._dtype = _dtype.get_default_dtype()
        self._weight_attr, self._bias_attr = weight_attr, bias_attr
        self.weight = self.create_parameter(shape=[in_features, out_features], attr=weight_attr, dtype=self._dtype,
                                            is_bias=False)
        self.bias = self.create_parameter(shape=[out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(x=input, weight=self.weight, bias=self.bias, name=self.name)

    def extra_repr(self):
        return (f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, dtype={self._dtype}"
                f"{_name_suffix(self.name)}")


class Bilinear(Layer):
    """out[k] = x1 @ weight[k] @ x2^T + bias[k]; weight [out, in1, in2], bias [1, out]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._weight_attr, self._bias_attr, self._name = weight_attr, bias_attr, name
        self._in1_features, self._in2_features, self._out_features = in1_features, in2_features, out_features
        self._dtype = _dtype.get_default_dtype()
        self.weight = self.create_parameter(attr=weight_attr, shape=[out_features, in1_features, in2_features],
                                            dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter(attr=bias_attr, shape=[1, out_features], dtype=self._dtype, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias, self._name)

    def extra_repr(self):
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}{_name_suffix(self._name)}")


class Embedding(Layer):
    """A [num_embeddings, embedding_dim] lookup table; the ``padding_idx`` row starts (and stays) zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, *,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None,
                 weight_attr=None, name=None):
        super().__init__()
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._sparse, self._is_distributed = sparse, False
        self._max_norm, self._norm_type = max_norm, norm_type
        self._padding_idx = padding_idx
        self._scale_grad_by_freq, self._device = scale_grad_by_freq, device
        if num_embeddings <= 0:
            raise ValueError(f"Embedding: num_embeddings must be greater than 0, got {num_embeddings}")
        if embedding_dim <= 0:
            raise ValueError(f"Embedding: embedding_dim must be greater than 0, got {embedding_dim}")
        row = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else num_embeddings + padding_idx)
        if row >= num_embeddings or row < -num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be within [-{num_embeddings}, {num_embeddings}), got "
                             f"{padding_idx}")
        self._dtype = _dtype.get_default_dtype() if dtype is None else dtype
        self._size = [num_embeddings, embedding_dim]
        self._weight_attr, self._remote_prefetch, self._name = weight_attr, False, name
        if _weight is not None:
            if list(_weight.shape) != self._size:
                raise PaddleAssertionError(f"Embedding: the shape {list(_weight.shape)} of _weight does not match "
                                           f"[num_embeddings, embedding_dim] = {self._size}")
            self.weight = _weight
            self.weight.stop_gradient = _freeze
        else:
            self.weight = self.create_parameter(attr=weight_attr, shape=self._size, dtype=self._dtype,
                                                is_bias=False, device=device)
            if weight_attr is None:
                self.weight.stop_gradient = _freeze
        if row != -1:
            self.weight._t.data[row] = 0.0

    @property
    def padding_idx(self):
        return self._padding_idx

    @padding_idx.setter
    def padding_idx(self, value):
        self._padding_idx = value

    def forward(self, x=None, **kwargs):
        x = _input(x, kwargs, "Embedding")
        return F.embedding(x, weight=self.weight, padding_idx=self._padding_idx, max_norm=self._max_norm,
                           norm_type=self._norm_type, sparse=self._sparse,
                           scale_grad_by_freq=self._scale_grad_by_freq, name=self._name)

    def extra_repr(self):
        text = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            text += f", padding_idx={self._padding_idx}"
        text += f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"
        if self._name is not None:
            text += f", name={self._name}"
        return text


class Flatten(Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return _tensor.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Unflatten(Layer):
    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self.name = axis, shape, name

    def forward(self, input):
        return _tensor.unflatten(input, axis=self.axis, shape=self.shape, name=self.name)

    def extra_repr(self):
        return f"axis={self.axis}, shape={self.shape}{_name_suffix(self.name)}"


class Dropout(Layer):
    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p, self.inplace, self.axis, self.mode, self.name = p, inplace, axis, mode, name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, inplace=self.inplace,
                         mode=self.mode, name=self.name)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}{_name_suffix(self.name)}, inplace={self.inplace}"


class _ChannelDropout(Layer):
    _fn, _default_format = None, None

    def __init__(self, p=0.5, data_format=None, name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format or self._default_format, name

    def forward(self, input):
        return getattr(F, self._fn)(input, p=self.p, training=self.training, data_format=self.data_format,
                                    name=self.name)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}{_name_suffix(self.name)}"


class Dropout2D(_ChannelDropout):
    """Zeroes whole channels of a 4-D input."""
    _fn, _default_format = "dropout2d", "NCHW"

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__(p, data_format, name)


class Dropout3D(_ChannelDropout):
    """Zeroes whole channels of a 5-D input."""
    _fn, _default_format = "dropout3d", "NCDHW"

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """Dropout that keeps a SELU network's mean and variance."""
    _fn = "alpha_dropout"

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return getattr(F, self._fn)(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self):
        return f"p={self.p}{_name_suffix(self.name)}"


class FeatureAlphaDropout(AlphaDropout):
    """AlphaDropout over whole channels."""
    _fn = "feature_alpha_dropout"


class Upsample(Layer):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format
        self.recompute_scale_factor, self.name = recompute_scale_factor, name

    def forward(self, x):
        if self.data_format is None:
            # NOTE: like Paddle, the layout guessed from the first input is kept for later calls.
            formats = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
            if x.ndim not in formats:
                raise ValueError(f"Upsample: the input should be 3-D, 4-D or 5-D, but received a {x.ndim}-D one "
                                 f"(shape {list(x.shape)})")
            self.data_format = formats[x.ndim]
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format, recompute_scale_factor=self.recompute_scale_factor,
                             name=self.name)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return (f"{main}, mode={self.mode}, align_corners={self.align_corners}, align_mode={self.align_mode}, "
                f"data_format={self.data_format}{_name_suffix(self.name)}")


class _Upsampling2D(Layer):
    _mode, _align_corners = None, None

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self.size = [size, size] if isinstance(size, int) else size
        self.scale_factor, self.data_format, self.name = scale_factor, data_format, name

    def forward(self, x=None, **kwargs):
        x = _input(x, kwargs, type(self).__name__)
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self._mode,
                             align_corners=self._align_corners, align_mode=0, data_format=self.data_format,
                             name=self.name)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return f"{main}, data_format={self.data_format}{_name_suffix(self.name)}"


class UpsamplingNearest2D(_Upsampling2D):
    _mode, _align_corners = "nearest", False


class UpsamplingBilinear2D(_Upsampling2D):
    """Bilinear upsampling with align_corners=True."""
    _mode, _align_corners = "bilinear", True


UpsamplingNearest2d, UpsamplingBilinear2d = UpsamplingNearest2D, UpsamplingBilinear2D


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-08, **kwargs):
        if "dim" in kwargs:
            axis = kwargs.pop("dim")
        _forbid("CosineSimilarity", kwargs, ())
        super().__init__()
        self._axis, self._eps = axis, eps

    dim = property(lambda self: self._axis, lambda self, value: setattr(self, "_axis", value))

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class PairwiseDistance(Layer):
    def __init__(self, p=2.0, epsilon=1e-06, keepdim=False, name=None, **kwargs):
        if "eps" in kwargs:
            epsilon = kwargs.pop("eps")
        _forbid("PairwiseDistance", kwargs, ())
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    eps = property(lambda self: self.epsilon, lambda self, value: setattr(self, "epsilon", value))
    norm = property(lambda self: self.p, lambda self, value: setattr(self, "p", value))

    def forward(self, x=None, y=None, **kwargs):
        x = kwargs.pop("x1", x)
        y = kwargs.pop("x2", y)
        if kwargs or x is None or y is None:
            raise TypeError("PairwiseDistance.forward() takes two tensors x and y")
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)

    def extra_repr(self):
        text = f"p={self.p}"
        if self.epsilon != 1e-06:
            text += f", epsilon={self.epsilon}"
        if self.keepdim is not False:
            text += f", keepdim={self.keepdim}"
        if self.name is not None:
            text += f", name={self.name}"
        return text


class _Shuffle(Layer):
    """PixelShuffle / PixelUnshuffle / ChannelShuffle: an int factor and NCHW/NHWC."""
    _fn = _factor_name = _factor_label = None

    def __init__(self, factor, data_format="NCHW", name=None):
        super().__init__()
        if not isinstance(factor, int) or isinstance(factor, bool):
            raise TypeError(f"{type(self).__name__}: {self._factor_label} must be int type, got "
                            f"{type(factor).__name__}")
        if self._fn != "pixel_shuffle" and factor <= 0:
            raise ValueError(f"{type(self).__name__}: {self._factor_label} must be positive, got {factor}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"{type(self).__name__}: data format should be 'NCHW' or 'NHWC', but received "
                             f"{data_format}")
        self._factor, self._data_format, self._name = factor, data_format, name

    def forward(self, x):
        return getattr(F, self._fn)(x, self._factor, self._data_format, self._name)

    def extra_repr(self):
        text = f"{self._factor_name}={self._factor}"
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        if self._name is not None:
            text += f", name={self._name}"
        return text


class PixelShuffle(_Shuffle):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r]."""
    _fn, _factor_name, _factor_label = "pixel_shuffle", "upscale_factor", "upscale factor"

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__(upscale_factor, data_format, name)


class PixelUnshuffle(_Shuffle):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W]."""
    _fn, _factor_name, _factor_label = "pixel_unshuffle", "downscale_factor", "downscale factor"

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__(downscale_factor, data_format, name)


class ChannelShuffle(_Shuffle):
    _fn, _factor_name, _factor_label = "channel_shuffle", "groups", "groups"

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__(groups, data_format, name)


class Unfold(Layer):
    """im2col: sliding blocks of a 4-D input as columns."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None, **kwargs):
        _forbid("Unfold", kwargs, ("kernel_size", "dilation", "padding", "stride"))
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides
        self.name = name

    def forward(self, input):
        return F.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides, paddings=self.paddings,
                        dilations=self.dilations, name=self.name)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}{_name_suffix(self.name)}")


class Fold(Layer):
    """col2im: the inverse of Unfold (overlaps are summed)."""
    _TORCH_NAMES = {"output_size": "output_sizes", "kernel_size": "kernel_sizes", "stride": "strides",
                    "padding": "paddings", "dilation": "dilations"}

    def __init__(self, output_sizes=None, kernel_sizes=None, dilations=1, paddings=0, strides=1, name=None,
                 **kwargs):
        given = dict(output_sizes=output_sizes, kernel_sizes=kernel_sizes, dilations=dilations, paddings=paddings,
                     strides=strides)
        for torch_name, paddle_name in self._TORCH_NAMES.items():
            if torch_name in kwargs:
                given[paddle_name] = kwargs.pop(torch_name)
        _forbid("Fold", kwargs, ())
        if given["output_sizes"] is None or given["kernel_sizes"] is None:
            raise TypeError("Fold() missing required arguments: 'output_sizes' and 'kernel_sizes'")
        super().__init__()
        for key, value in given.items():
            setattr(self, key, value)
        self.name = name

    def forward(self, input):
        return F.fold(input, output_sizes=self.output_sizes, kernel_sizes=self.kernel_sizes, strides=self.strides,
                      paddings=self.paddings, dilations=self.dilations, name=self.name)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}{_name_suffix(self.name)}")


for _torch_name, _paddle_name in Fold._TORCH_NAMES.items():
    setattr(Fold, _torch_name, property(lambda self, n=_paddle_name: getattr(self, n),
                                        lambda self, value, n=_paddle_name: setattr(self, n, value)))


# -- padding layers: Pad{1,2,3}D and their fixed-mode variants, declared as data --------------------------
class _PadND(Layer):
    _n_dim, _mode_fixed, _value_fixed = 1, None, None

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__()
        self.padding = padding if isinstance(padding, (Tensor, list, tuple)) else [padding] * (2 * self._n_dim)
        self._mode, self.value, self._data_format, self._name = mode, value, data_format, name

    def forward(self, x=None, **kwargs):
        x = _input(x, kwargs, type(self).__name__)
        return F.pad(x, pad=self.padding, mode=self._mode, value=self.value, data_format=self._data_format,
                     name=self._name)

    def extra_repr(self):
        return (f"padding={self.padding}, mode={self._mode}, value={self.value}, data_format={self._data_format}"
                f"{_name_suffix(self._name)}")


def _pad_class(cls_name, base, n_dim, data_format, mode=None, with_value=False):
    """Pad{n}D(padding, mode, value, data_format, name), or a subclass of it with the mode fixed."""
    if mode is None:
        def __init__(self, padding, mode="constant", value=0.0, data_format=data_format, name=None):
            _PadND.__init__(self, padding, mode, value, data_format, name)
    elif with_value:
        def __init__(self, padding, value, data_format=data_format, name=None):
            _PadND.__init__(self, padding, mode, value, data_format, name)
    else:
        def __init__(self, padding, data_format=data_format, name=None):
            _PadND.__init__(self, padding, mode, 0.0, data_format, name)
    return type(cls_name, (base,), {"_n_dim": n_dim, "__init__": __init__, "__module__": __name__,
                                      "__doc__": f"Pads the last {n_dim} spatial dims ({mode or 'any'} mode)."})


for _n, _format in ((1, "NCL"), (2, "NCHW"), (3, "NCDHW")):
    for _prefix, _mode, _with_value in (("Pad", None, False), ("ConstantPad", "constant", True),
                                        ("ZeroPad", "constant", False), ("ReflectionPad", "reflect", False),
                                        ("ReplicationPad", "replicate", False), ("CircularPad", "circular", False)):
        _cls = _pad_class(f"{_prefix}{_n}D", globals().get(f"Pad{_n}D", _PadND), _n, _format, _mode, _with_value)
        globals()[_cls.__name__] = _cls
        __all__.append(_cls.__name__)
        if _prefix != "Pad":  # torch-style spellings (ZeroPad2d...) are the same classes in Paddle 3
            globals()[f"{_prefix}{_n}d"] = _cls
            __all__.append(f"{_prefix}{_n}d")
