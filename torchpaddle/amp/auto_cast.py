"""paddle.amp.auto_cast (amp_guard, autocast), decorate (amp_decorate), is_autocast_enabled, get_autocast_dtype.

As in Paddle 3.3.1, AMP only acts on a GPU place: on the CPU (the current device is 'cpu') auto_cast warns
and computes in float32, decorate returns the models and optimizers unchanged and GradScaler disables itself.
On a GPU the ops follow Paddle's white/black lists (see ``_dispatch``).

Differences from Paddle: static-graph programs are made mixed-precision by paddle.static.amp.decorate, not
by auto_cast (which warns and does nothing while building one) or decorate(level='O2') and GradScaler (which
raise NotImplementedError in static mode); ``decorate(master_grad=True)`` raises
NotImplementedError on a GPU (torch keeps a gradient in its parameter's dtype).
"""
import contextlib
import warnings

from ..framework import dtype as _dtype
from ..framework.mode import in_dynamic_mode
from ..framework.place import get_device
from ..framework.tensor import Tensor, wrap
from . import _dispatch
from .amp_lists import black_list, white_list

__all__ = ["auto_cast", "amp_guard", "autocast", "decorate", "amp_decorate", "is_autocast_enabled",
           "get_autocast_dtype", "amp_global_state"]

_LEVELS = ("O0", "OD", "O1", "O2")


class AMPGlobalState:
    """``amp_dtype``: the dtype the last auto_cast asked for ('float32' before any), which GradScaler reads."""

    def __init__(self):
        self.model_parameters = []
        self.use_master_grad = False
        self.amp_dtype = "float32"


_GLOBAL = AMPGlobalState()


def amp_global_state():
    return _GLOBAL


def _update_list(custom_white_list, custom_black_list, level="O1", dtype="float16", rename=lambda name: name):
    """(white, black) op lists of ``level`` and ``dtype`` with the custom lists applied; ``rename`` maps every
    name first (auto_cast: to the eager op names, so that black-listing matmul_v2 also takes matmul off the
    white list)."""
    if level == "O0":
        return set(), set()
    white = {rename(n) for n in white_list()[dtype][level]}
    black = {rename(n) for n in black_list()[dtype][level]}
    if custom_white_list and custom_black_list:
        for name in custom_white_list:
            if name in custom_black_list:
                raise ValueError("Custom white list overlap custom black list")
    for name in custom_white_list or ():
        black.discard(rename(name))
        white.add(rename(name))
    for name in custom_black_list or ():
        white.discard(rename(name))
        black.add(rename(name))
    return white, black


def _dtype_name(dtype):
    if isinstance(dtype, _dtype.dtype):
        return dtype.name
    if not isinstance(dtype, str):
        raise TypeError(f"amp: dtype must be a str ('float16' or 'bfloat16') or a paddle dtype, got "
                        f"{type(dtype).__name__}")
    return dtype.lower()


def _linear(x, weight, bias):
    """nn.functional.linear under AMP: one op (Paddle's white-listed linear_v2), bias included."""
    from .. import ops
    if not (isinstance(x, Tensor) and isinstance(weight, Tensor) and isinstance(bias, Tensor)):
        return ops.elementwise_add(ops.matmul_v2(x, weight, trans_x=False, trans_y=False), bias, axis=-1)
    state = _dispatch.STATE
    tensors = [t._t for t in (x, weight, bias) if t._t.dtype in _dispatch.FLOATS]
    dst = _dispatch.dest_dtype(state, "linear_v2", tensors) if tensors else None
    x, weight, bias = (t if dst is None or t._t.dtype not in _dispatch.FLOATS or t._t.dtype == dst
                       else wrap(t._t.to(dst)) for t in (x, weight, bias))
    level, state.level = state.level, "O0"   # its matmul and add are parts of this one op
    try:
        return ops.elementwise_add(ops.matmul_v2(x, weight, trans_x=False, trans_y=False), bias, axis=-1)
    finally:
        state.level = level


_dispatch.linear_hook = _linear


