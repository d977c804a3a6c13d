"""``paddle.static.amp.decorate``: an optimizer wrapper whose ``minimize`` trains a static Program in mixed
precision.

``backward`` rewrites the program (O1: white-list ops in float16/bfloat16 behind cast ops; O2: the model in
half precision but the black list), scales the loss by the persistable ``loss_scaling`` variable and appends
the backward. ``apply_gradients`` unscales the gradients and checks them for inf/nan
(``check_finite_and_unscale``), updates the dynamic loss scaling (``update_loss_scaling``, float16 only) and
appends the optimizer ops; those with a SkipUpdate input (adam, adamw) skip the step when an inf/nan was found,
the others get the zeroed gradients, as in Paddle.

At O2 the optimizer keeps float32 master weights (``multi_precision``): persistable variables that the startup
program copies from the float32 initial values before it casts the parameters to half precision.
"""
import warnings

from ...framework import dtype as _dtype
from ...framework.program import OpRole, Variable, _role_guard, default_startup_program, program_guard
from ...utils import unique_name
from ..append import create_global_var
from ..backward import append_backward
from .amp_nn import check_finite_and_unscale, update_loss_scaling
from .fp16_lists import AutoMixedPrecisionLists
from .fp16_utils import cast_model_to_fp16, cast_parameters_to_fp16

__all__ = ["decorate", "OptimizerWithMixedPrecision"]


def _set_multi_precision(optimizer, multi_precision):
    if hasattr(optimizer, "_multi_precision"):
        optimizer._multi_precision = bool(multi_precision)


