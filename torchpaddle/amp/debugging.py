"""paddle.amp.debugging: NaN/Inf checks of tensors (check_numerics, the tensor checker run on every op's
outputs), per-op dtype statistics (operator stats collection) and compare_accuracy over two checker logs.

The checker and the stats see eager ops (torchpaddle's registry ops, by Paddle op type); gradients computed by
torch autograd are not ops here, so backward is not checked op by op.
"""
import contextlib
import enum
import os
import random

import numpy as np
import torch

from ..framework import flags as _flags
from ..framework.random import _default_generator, seed as _seed
from ..framework.tensor import Tensor, wrap
from . import _dispatch

__all__ = ["DebugMode", "TensorCheckerConfig", "check_numerics", "enable_operator_stats_collection",
           "disable_operator_stats_collection", "collect_operator_stats", "enable_tensor_checker",
           "disable_tensor_checker", "compare_accuracy", "check_layer_numerics"]


class DebugMode(enum.Enum):
    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


_SHORT = {torch.float32: "fp32", torch.float64: "fp64", torch.float16: "fp16", torch.bfloat16: "bf16"}
_FP16_MAX = float(torch.finfo(torch.float16).max)


def _stats(t):
    """(num_nan, num_inf, num_zero, max, min, mean) of a float tensor, as Paddle's kernel counts them: NaNs are
    skipped by max/min unless the first element is one, and make the mean NaN."""
    flat = t.detach().reshape(-1).to(torch.float64 if t.dtype == torch.float64 else torch.float32)
    nan = torch.isnan(flat)
    num_nan, num_inf = int(nan.sum()), int(torch.isinf(flat).sum())
    num_zero = int((flat == 0).sum())
    if flat.numel() == 0:
        return num_nan, num_inf, num_zero, 0.0, 0.0, 0.0
    if bool(nan[0]):
        high = low = float("nan")
    else:
        kept = flat[~nan]
        high, low = float(kept.max()), float(kept.min())
    return num_nan, num_inf, num_zero, high, low, float(flat.mean())


def _report(t, op_type, var_name, level, output_dir=None):
    """Check one tensor: print (or append to ``output_dir``/worker_0.log) Paddle's [PRECISION] line when
    ``level`` asks for it; raise on NaN/Inf at CHECK_NAN_INF_AND_ABORT."""
    num_nan, num_inf, num_zero, high, low, mean = _stats(t)
    where = (f"[device={'gpu:%d' % t.device.index if t.is_cuda else 'cpu'}, op={op_type}, tensor={var_name}, "
             f"dtype={_SHORT.get(t.dtype, str(t.dtype))}]")
    line = None
    if num_nan or num_inf:
        line = (f"[PRECISION] [ERROR] in {where}, numel={t.numel()}, num_nan={num_nan}, num_inf={num_inf}, "
                f"num_zero={num_zero}, max={high:e}, min={low:e}, mean={mean:e}")
    elif level >= 3 or (level == 2 and t.dtype == torch.float32 and (high > _FP16_MAX or low < -_FP16_MAX)):
        line = (f"[PRECISION] in {where}, numel={t.numel()}, num_zero={num_zero}, max={high:e}, min={low:e}, "
                f"mean={mean:e}")
    if line is not None:
        if output_dir:
            os.makedirs(output_dir, exist_ok=True)
            with open(os.path.join(output_dir, "worker_0.log"), "a") as f:
                f.write(line + "\n")
        else:
            print(line)
    if (num_nan or num_inf) and level == 0:
        raise RuntimeError(f"(PreconditionNotMet) There are NAN or INF (num_nan={num_nan}, num_inf={num_inf}, "
                           f"num_zero={num_zero}) in {where}.")
    return num_nan, num_inf, num_zero, high, low, mean


