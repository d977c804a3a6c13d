"""hapi callbacks: the hooks ``Model.fit/evaluate/predict`` call, and the stock ones (Paddle 3.3.1 behaviour)."""
import importlib
import numbers
import os
import time
import warnings

import numpy as np

from .progressbar import ProgressBar

__all__ = ["Callback", "CallbackList", "ProgBarLogger", "ModelCheckpoint", "LRScheduler", "EarlyStopping",
           "ReduceLROnPlateau", "VisualDL", "WandbCallback", "config_callbacks"]


def _parallel_env():
    """paddle.distributed.ParallelEnv when torchpaddle has it; else Paddle's environment variables."""
    try:
        from ..distributed import ParallelEnv
    except ImportError:
        return None
    return ParallelEnv()


def _local_rank():
    env = _parallel_env()
    return int(os.getenv("PADDLE_TRAINER_ID", "0")) if env is None else env.local_rank


def _nranks():
    env = _parallel_env()
    return int(os.getenv("PADDLE_TRAINERS_NUM", "1")) if env is None else env.nranks


def _try_import(module_name, err_msg=None):
    try:
        return importlib.import_module(module_name)
    except ImportError:
        install = module_name.split(".")[0]
        raise ImportError(err_msg or f"Failed importing {module_name}. This likely means that some paddle modules "
                          "require additional dependencies that have to be manually installed (usually with "
                          f"`pip install {install}`). ") from None


def _scalar(value):
    """The number a monitor compares: the first element of a list, a plain number, or None."""
    if isinstance(value, (list, tuple)):
        return value[0]
    if isinstance(value, numbers.Number):
        return value
    return None


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2, verbose=2,
                     save_freq=1, save_dir=None, metrics=None, mode="train"):
    """The callbacks a run uses: the user's, plus a ProgBarLogger (when verbose), ModelCheckpoint and LRScheduler."""
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    metrics = (metrics or []) if mode != "test" else []
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                         "metrics": metrics})
    return cbk_list


