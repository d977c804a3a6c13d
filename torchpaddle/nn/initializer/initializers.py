"""Initializers. Each is called as ``init(param)`` and fills the Parameter's storage without autograd.

Random initializers draw from torch's generator (seeded by ``paddle.seed``), so the values differ from
Paddle's, but the distributions (fan rules, gains, bounds) are Paddle's.
"""
import math

import numpy as np
import torch

from ...framework import dtype as _dtype
from ...framework.tensor import PaddleAssertionError, Tensor

__all__ = ["Initializer", "Constant", "Normal", "TruncatedNormal", "Uniform", "XavierNormal", "XavierUniform",
           "XavierInitializer", "KaimingNormal", "KaimingUniform", "MSRAInitializer", "Assign", "Orthogonal",
           "Dirac", "Bilinear", "calculate_gain", "set_global_initializer", "ConstantInitializer",
           "NormalInitializer", "TruncatedNormalInitializer", "UniformInitializer", "NumpyArrayInitializer"]

_FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

_GAINS = {"sigmoid": 1.0, "linear": 1.0, "conv1d": 1.0, "conv2d": 1.0, "conv3d": 1.0, "conv1d_transpose": 1.0,
          "conv_transpose1d": 1.0, "conv2d_transpose": 1.0, "conv_transpose2d": 1.0, "conv3d_transpose": 1.0,
          "conv_transpose3d": 1.0, "tanh": 5.0 / 3, "relu": math.sqrt(2.0), "selu": 3.0 / 4}


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for a nonlinearity (``param``: leaky_relu's negative slope, default 0.01)."""
    if param is None:
        param = 0.01
    elif not isinstance(param, (bool, int, float)):
        raise PaddleAssertionError(f"calculate_gain: param must be a bool, int or float, got {type(param).__name__}")
    if nonlinearity == "leaky_relu":
        return math.sqrt(2.0 / (1 + float(param) ** 2))
    if nonlinearity not in _GAINS:
        raise ValueError(f"calculate_gain: nonlinearity function {nonlinearity} is not supported now; expected "
                         f"one of {sorted(_GAINS) + ['leaky_relu']}")
    return _GAINS[nonlinearity]


def _require_float(t, who, complex_ok=False):
    if t.dtype in _FLOATS or (complex_ok and t.is_complex()):
        return
    raise TypeError(f"{who}: the parameter must be float16, bfloat16, float32 or float64, got "
                    f"{_dtype.from_torch_dtype(t.dtype).name}")


class Initializer:
    """Base class: ``init(param, block=None)`` fills ``param`` in place (subclasses implement ``forward``)."""

    def __init__(self):
        pass

    def __call__(self, param, block=None):
        return self.forward(param, block)

    def forward(self, param, block=None):
        if not isinstance(param, Tensor):
            raise TypeError(f"{type(self).__name__}: param must be a Tensor/Parameter, got {type(param).__name__}")
        with torch.no_grad():
            self._fill(param._t)
        return None

    def _fill(self, t):
        raise NotImplementedError(f"{type(self).__name__} does not implement forward")

    def _compute_fans(self, var):
        return _fans(list(var.shape))

    def _check_block(self, block):
        return block


def _fans(shape):
    """Paddle's fan rule: [in, out] for 2-D (a Linear weight), [out, in, *kernel] beyond."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _low_precision_fill(t, fill):
    """Draw in float32 for float16/bfloat16 parameters (as Paddle does), then cast."""
    if t.dtype in (torch.float16, torch.bfloat16):
        tmp = torch.empty(t.shape, dtype=torch.float32, device=t.device)
        fill(tmp)
        t.copy_(tmp)
    else:
        fill(t)


class ConstantInitializer(Initializer):
    def __init__(self, value=0.0, force_cpu=False):
        if value is None:
            raise PaddleAssertionError("Constant: value must not be None")
        super().__init__()
        self._value = value
        self._force_cpu = force_cpu

    def _fill(self, t):
        t.fill_(float(self._value) if not isinstance(self._value, complex) else self._value)


class Constant(ConstantInitializer):
    def __init__(self, value=0.0):
        if value is None:
            raise ValueError("Constant: value must not be None")
        super().__init__(value=value, force_cpu=False)


class NormalInitializer(Initializer):
    def __init__(self, loc=0.0, scale=1.0, seed=0):
        if loc is None or scale is None or seed is None:
            raise PaddleAssertionError("Normal: mean, std and seed must not be None")
        super().__init__()
        if isinstance(loc, complex):
            if loc.real != loc.imag:
                raise ValueError("Normal: if mean is a complex number, its real part should equal its imaginary "
                                 f"part, but got real part {loc.real} != imag part {loc.imag}")
            loc = loc.real
        if scale < 0:
            raise ValueError(f"Normal: std must be >= 0, got {scale}")
        self._mean, self._std_dev, self._seed = loc, scale, seed

    def _fill(self, t):
        _require_float(t, type(self).__name__, complex_ok=True)
        if t.is_complex():
            # Paddle's complex gaussian: real and imaginary parts each N(mean, std / sqrt(2)).
            real = torch.view_as_real(t)
            real.normal_(self._mean, self._std_dev / math.sqrt(2.0))
        else:
            _low_precision_fill(t, lambda x: x.normal_(self._mean, self._std_dev))


class Normal(NormalInitializer):
    def __init__(self, mean=0.0, std=1.0, name=None):
        if mean is None or std is None:
            raise PaddleAssertionError("Normal: mean and std must not be None")
        super().__init__(loc=mean, scale=std, seed=0)


class TruncatedNormalInitializer(Initializer):
    """N(mean, std) restricted to the absolute interval [a, b] (Paddle's defaults: [-2, 2])."""

    def __init__(self, loc=0.0, scale=1.0, seed=0, a=-2.0, b=2.0):
        for value, what in ((loc, "mean"), (scale, "std"), (seed, "seed"), (a, "a"), (b, "b")):
            if value is None:
                raise PaddleAssertionError(f"TruncatedNormal: {what} must not be None")
        if scale < 0:
            raise ValueError(f"TruncatedNormal: std must be >= 0, got {scale}")
        if a > b:
            raise ValueError(f"TruncatedNormal: a ({a}) must be <= b ({b})")
        super().__init__()
        self._mean, self._std_dev, self._seed, self._a, self._b = loc, scale, seed, a, b

    def _fill(self, t):
        _require_float(t, type(self).__name__)
        if self._std_dev == 0:
            # a point mass at the mean: torch divides by std; Paddle gives the mean, or NaN outside [a, b]
            t.fill_(self._mean if self._a <= self._mean <= self._b else math.nan)
            return
        _low_precision_fill(t, lambda x: torch.nn.init.trunc_normal_(x, self._mean, self._std_dev, self._a,
                                                                     self._b))


class TruncatedNormal(TruncatedNormalInitializer):
    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        super().__init__(loc=mean, scale=std, seed=0, a=a, b=b)


class UniformInitializer(Initializer):
    """U(low, high); ``diag_num`` > 0 then sets elements 0, diag_step, 2*diag_step... (flat) to diag_val."""

    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        if low is None or high is None:
            raise PaddleAssertionError("Uniform: low and high must not be None")
        if not high >= low:
            raise PaddleAssertionError(f"Uniform: high ({high}) should be greater than or equal to low ({low})")
        if (diag_num > 0 or diag_step > 0) and not (diag_num > 0 and diag_step > 0):
            raise PaddleAssertionError("Uniform: diag_num and diag_step must both be positive when either is set")
        super().__init__()
        self._low, self._high, self._seed = low, high, seed
        self._diag_num, self._diag_step, self._diag_val = diag_num, diag_step, diag_val

    def _fill(self, t):
        _require_float(t, type(self).__name__)
        _low_precision_fill(t, lambda x: x.uniform_(self._low, self._high))
        if self._diag_num > 0:
            flat = t.view(-1)
            positions = torch.arange(self._diag_num, device=t.device) * self._diag_step
            if self._diag_num and int(positions[-1]) >= flat.numel():
                raise ValueError(f"Uniform: diag_num * diag_step exceeds the parameter's {flat.numel()} elements")
            flat[positions] = self._diag_val


class Uniform(UniformInitializer):
    def __init__(self, low=-1.0, high=1.0, name=None):
        super().__init__(low=low, high=high)


class XavierInitializer(Initializer):
    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0, gain=1.0):
        if uniform is None or seed is None:
            raise PaddleAssertionError("Xavier: uniform and seed must not be None")
        super().__init__()
        self._uniform, self._fan_in, self._fan_out, self._seed, self._gain = uniform, fan_in, fan_out, seed, gain

    def _fill(self, t):
        _require_float(t, type(self).__name__)
        f_in, f_out = _fans(list(t.shape))
        fan_in = f_in if self._fan_in is None else self._fan_in
        fan_out = f_out if self._fan_out is None else self._fan_out
        zero = 0 in (fan_in, fan_out)
        if self._uniform:
            limit = 0.0 if zero else self._gain * math.sqrt(6.0 / float(fan_in + fan_out))
            _low_precision_fill(t, lambda x: x.uniform_(-limit, limit))
        else:
            std = 0.0 if zero else self._gain * math.sqrt(2.0 / float(fan_in + fan_out))
            _low_precision_fill(t, lambda x: x.normal_(0.0, std))


class XavierNormal(XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(uniform=False, fan_in=fan_in, fan_out=fan_out, seed=0, gain=gain)


class XavierUniform(XavierInitializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        super().__init__(uniform=True, fan_in=fan_in, fan_out=fan_out, seed=0, gain=gain)


class MSRAInitializer(Initializer):
    def __init__(self, uniform=True, fan_in=None, seed=0, negative_slope=0, nonlinearity="relu", mode="fan_in"):
        if uniform is None or seed is None:
            raise PaddleAssertionError("Kaiming: uniform and seed must not be None")
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"The mode of KaimingNormal/KaimingUniform should be 'fan_in' or 'fan_out', but "
                             f"received {mode}.")
        if mode == "fan_out" and fan_in is not None:
            raise ValueError("The mode of KaimingNormal/KaimingUniform is 'fan_out', but fan_in is set. Please set "
                             "fan_in to None.")
        super().__init__()
        self._uniform, self._fan_in, self._seed = uniform, fan_in, seed
        self._negative_slope, self._nonlinearity, self._mode = negative_slope, nonlinearity, mode

    def _fill(self, t):
        _require_float(t, type(self).__name__)
        f_in, f_out = _fans(list(t.shape))
        if self._mode == "fan_in":
            fan = f_in if self._fan_in is None else self._fan_in
        else:
            fan = f_out
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        if t.numel() == 0:
            return
        if self._uniform:
            limit = gain * math.sqrt(3.0 / float(fan))
            _low_precision_fill(t, lambda x: x.uniform_(-limit, limit))
        else:
            std = gain / math.sqrt(float(fan))
            _low_precision_fill(t, lambda x: x.normal_(0.0, std))


class KaimingNormal(MSRAInitializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(uniform=False, fan_in=fan_in, seed=0, negative_slope=negative_slope,
                         nonlinearity=nonlinearity, mode=mode)


class KaimingUniform(MSRAInitializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        super().__init__(uniform=True, fan_in=fan_in, seed=0, negative_slope=negative_slope,
                         nonlinearity=nonlinearity, mode=mode)


class NumpyArrayInitializer(Initializer):
    """Fill with a NumPy array of the parameter's element count.

    NOTE: where the counts differ Paddle silently reshapes the parameter to the array's shape; we raise."""

    def __init__(self, value):
        if not isinstance(value, np.ndarray):
            raise PaddleAssertionError(f"NumpyArrayInitializer: value must be a numpy.ndarray, got "
                                       f"{type(value).__name__}")
        super().__init__()
        self._value = value

    def _fill(self, t):
        value = self._value
        if value.size != t.numel():
            raise ValueError(f"{type(self).__name__}: the value has {value.size} elements (shape "
                             f"{list(value.shape)}) but the parameter {list(t.shape)} has {t.numel()}")
        if value.size > 1024 ** 3:
            raise ValueError(f"{type(self).__name__}: the value is too big; save it to a file and load it instead")
        source = torch.from_numpy(np.ascontiguousarray(value))
        if t.dtype in (torch.float16, torch.bfloat16):  # Paddle goes through float32 here
            source = source.to(torch.float32)
        t.copy_(source.reshape(t.shape).to(t.dtype))


class Assign(NumpyArrayInitializer):
    """Fill with a given value: NumPy array, list/tuple or Tensor (same number of elements)."""

    def __init__(self, value, name=None):
        if isinstance(value, (list, tuple)):
            value = np.array(value)
        elif isinstance(value, Tensor):
            value = value.numpy()
        elif not isinstance(value, np.ndarray):
            raise TypeError(f"Assign: value must be a numpy.ndarray, list, tuple or Tensor, got "
                            f"{type(value).__name__}")
        super().__init__(value)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over the parameter flattened to [shape[0], prod(shape[1:])], times gain."""

    def __init__(self, gain=1.0, name=None):
        if gain is None:
            raise PaddleAssertionError("Orthogonal: gain must not be None")
        super().__init__()
        self._gain = gain

    def _fill(self, t):
        if t.dim() < 2:
            raise PaddleAssertionError(f"Orthogonal: only tensors with 2 or more dimensions can be initialized, got "
                                       f"shape {list(t.shape)}")
        _require_float(t, "Orthogonal")
        rows, cols = t.shape[0], math.prod(t.shape[1:])
        if rows * cols == 0:
            return
        compute = torch.float64 if t.dtype == torch.float64 else torch.float32
        normal = torch.randn(max(rows, cols), min(rows, cols), dtype=compute, device=t.device)
        q, r = torch.linalg.qr(normal, mode="reduced")
        q = q * torch.sign(torch.diagonal(r))
        if rows < cols:
            q = q.t()
        t.copy_((q.reshape(t.shape) * self._gain).to(t.dtype))


class Dirac(Initializer):
    """Identity kernels for a [C_out, C_in, *K] conv weight (in ``groups`` blocks along C_out)."""

    def __init__(self, groups=1, name=None):
        if not (isinstance(groups, int) and not isinstance(groups, bool) and groups > 0):
            raise PaddleAssertionError(f"Dirac: groups must be a positive integer, got {groups!r}")
        super().__init__()
        self._groups = groups

    def _fill(self, t):
        _require_float(t, "Dirac")
        if t.dim() not in (3, 4, 5):
            raise PaddleAssertionError(f"Dirac: only tensors with 3, 4 or 5 dimensions can be initialized, got "
                                       f"shape {list(t.shape)}")
        if t.shape[0] % self._groups != 0:
            raise PaddleAssertionError(f"Dirac: dimension 0 of {list(t.shape)} must be divisible by groups="
                                       f"{self._groups}")
        t.zero_()
        per_group = t.shape[0] // self._groups
        centre = tuple(k // 2 for k in t.shape[2:])
        for g in range(self._groups):
            for j in range(min(per_group, t.shape[1])):
                t[(g * per_group + j, j) + centre] = 1


class Bilinear(Initializer):
    """Bilinear upsampling kernels for a [C_out, C_in, K, K] conv2d_transpose weight.

    Reproduces Paddle's formula exactly, including its row coordinate ``y = i / K % K`` computed with true
    division (so the rows are fractional and the kernel is not the textbook separable one)."""

    def _fill(self, t):
        shape = list(t.shape)
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the length of shape must be 4, got shape {shape}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: shape[2] must be equal to shape[3], got shape {shape}")
        if math.prod(shape) > 1024 * 1024:
            raise ValueError(f"Bilinear: the parameter {shape} is too big (more than 1024 * 1024 elements)")
        if t.dtype not in _FLOATS:
            raise TypeError(f"Bilinear: unsupported dtype {_dtype.from_torch_dtype(t.dtype).name}")
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        i = np.arange(math.prod(shape), dtype=np.float64)
        x = i % size
        y = i / size % size
        weight = ((1 - np.abs(x / f - c)) * (1 - np.abs(y / f - c))).astype(np.float32)
        t.copy_(torch.from_numpy(weight.reshape(shape)).to(t.dtype))


_GLOBAL = {"weight": None, "bias": None}


def set_global_initializer(weight_init, bias_init=None):
    """Initializers used by every layer created afterwards (ahead of the layers' own defaults);
    ``set_global_initializer(None)`` restores the defaults."""
    for value, what in ((weight_init, "weight_init"), (bias_init, "bias_init")):
        if value is not None and not isinstance(value, Initializer):
            raise TypeError(f"set_global_initializer: {what} must be an Initializer or None, got "
                            f"{type(value).__name__}")
    _GLOBAL["weight"], _GLOBAL["bias"] = weight_init, bias_init


def global_initializer(is_bias):
    return _GLOBAL["bias" if is_bias else "weight"]