def check_numerics(tensor, op_type, var_name, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT):
    """-> (stats, values): int64 [num_nan, num_inf, num_zero] and float32 [max, min, mean] of ``tensor``;
    NaN/Inf raise RuntimeError in CHECK_NAN_INF_AND_ABORT mode and are printed in the others."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"check_numerics: tensor must be a Tensor, got {type(tensor).__name__}")
    if not isinstance(debug_mode, DebugMode):
        raise TypeError(f"check_numerics: debug_mode must be a paddle.amp.debugging.DebugMode, got {debug_mode!r}")
    t = tensor._t
    if not t.is_floating_point():
        raise RuntimeError(f"check_numerics: the kernel is registered for float16, bfloat16, float32 and float64 "
                           f"tensors, got {str(t.dtype).replace('torch.', '')}")
    num_nan, num_inf, num_zero, high, low, mean = _report(t, op_type, var_name, debug_mode.value)
    stats = wrap(torch.tensor([num_nan, num_inf, num_zero], dtype=torch.int64, device=t.device))
    values = wrap(torch.tensor([high, low, mean], dtype=torch.float32, device=t.device))
    return stats, values


def check_layer_numerics(func):
    """Decorate a Layer's forward: the outputs of the ops it runs are checked for NaN/Inf (abort mode)."""
    def wrapper(self, *args, **kwargs):
        if not args:
            raise RuntimeError("No elements found in args.")
        if not isinstance(args[0], Tensor):
            raise RuntimeError("First input of this layer must be tensor.")
        args[0].stop_gradient = False
        previous = _dispatch.STATE.checker
        _dispatch.STATE.checker = _op_checker(DebugMode.CHECK_NAN_INF_AND_ABORT.value, None, None, None)
        _dispatch.refresh()
        try:
            return func(self, *args, **kwargs)
        finally:
            _dispatch.STATE.checker = previous
            _dispatch.refresh()
    return wrapper


# -- operator stats ------------------------------------------------------------------------------------------
def _print_operator_stats(op_count_dict):
    print("<{:-^120}>".format(" op list "))
    print("<{:-^40}".format(" Op Name "), "|", "{:-^17}".format(" FP16 Calls "), "|",
          "{:-^17}".format(" BF16 Calls "), "|", "{:-^17}".format(" FP32 Calls"), "|",
          "{:-^17}>".format(" Other Calls "))
    for op_type in sorted(op_count_dict):
        called = op_count_dict[op_type]
        print(f"  {op_type:<40}|  {called[0]:<17}|  {called[1]:<17}|  {called[2]:<17}|  {called[3]:<17}")
    print("<{:-^120}>\n".format(" op count: " + str(len(op_count_dict)) + " "))


def enable_operator_stats_collection():
    """Start counting eager op calls per op type and dtype (float16, bfloat16, float32, other)."""
    _dispatch.STATE.stats = {}
    _flags.set_flags({"FLAGS_low_precision_op_list": 1})
    _dispatch.refresh()


def disable_operator_stats_collection():
    """Stop counting and print the table."""
    if not _flags.get_flags("FLAGS_low_precision_op_list")["FLAGS_low_precision_op_list"]:
        return
    stats, _dispatch.STATE.stats = _dispatch.STATE.stats or {}, None
    _dispatch.refresh()
    _print_operator_stats(stats)
    _flags.set_flags({"FLAGS_low_precision_op_list": 0})


@contextlib.contextmanager
def collect_operator_stats():
    """Count the ops run inside, by dtype; the table is printed on exit."""
    enable_operator_stats_collection()
    yield
    disable_operator_stats_collection()


# -- tensor checker ------------------------------------------------------------------------------------------
def _op_checker(level, output_dir, checked, skipped):
    # NOTE: ops' outputs have no names here; Paddle's CPU checker prints an empty ``tensor=`` too
    def check(op_type, out):
        if (checked and op_type not in checked) or (skipped and op_type in skipped):
            return
        for v in out if isinstance(out, (list, tuple)) else (out,):
            for t in (v if isinstance(v, (list, tuple)) else (v,)):
                if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel():
                    _report(t, op_type, "", level, output_dir)
    return check