@contextlib.contextmanager
def amp_guard(enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16",
              use_promote=True):
    """Ops run inside compute in float16/bfloat16 by Paddle's AMP rules (see auto_cast)."""
    if not isinstance(level, str) or level.upper() not in _LEVELS:
        raise ValueError("level should be O0, OD, O1 or O2.")
    level = level.upper()
    dtype = _dtype_name(dtype)
    if enable and dtype not in ("float16", "bfloat16"):
        raise ValueError("If enable amp, dtype should be 'float16' or 'bfloat16'.")
    _GLOBAL.amp_dtype = dtype
    white, black = _update_list(custom_white_list, custom_black_list, level, dtype, _dispatch.canonical)
    if not in_dynamic_mode():
        if enable:
            warnings.warn("auto_cast has no effect while building a static program here; use "
                          "paddle.static.amp.decorate to make the program mixed-precision")
        yield
        return
    if enable:
        reason = _dispatch.unsupported_reason("amp_guard", dtype)
        if reason is not None:
            warnings.warn(reason)
            enable = False
    state = _dispatch.STATE
    saved = (state.level, state.dtype, state.white, state.black, state.use_promote, state.place_rule)
    if enable and level != "O0":
        state.level, state.dtype = level, _dtype.to_torch_dtype(dtype)
        state.white, state.black = frozenset(white), frozenset(black)
        state.use_promote = bool(use_promote) or level != "O2"
        state.place_rule = get_device().startswith("gpu")
    else:
        state.level = "O0"
    _dispatch.refresh()
    try:
        yield
    finally:
        state.level, state.dtype, state.white, state.black, state.use_promote, state.place_rule = saved
        _dispatch.refresh()


def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16",
              use_promote=True):
    """Context in which dygraph ops compute in float16/bfloat16: at O1 white-listed ops (matmul, conv2d...) in
    the AMP dtype, black-listed ones (softmax, exp, reductions...) in float32, the others in float32 when an
    input is float32; at O2 the same with O2's shorter black list (and, with use_promote=False, every
    non-black op in the AMP dtype); at OD only white-listed ops in the AMP dtype."""
    return amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote)


def autocast(device_type=None, dtype="float16", enabled=True, cache_enabled=True):
    """torch-style auto_cast; ``device_type`` and ``cache_enabled`` are ignored, as in Paddle."""
    return auto_cast(enable=enabled, dtype=dtype)


def is_autocast_enabled(device_type=None):
    return _dispatch.STATE.level != "O0"


def get_autocast_dtype(device_type=None):
    """The AMP dtype of the current auto_cast, 'float16' outside one."""
    if not is_autocast_enabled():
        return "float16"
    return _dtype.from_torch_dtype(_dispatch.STATE.dtype).name


# -- decorate ------------------------------------------------------------------------------------------------
class StateDictHook:
    """Casts the floating tensors of a state dict to ``save_dtype`` (decorate's save_dtype)."""

    def __init__(self, save_dtype):
        self._save_dtype = save_dtype

    def __call__(self, state_dict):
        target = _dtype.to_torch_dtype(self._save_dtype)
        for key, value in state_dict.items():
            if isinstance(value, Tensor) and value._t.is_floating_point():
                cast = wrap(value._t.detach().to(target))
                cast.name = value.name
                state_dict[key] = cast


def _layer_types():
    from .. import nn
    batch_norms = (nn.BatchNorm, nn.BatchNorm1D, nn.BatchNorm2D, nn.BatchNorm3D, nn.SyncBatchNorm)
    fp16_fp32 = (nn.LayerNorm, nn.InstanceNorm1D, nn.InstanceNorm2D, nn.InstanceNorm3D)
    return batch_norms, fp16_fp32


def _keeps_fp32(layer, dtype, batch_norms, norms):
    # batch norms always keep float32 parameters; layer/instance norms do under float16
    return (not getattr(layer, "_cast_to_low_precision", True) or isinstance(layer, batch_norms)
            or layer._dtype == "float16" or (dtype == "float16" and isinstance(layer, norms)))