class OptimizerWithMixedPrecision:
    def __init__(self, optimizer, amp_lists, level, dtype, init_loss_scaling, use_dynamic_loss_scaling,
                 incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio, use_amp_guard=None,
                 use_master_grad=False, use_promote=False):
        self._optimizer = optimizer
        self._amp_lists = amp_lists
        self._amp_level = level
        self._amp_dtype = _dtype.convert_dtype(dtype)
        self._use_pure_fp16 = level == "O2"
        self._use_fp16_guard = use_amp_guard
        self._use_master_grad = use_master_grad
        self.use_promote = use_promote
        self._init_loss_scaling = init_loss_scaling
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        if self._amp_dtype.name == "bfloat16" and use_dynamic_loss_scaling:
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            warnings.warn("Dynamic loss scaling for bfloat16 amp training is disabled, and the init_loss_scaling is "
                          "changed to 1.0 automatically by PaddlePaddle.")
        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._incr_ratio = incr_ratio
        self._decr_ratio = decr_ratio
        # None for the AMP pass (static/passes/amp.py): it rewrites the program before the optimizer exists
        self._learning_rate = None if optimizer is None else optimizer._learning_rate
        self._loss_scaling = self._scaled_loss = None
        self._num_good_steps = self._num_bad_steps = None
        self._train_program = self._startup_program = None
        self._to_fp16_var_names = None
        self._param_grads = None

    def get_loss_scaling(self):
        """The ``loss_scaling`` Variable (fetch it to read the current factor)."""
        if self._loss_scaling is None:
            raise AssertionError("Please call minimize() before calling get_loss_scaling().")
        return self._loss_scaling

    def get_scaled_loss(self):
        return self._scaled_loss

    def _scales(self):
        return self._use_dynamic_loss_scaling or self._init_loss_scaling != 1.0

    def _init_amp_var(self):
        self._loss_scaling = create_global_var([1], self._init_loss_scaling, "float32", persistable=True,
                                               name=unique_name.generate("loss_scaling"))
        if self._use_dynamic_loss_scaling:
            self._num_good_steps = create_global_var([1], 0, "int32", persistable=True,
                                                     name=unique_name.generate("num_good_steps"))
            self._num_bad_steps = create_global_var([1], 0, "int32", persistable=True,
                                                    name=unique_name.generate("num_bad_steps"))

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        """Rewrite the program for AMP, scale ``loss`` and append the backward; -> [(param, scaled grad)]."""
        if not isinstance(loss, Variable):
            raise TypeError(f"OptimizerWithMixedPrecision.backward: loss must be a static Variable, got "
                            f"{type(loss).__name__}")
        self._train_program = loss.block.program
        self._startup_program = startup_program or default_startup_program()
        with program_guard(self._train_program, self._startup_program):
            self._init_amp_var()
            if self._use_pure_fp16:
                self._to_fp16_var_names = cast_model_to_fp16(self._train_program, self._amp_lists,
                                                             self._use_fp16_guard, self._amp_dtype, level="O2",
                                                             use_promote=self.use_promote)
            else:
                cast_model_to_fp16(self._train_program, self._amp_lists, use_fp16_guard=False,
                                   dest_type=self._amp_dtype, level=self._amp_level, use_promote=self.use_promote)
            if loss.dtype.name != "float32":
                loss = loss.astype("float32")
            self._scaled_loss = loss * self._loss_scaling if self._scales() else loss
            if parameter_list is None and self._optimizer is not None and self._optimizer._parameter_list:
                parameter_list = [p.name for p in self._optimizer._parameter_list]
            self._param_grads = append_backward(self._scaled_loss, parameter_list, no_grad_set)
        return self._param_grads

    def _cast_startup_parameters(self):
        """O2: the startup program leaves the half-precision parameters in half precision, after their float32
        initialisation and the float32 master weights copied from it, so the program runs without
        ``amp_init``."""
        if not self._use_pure_fp16:
            return
        block = self._startup_program.global_block()
        low = self._amp_dtype
        for name in self._to_fp16_var_names:
            if block.has_var(name):
                var = block.var(name)
                block.append_op("cast", {"X": [name]}, {"Out": [name]},
                                {"in_dtype": var.dtype.proto, "out_dtype": low.proto})
                var._dtype = low

    def _unscale(self, params_grads):
        """Append the unscaling and inf/nan check of the gradients and the loss-scaling update (optimize role);
        -> the found_inf Variable."""
        program = self._train_program
        grads = [g for _, g in params_grads]
        with program_guard(program, self._startup_program), _role_guard(program, OpRole.Optimize):
            _, found_inf = check_finite_and_unscale(grads, self._loss_scaling, name="find_infinite_scale")
            if self._use_dynamic_loss_scaling and self._amp_dtype.name == "float16":
                update_loss_scaling(grads, found_inf, self._loss_scaling, self._num_good_steps,
                                    self._num_bad_steps, self._incr_every_n_steps, self._decr_every_n_nan_or_inf,
                                    self._incr_ratio, self._decr_ratio, name="update_loss_scaling")
        return found_inf

    def apply_gradients(self, params_grads):
        """Unscale and check the gradients, update the loss scaling, append the optimizer step."""
        from ...optimizer.static_minimize import static_apply_gradients
        program = self._train_program
        optimizer = self._optimizer
        if not self._scales():
            ops = static_apply_gradients(optimizer, params_grads, program, self._startup_program)[0]
            self._cast_startup_parameters()
            return ops
        found_inf = self._unscale(params_grads)
        previous = optimizer._get_auxiliary_var("found_inf")
        optimizer._set_auxiliary_var("found_inf", found_inf)
        try:
            ops = static_apply_gradients(optimizer, params_grads, program, self._startup_program)[0]
        finally:
            optimizer._set_auxiliary_var("found_inf", previous)
        self._cast_startup_parameters()
        return ops

    def apply_optimize(self, loss, startup_program, params_grads):
        self._startup_program = startup_program or self._startup_program or default_startup_program()
        return self.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """-> (optimize ops, [(param, scaled grad)])"""
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    def amp_init(self, place, scope=None, test_program=None, use_fp16_test=False):
        """O2: make the scope's parameters half precision (after the startup program ran), and rewrite
        ``test_program`` to match the training program."""
        if self._train_program is None:
            raise AssertionError("Please call minimize() before calling amp_init().")
        if self._use_pure_fp16:
            cast_parameters_to_fp16(place, self._train_program, scope, self._to_fp16_var_names, self._amp_dtype)
        if test_program is not None:
            if self._use_pure_fp16:
                cast_model_to_fp16(test_program, self._amp_lists, self._use_fp16_guard, self._amp_dtype,
                                   level="O2")
            elif use_fp16_test:
                cast_model_to_fp16(test_program, self._amp_lists, use_fp16_guard=False, dest_type=self._amp_dtype,
                                   level="O1")

    def __getattr__(self, name):
        # everything else (get_lr, set_state_dict, _learning_rate_map...) is the inner optimizer's
        inner = self.__dict__.get("_optimizer")
        if inner is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(inner, name)