class TensorCheckerConfig:
    """Settings of the tensor checker (enable_tensor_checker): the debug mode, where to write the log
    (``output_dir``, else stdout), which op types to check or skip, and the training steps to check
    (``debug_step=[start, end)``). An enabled config seeds paddle, NumPy and random with ``seed``."""
    current_step_id = 0

    def __init__(self, enable, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT, output_dir=None, checked_op_list=None,
                 skipped_op_list=None, debug_step=None, stack_height_limit=1):
        self.enable = enable
        self.debug_mode = debug_mode
        self.output_dir = output_dir
        self.checked_op_list = checked_op_list
        self.skipped_op_list = skipped_op_list
        self.debug_step = debug_step
        self.stack_height_limit = stack_height_limit
        self.start_step = self.end_step = None
        self.seed = 123
        self.initial_seed = _default_generator(torch.device("cpu")).initial_seed()
        if debug_step is not None:
            if not isinstance(debug_step, (tuple, list)):
                raise ValueError("debug_step must be list or tuple")
            assert len(debug_step) == 2 and debug_step[1] > debug_step[0]
            self.start_step, self.end_step = max(debug_step[0], 0), debug_step[1]
        if not isinstance(debug_mode, DebugMode):
            raise ValueError("debug_mode in DebugMode", debug_mode, DebugMode.__members__)
        for value, what in ((checked_op_list, "checked_op_list"), (skipped_op_list, "skipped_op_list")):
            if value is not None and not isinstance(value, (list, tuple)):
                raise ValueError(f"{what} must be list or tuple")
        if self.enable:
            self._set_seed(self.enable)

    def _set_seed(self, flag):
        if self.initial_seed != self.seed:
            self.seed = self.initial_seed
        if not 0 <= self.seed <= np.iinfo(np.uint32).max:
            print("[Warning: Seed must be between 0 and 2**32 - 1")
            self.seed = 123
        _seed(self.seed)
        np.random.seed(self.seed)
        random.seed(self.seed)
        print("AMP Debugging TensorCheckerConfig: seed ", self.seed)
        if torch.cuda.is_available():
            _flags.set_flags({"FLAGS_cudnn_deterministic": bool(flag)})
            print("AMP Debugging TensorCheckerConfig: FLAGS_cudnn_deterministic is ", flag)

    def _set_env(self, check_flag):
        _flags.set_flags({"FLAGS_check_nan_inf": bool(check_flag)})
        if check_flag:
            _flags.set_flags({"FLAGS_check_nan_inf_level": self.debug_mode.value})
            if not isinstance(self.stack_height_limit, int):
                raise ValueError("stack_height_limit must be int")
            _dispatch.STATE.checker = _op_checker(self.debug_mode.value, self.output_dir,
                                                  set(self.checked_op_list or ()), set(self.skipped_op_list or ()))
        else:
            _dispatch.STATE.checker = None
        _dispatch.refresh()

    def update_and_check_step_id(self):
        if not self.enable:
            return False
        if self.start_step is not None and self.end_step is not None:
            if not self.start_step <= TensorCheckerConfig.current_step_id < self.end_step:
                return False
            TensorCheckerConfig.current_step_id += 1
        return True

    def start_check_nan_inf(self):
        if self.enable:
            self._set_env(self.enable)

    def stop_check_nan_inf(self):
        self._set_env(False)


def enable_tensor_checker(checker_config):
    """Check the outputs of every op run from now on (within the config's steps) until disable_tensor_checker."""
    if checker_config.update_and_check_step_id():
        checker_config.start_check_nan_inf()
    else:
        checker_config.stop_check_nan_inf()


def disable_tensor_checker():
    _flags.set_flags({"FLAGS_check_nan_inf": False})
    _dispatch.STATE.checker = None
    _dispatch.refresh()


def compare_accuracy(dump_path, another_dump_path, output_filename, loss_scale=1, dump_all_tensors=False):
    """Compare two tensor-checker logs (CHECK_ALL with ``output_dir``: e.g. a float32 run and a float16 run) op by
    op and write the table to the Excel file ``output_filename`` (needs the xlsxwriter package)."""
    assert dump_all_tensors is False, "It is currently not supported."
    from .accuracy_compare import compare_accuracy as _compare
    _compare(dump_path, another_dump_path, output_filename, loss_scale)