def _set_excluded_layers(models, excluded_layers):
    from ..nn import Layer
    message = "excluded_layers must be either a nn.Layer instance/type or a list of nn.Layer instances/types."
    instances, types = [], []
    if excluded_layers is None:
        pass
    elif isinstance(excluded_layers, Layer):
        instances = [excluded_layers]
    elif isinstance(excluded_layers, type) and issubclass(excluded_layers, Layer):
        types = [excluded_layers]
    elif isinstance(excluded_layers, list):
        for item in excluded_layers:
            if isinstance(item, Layer):
                instances.append(item)
            elif isinstance(item, type) and issubclass(item, Layer):
                types.append(item)
            else:
                raise TypeError(message)
    else:
        raise TypeError(message)
    for instance in instances:
        for layer in instance.sublayers(include_self=True):
            layer._cast_to_low_precision = False
    for model in models:
        for layer in model.sublayers(include_self=True):
            if types and isinstance(layer, tuple(types)):
                layer._cast_to_low_precision = False


def _check_models(models):
    from ..nn import Layer
    for model in models:
        if not isinstance(model, Layer):
            raise RuntimeError(f"Current train mode is pure fp16, models should be paddle.nn.Layer, but receive "
                               f"{type(model)}.")
        # by name: paddle.distributed sits above paddle.amp
        if any(cls.__name__ == "DataParallel" for cls in type(model).__mro__):
            raise RuntimeError("For distributed AMP training, you should first use paddle.amp.decorate() to "
                               "decorate origin model, and then call paddle.DataParallel get distributed model.")


def _check_optimizers(optimizers):
    from ..optimizer import Optimizer
    for optimizer in optimizers:
        if not isinstance(optimizer, Optimizer):
            raise RuntimeError(f"Current train mode is pure fp16, optimizers should be paddle.optimizer.Optimizer "
                               f"or DygraphShardingOptimizer, but receive {type(optimizer)}.")


def amp_decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
                 master_grad=False, excluded_layers=None):
    """O2: cast the models' parameters to ``dtype`` (batch norms, and under float16 layer/instance norms, keep
    float32) and make the optimizers keep float32 master weights (unless ``master_weight=False``)."""
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent AMP train mode, O2 represent Pure fp16 train mode.")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError("dtype only support float16 or bfloat16.")
    unchanged = models if optimizers is None else (models, optimizers)
    if level == "O1":
        return unchanged
    if not in_dynamic_mode():
        raise NotImplementedError("paddle.amp.decorate(level='O2') casts dygraph models; for a static program use "
                                  "paddle.static.amp.decorate(optimizer, use_pure_fp16=True) and "
                                  "amp_init after the startup program")
    if _dispatch.unsupported_reason("amp_decorate", dtype) is not None:
        return unchanged
    from ..nn import Layer
    if isinstance(models, Layer):
        model_list = [models]
    elif isinstance(models, list):
        model_list = models
    else:
        raise TypeError("models must be either a single model or a list of models.")
    _check_models(model_list)
    _set_excluded_layers(model_list, excluded_layers)
    batch_norms, norms = _layer_types()
    for model in model_list:
        for layer in model.sublayers(include_self=True):
            if not _keeps_fp32(layer, dtype, batch_norms, norms):
                layer._to_impl(dtype=dtype, include_sublayers=False, floating_only=True)
    optimizer_list = None
    if optimizers is not None:
        from ..optimizer import Optimizer
        optimizer_list = [optimizers] if isinstance(optimizers, Optimizer) else optimizers
        if not isinstance(optimizer_list, list):
            raise TypeError("optimizers must be either a single optimizer or a list of optimizers.")
        _check_optimizers(optimizer_list)
        for optimizer in optimizer_list:
            optimizer._multi_precision = master_weight is not False
    if master_grad:
        raise NotImplementedError("amp.decorate: master_grad=True is not supported by torchpaddle: torch keeps "
                                  "each gradient in its parameter's dtype (the optimizer's float32 master "
                                  "weights still make the update in float32)")
    if save_dtype is not None:
        if save_dtype not in ("float16", "bfloat16", "float32", "float64"):
            raise ValueError(f"save_dtype can only be float16 float32 or float64, but your input save_dtype is "
                             f"{save_dtype}.")
        for model in model_list:
            for layer in model.sublayers(include_self=True):
                layer.register_state_dict_hook(StateDictHook(save_dtype))
    return models if optimizers is None else (models, optimizers)


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None, save_dtype=None,
             master_grad=False, excluded_layers=None):
    """O1: nothing to do. O2: parameters to float16/bfloat16, float32 master weights in the optimizers."""
    return amp_decorate(models, optimizers, level, dtype, master_weight, save_dtype, master_grad, excluded_layers)