def _check_dtype(dtype):
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"If enable AMP, dtype should be 'float16' or 'bfloat16', but got {dtype!r}")
    return dtype


def _decorate_fp16_only(optimizer, amp_lists=None, init_loss_scaling=2 ** 15, incr_every_n_steps=1000,
                        decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8, use_dynamic_loss_scaling=True,
                        use_pure_fp16=False, use_fp16_guard=None, use_bf16=False, use_promote=False):
    dtype = "bfloat16" if use_bf16 else "float16"
    amp_lists = amp_lists or AutoMixedPrecisionLists(dtype=dtype)
    if use_fp16_guard is None:
        use_fp16_guard = use_pure_fp16
    return OptimizerWithMixedPrecision(optimizer, amp_lists, "O2" if use_pure_fp16 else "O1", dtype,
                                       init_loss_scaling, use_dynamic_loss_scaling, incr_every_n_steps,
                                       decr_every_n_nan_or_inf, incr_ratio, decr_ratio, use_amp_guard=use_fp16_guard,
                                       use_promote=use_promote)


def _decorate_common(optimizer, amp_lists=None, level="O1", dtype="float16", master_weight=None, master_grad=False,
                     init_loss_scaling=2 ** 16, incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, incr_ratio=2.0,
                     decr_ratio=0.5, use_dynamic_loss_scaling=None, use_amp_guard=False, use_promote=False):
    level = level.upper()
    if level not in ("O0", "OD", "O1", "O2"):
        raise ValueError("level should be O0, OD, O1 or O2.")
    dtype = _check_dtype(dtype)
    if amp_lists is None or level == "OD":
        amp_lists = AutoMixedPrecisionLists(dtype=dtype)
    if level == "OD":
        # only the default white list computes in half precision
        amp_lists.black_list = amp_lists.all_list - amp_lists.white_list
        amp_lists.gray_list = set()
        level = "O1"
    if use_dynamic_loss_scaling is None:
        use_dynamic_loss_scaling = dtype == "float16"
    if optimizer is not None:
        _set_multi_precision(optimizer, master_weight is not False)
    return OptimizerWithMixedPrecision(optimizer, amp_lists, level, dtype, init_loss_scaling,
                                       use_dynamic_loss_scaling, incr_every_n_steps, decr_every_n_nan_or_inf,
                                       incr_ratio, decr_ratio, use_amp_guard=use_amp_guard,
                                       use_master_grad=master_grad, use_promote=use_promote)


_FP16_ONLY_ARGS = {"use_pure_fp16", "use_fp16_guard", "use_bf16"}
_COMMON_ARGS = {"level", "dtype", "master_weight", "master_grad", "use_amp_guard"}


def decorate(*args, **kwargs):
    """Paddle's two signatures, told apart as Paddle does: by keyword names, else a float third argument
    (``init_loss_scaling``) means the float16-only one.

    decorate(optimizer, amp_lists=None, level='O1', dtype='float16', master_weight=None, master_grad=False,
             init_loss_scaling=2**16, incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, incr_ratio=2.0,
             decr_ratio=0.5, use_dynamic_loss_scaling=None, use_amp_guard=False, use_promote=False)
    decorate(optimizer, amp_lists=None, init_loss_scaling=2**15, incr_every_n_steps=1000,
             decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8, use_dynamic_loss_scaling=True,
             use_pure_fp16=False, use_fp16_guard=None, use_bf16=False, use_promote=False)
    """
    names = set(kwargs)
    if names & _FP16_ONLY_ARGS and not names & _COMMON_ARGS:
        return _decorate_fp16_only(*args, **kwargs)
    if names & _COMMON_ARGS:
        return _decorate_common(*args, **kwargs)
    if len(args) >= 3 and isinstance(args[2], float):
        return _decorate_fp16_only(*args, **kwargs)
    return _decorate_common(*args, **kwargs)