class CallbackList:
    """Dispatches each event to every callback, in order."""

    def __init__(self, callbacks=None):
        assert callbacks is not None
        self.callbacks = list(callbacks)
        self.params = {}
        self.model = None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode):
        assert mode in ("train", "eval", "predict"), "mode should be train, eval or predict"

    def on_begin(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """Base class: override any ``on_*`` hook; ``self.model`` and ``self.params`` are set before a run."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model


def _hook(name, arg):
    if arg is None:
        def hook(self, logs=None):
            pass
    elif arg == "epoch":
        def hook(self, epoch, logs=None):
            pass
    else:
        def hook(self, step, logs=None):
            pass
    hook.__name__ = hook.__qualname__ = name
    hook.__doc__ = "Called by Model; does nothing unless overridden."
    return hook


for _mode in ("train", "eval", "predict"):
    for _when in ("begin", "end"):
        setattr(Callback, f"on_{_mode}_{_when}", _hook(f"on_{_mode}_{_when}", None))
        setattr(Callback, f"on_{_mode}_batch_{_when}", _hook(f"on_{_mode}_batch_{_when}", "step"))
for _when in ("begin", "end"):
    setattr(Callback, f"on_epoch_{_when}", _hook(f"on_epoch_{_when}", "epoch"))
del _mode, _when


def _new_timer():
    return {"data_time": 0, "batch_time": 0, "count": 0, "samples": 0, "batch_start_time": time.time()}


class ProgBarLogger(Callback):
    """Prints the progress of training/evaluation/prediction (verbose 1: bar, 2: one line per log_freq steps)."""

    def __init__(self, log_freq=1, verbose=2):
        self.epochs = None
        self.steps = None
        self.progbar = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self):
        return self.verbose and _local_rank() == 0

    # Paddle names the predict phase "test" in its attributes (test_step, test_progbar...).
    def _begin_phase(self, phase, steps, metrics):
        setattr(self, f"{phase}_steps", steps)
        setattr(self, f"{phase}_metrics", metrics)
        setattr(self, f"{phase}_step", 0)
        setattr(self, f"_{phase}_timer", _new_timer())
        setattr(self, f"{phase}_progbar", ProgressBar(num=steps, verbose=self.verbose))

    def _batch_begin(self, phase):
        timer = getattr(self, f"_{phase}_timer")
        timer["batch_data_end_time"] = time.time()
        timer["data_time"] += timer["batch_data_end_time"] - timer["batch_start_time"]

    def _batch_end(self, phase, logs, steps):
        step = getattr(self, f"{phase}_step") + 1
        setattr(self, f"{phase}_step", step)
        timer = getattr(self, f"_{phase}_timer")
        timer["batch_time"] += time.time() - timer["batch_data_end_time"]
        timer["count"] += 1
        timer["samples"] += logs.get("batch_size", 1)
        if self._is_print() and step % self.log_freq == 0 and (steps is None or step < steps):
            self._updates(logs, phase)
        timer["batch_start_time"] = time.time()

    def _updates(self, logs, mode):
        metrics = getattr(self, f"{mode}_metrics")
        values = [(k, logs[k]) for k in metrics if k in logs]
        timer = getattr(self, f"_{mode}_timer", None)
        if self.verbose == 3 and timer is not None:
            count = timer["count"] if timer["count"] > 0 else 1.0
            samples = timer["samples"] if timer["samples"] > 0 else 1.0
            values.append(("avg_reader_cost", "%.5f sec" % (timer["data_time"] / count)))
            values.append(("avg_batch_cost", "%.5f sec" % (timer["batch_time"] / count)))
            values.append(("ips", "%.5f samples/sec" % (samples / (timer["data_time"] + timer["batch_time"]))))
            timer.update(count=0, samples=0, data_time=0.0, batch_time=0.0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    # -- train ------------------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._train_timer = _new_timer()
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is the average value of "
                  "previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)
        self._train_timer["batch_start_time"] = time.time()

    def on_train_batch_begin(self, step, logs=None):
        self._batch_begin("train")

    def on_train_batch_end(self, step, logs=None):
        self._batch_end("train", logs or {}, self.steps)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, "train")

    # -- eval -------------------------------------------------------------------------------------
    def on_eval_begin(self, logs=None):
        self._begin_phase("eval", logs.get("steps", None), logs.get("metrics", []))
        self.evaled_samples = 0
        if self._is_print():
            print("Eval begin...")
        self._eval_timer["batch_start_time"] = time.time()

    def on_eval_batch_begin(self, step, logs=None):
        self._batch_begin("eval")

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.evaled_samples += logs.get("batch_size", 1)
        self._batch_end("eval", logs, self.eval_steps)

    def on_eval_end(self, logs=None):
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.evaled_samples}")

    # -- predict ----------------------------------------------------------------------------------
    def on_predict_begin(self, logs=None):
        self._begin_phase("test", logs.get("steps", None), logs.get("metrics", []))
        self.tested_samples = 0
        if self._is_print():
            print("Predict begin...")
        self._test_timer["batch_start_time"] = time.time()

    def on_predict_batch_begin(self, step, logs=None):
        self._batch_begin("test")

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.tested_samples += logs.get("batch_size", 1)
        self._batch_end("test", logs, self.test_steps)

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves the model to ``{save_dir}/{epoch}`` every ``save_freq`` epochs and to ``{save_dir}/final``."""

    def __init__(self, save_freq=1, save_dir=None):
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return self.model and self.save_dir and _local_rank() == 0

    def _save(self, name):
        path = f"{self.save_dir}/{name}"
        print(f"save checkpoint at {os.path.abspath(path)}")
        self.model.save(path)

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            self._save(epoch)

    def on_train_end(self, logs=None):
        if self._is_save():
            self._save("final")


class LRScheduler(Callback):
    """Steps the optimizer's LRScheduler after every batch (``by_step``) or every epoch (``by_epoch``)."""

    def __init__(self, by_step=True, by_epoch=False):
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self):
        from ..optimizer.lr import LRScheduler as _Scheduler
        optimizer = self.model._optimizer
        if optimizer and isinstance(getattr(optimizer, "_learning_rate", None), _Scheduler):
            optimizer._learning_rate.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


def _resolve_mode(mode, monitor, kind):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{kind} mode {mode} is unknown, fallback to auto mode.")
        mode = "auto"
    if mode == "auto":
        mode = "max" if "acc" in monitor else "min"
    return mode


class EarlyStopping(Callback):
    """Stops training when the monitored eval value has not improved for ``patience`` evaluations."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        mode = _resolve_mode(mode, monitor, "EarlyStopping")
        self.monitor_op = np.greater if mode == "max" else np.less
        # The delta is added to the current value, so it points against the improving direction.
        self.min_delta = abs(min_delta) if mode == "max" else -abs(min_delta)

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        best_path = None if self.save_dir is None else os.path.join(self.save_dir, "best_model")
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and best_path is not None:
                self.model.save(best_path)
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and best_path is not None:
                    print(f"Best checkpoint has been saved at {os.path.abspath(best_path)}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by ``factor`` when the monitored eval value stops improving.

    NOTE: in Paddle 3.3.1 the new value only changes ``get_lr()``: its optimizer keeps using the float it
    copied at its first step. torchpaddle's optimizers read the learning rate every step, so it takes effect.
    """

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto", min_delta=1e-4, cooldown=0,
                 min_lr=0):
        super().__init__()
        self.monitor = monitor
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0
        self.best = 0
        self.mode = mode
        self.monitor_op = None
        self.epoch = 0
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, fallback to auto mode.")
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        try:
            lr = self.model._optimizer._learning_rate
        except Exception as e:  # noqa: BLE001 (Paddle only warns here)
            warnings.warn(f"There are something wrong when get learning_rate from optimizer: {e}.")
            return
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = self.model._optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    self.model._optimizer._learning_rate = new_lr
                    if self.verbose > 0 and _local_rank() == 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


def _log_scalars(callback, logs, mode, write):
    """Calls ``write(tag, step, value)`` for every metric of ``mode`` found in ``logs``."""
    step = getattr(callback, f"{mode}_step") if mode == "train" else callback.epoch
    for k in getattr(callback, f"{mode}_metrics"):
        if k in logs:
            value = _scalar(logs[k])
            if value is not None:
                write(f"{mode}/{k}", step, value)


class VisualDL(Callback):
    """Writes train/eval scalars with VisualDL's LogWriter (needs the ``visualdl`` package)."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _is_write(self):
        return _local_rank() == 0

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch

    def _updates(self, logs, mode):
        if not self._is_write():
            return
        if not hasattr(self, "writer"):
            self.writer = _try_import("visualdl").LogWriter(self.log_dir)
        _log_scalars(self, logs, mode, lambda tag, step, value: self.writer.add_scalar(tag=tag, step=step,
                                                                                          value=value))

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if self._is_write():
            self._updates(logs or {}, "train")

    def on_eval_begin(self, logs=None):
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_train_end(self, logs=None):
        if hasattr(self, "writer"):
            self.writer.close()
            delattr(self, "writer")

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs, "eval")
            if not hasattr(self, "_is_fit") and hasattr(self, "writer"):
                self.writer.close()
                delattr(self, "writer")


class WandbCallback(Callback):
    """Logs train/eval scalars to Weights & Biases (needs the ``wandb`` package)."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs):
        self.wandb = _try_import("wandb", "You want to use `wandb` which is not installed yet install it with "
                                          "`pip install wandb`")
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir, "mode": mode,
                           "job_type": job_type, **kwargs}
        self._run = None
        _ = self.run

    def _is_write(self):
        return _local_rank() == 0

    @property
    def run(self):
        if self._is_write() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created instances of "
                              "`WandbCallback` will reuse this run. If this is not desired , call `wandb.finish()` "
                              "before instantiating `WandbCallback`.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        assert self.epochs
        self.train_metrics = self.params["metrics"]
        assert self.train_metrics
        self._is_fit = True
        self.train_step = 0
        if self._is_write():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def on_epoch_begin(self, epoch, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch

    def _updates(self, logs, mode):
        if not self._is_write():
            return
        record = {"train/step": self.train_step} if mode == "train" else {"epoch": self.epoch}
        _log_scalars(self, logs, mode, lambda tag, step, value: record.__setitem__(tag, value))
        self.run.log(record)

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if self._is_write():
            self._updates(logs or {}, "train")

    def on_eval_begin(self, logs=None):
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_train_end(self, logs=None):
        if self._is_write():
            self.run.finish()

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs, "eval")
            if not hasattr(self, "_is_fit") and hasattr(self, "run"):
                self.run.finish()
