"""paddle.Model: fit/evaluate/predict loops, batch steps, checkpoints (Paddle 3.3.1 dygraph behaviour)."""
import inspect
import os
import warnings

import numpy as np

from .callbacks import EarlyStopping, _local_rank, _nranks, config_callbacks
from .model_summary import _input_spec_types, _is_spec, summary
from ..utils.nest import flatten as _flatten

__all__ = ["Model"]


def to_list(value):
    if value is None:
        return value
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def to_numpy(value):
    from ..framework.tensor import Tensor
    assert isinstance(value, Tensor), "not a variable"
    return np.array(value.numpy())   # a copy, as Paddle's np.array(tensor): callers may keep it


def _as_tensor(x):
    from ..framework.tensor import Tensor
    from ..tensor import to_tensor
    # Paddle copies a Tensor through to_tensor (stop_gradient=True); detaching gives the same view of autograd.
    return x.detach() if isinstance(x, Tensor) else to_tensor(x)


def _input_info(inputs):
    """(shapes, dtypes) of the given batch inputs (or InputSpecs), to derive InputSpecs from."""
    if _is_spec(inputs):
        return [list(inputs.shape)], [inputs.dtype]
    if isinstance(inputs, (list, tuple)):
        return [list(x.shape) for x in inputs], [x.dtype for x in inputs]
    if isinstance(inputs, dict):
        return [list(v.shape) for v in inputs.values()], [v.dtype for v in inputs.values()]
    return None


def _make_spec(shape, dtype="float32", name=None):
    cls = _input_spec_types()[0]
    return cls(shape=shape, dtype=dtype, name=name)


def _forward_arg_names(network):
    return inspect.getfullargspec(network.forward).args


def _amp():
    from .. import amp
    return amp


_AMP_LEVELS = ("O0", "O1", "O2")
_AMP_SCALER_KEYS = {"init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                    "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling", "use_fp16_guard"}


class _DynamicAdapter:
    """The eager implementation of the batch steps and checkpoint files."""

    def __init__(self, model):
        self.model = model
        self._nranks = _nranks()
        self._merge_count = {"eval_total": 0, "test_total": 0, "eval_batch": 0, "test_batch": 0}
        self._input_info = None
        self._amp_level = "O0"
        self._amp_configs = {}
        self._amp_custom_lists = {}
        self._use_fp16_guard = True
        self.ddp_model = None
        if self._nranks > 1:
            from ..distributed import DataParallel
            self.ddp_model = DataParallel(model.network)

    def _metric_updates(self, outputs, labels):
        results = []
        for metric in self.model._metrics:
            outs = metric.compute(*(to_list(outputs) + labels))
            results.append(metric.update(*[to_numpy(m) for m in to_list(outs)]))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        from ..tensor import add_n
        model = self.model
        assert model._optimizer, "model not ready, please call `model.prepare()` first"
        model.network.train()
        model.mode = "train"
        inputs = to_list(inputs)
        self._input_info = _input_info(inputs)
        labels = [_as_tensor(x) for x in to_list(labels if labels is not None else [])]
        if self._amp_level != "O0" and model._scaler is None:
            model._scaler = _amp().GradScaler(**self._amp_configs)
        net = self.ddp_model if self.ddp_model is not None else model.network
        if self._amp_level != "O0":
            with _amp().auto_cast(enable=True, level=self._amp_level, **self._amp_custom_lists):
                outputs = net(*[_as_tensor(x) for x in inputs])
        else:
            outputs = net(*[_as_tensor(x) for x in inputs])
        losses = to_list(model._loss(*(to_list(outputs) + labels)))
        final_loss = add_n(losses)
        if self._amp_level != "O0":
            scaled = model._scaler.scale(final_loss)
            scaled.backward()
            if update:
                model._scaler.minimize(model._optimizer, scaled)
                model.network.clear_gradients()
        else:
            final_loss.backward()
            if update:
                model._optimizer.minimize(final_loss)
                model.network.clear_gradients()
        metrics = self._metric_updates(outputs, labels)
        loss_values = [to_numpy(x) for x in losses]
        return (loss_values, metrics) if metrics else loss_values

    def eval_batch(self, inputs, labels=None):
        model = self.model
        model.network.eval()
        model.mode = "eval"
        inputs = to_list(inputs)
        self._input_info = _input_info(inputs)
        labels = [_as_tensor(x) for x in to_list(labels if labels is not None else [])]
        outputs = model.network(*[_as_tensor(x) for x in inputs])
        losses = to_list(model._loss(*(to_list(outputs) + labels))) if model._loss else None
        if self._nranks > 1:
            outputs, labels = self._gather_eval(outputs, labels)
        metrics = self._metric_updates(outputs, labels)
        if model._loss:
            loss_values = [to_numpy(x) for x in losses]
            return (loss_values, metrics) if metrics else loss_values
        return metrics

    def _gather_eval(self, outputs, labels):
        """Multi-process eval: gather every rank's batch and drop the samples the sampler padded."""
        from ..distributed import all_gather
        from ..tensor import concat

        def gather(x):
            parts = []
            all_gather(parts, x)
            return concat(parts, axis=0)

        outputs = [gather(o) for o in to_list(outputs)]
        labels = [gather(x) for x in labels]
        loader = self.model._test_dataloader
        if loader is not None and hasattr(loader, "dataset") and hasattr(loader.dataset, "__len__"):
            total = len(loader.dataset)
            samples = outputs[0].shape[0]
            count = self._merge_count.get(self.model.mode + "_total", 0)
            if count + samples >= total:
                keep = int(total - count)
                outputs, labels = [o[:keep] for o in outputs], [x[:keep] for x in labels]
                self._merge_count[self.model.mode + "_total"] = 0
                self._merge_count[self.model.mode + "_batch"] = keep
            else:
                self._merge_count[self.model.mode + "_total"] += samples
                self._merge_count[self.model.mode + "_batch"] = samples
        return outputs, labels

    def predict_batch(self, inputs):
        model = self.model
        model.network.eval()
        model.mode = "test"
        inputs = [_as_tensor(x) for x in to_list(inputs)]
        self._input_info = _input_info(inputs)
        return [to_numpy(o) for o in to_list(model.network(*inputs))]

    def parameters(self, *args, **kwargs):
        return self.model.network.parameters(*args, **kwargs)

    def save(self, path):
        from ..framework.atomic import write_set
        from ..framework.io import _writer
        model = self.model
        members = [(".pdparams", _writer(model.network.state_dict()))]
        if model._optimizer is not None:
            state = model._optimizer.state_dict()
            if state:
                members.append((".pdopt", _writer(state)))
        if getattr(model, "_scaler", None) is not None:
            state = model._scaler.state_dict()
            if state:
                members.append((".pdscaler", _writer(state)))
        # one set: a killed save never leaves new parameters beside an old optimizer state (framework.atomic)
        write_set(path, members, (".pdparams", ".pdopt", ".pdscaler"))

    def load(self, param_state_pairs, optim_state, scaler_state=None):
        model = self.model
        for param, state in param_state_pairs:
            param.set_value(state)
        if getattr(model, "_scaler", None) is not None and scaler_state:
            model._scaler.load_state_dict(scaler_state)
        if not model._optimizer or not optim_state:
            return
        state = dict(optim_state)
        # A static-graph checkpoint counts LR decay steps one behind the dygraph ``global_step``.
        if "@LR_DECAY_COUNTER@" in state:
            state["global_step"] = np.array(state.pop("@LR_DECAY_COUNTER@")) + 1
        model._optimizer.set_state_dict(state)

    def prepare(self):
        from ..framework.place import is_compiled_with_cuda
        model = self.model
        if self._amp_level == "O2" and model.mode == "train" and is_compiled_with_cuda():
            model.network, model._optimizer = _amp().decorate(models=model.network, optimizers=model._optimizer,
                                                              level="O2")
        if self._amp_level != "O0":
            model._scaler = None


class Model:
    """A network with training and inference loops: prepare, fit, evaluate, predict, save, load, summary.

    Differences from Paddle 3.3.1: dygraph only (a Model created under ``paddle.enable_static()`` raises
    NotImplementedError); ``save(training=False)`` needs paddle.jit.save;
    the logs dict the loops hand to callbacks is shared by this Model's train and eval phases only (Paddle
    shares one dict across every Model of the process); ``load(skip_mismatch=True)`` skips a mismatched key
    (Paddle re-applies the previous key, or fails on the first one); a forward with more (optional) arguments
    than inputs is not an IndexError; checkpoints are read with the safe unpickler of paddle.load; ``save`` writes
    its files as one set with a ``path.tpsave`` manifest and removes a ``.pdopt``/``.pdscaler`` it does not
    write, so a killed save or an earlier run's optimizer state is never loaded beside new parameters.
    """

    def __init__(self, network, inputs=None, labels=None):
        from ..framework.mode import in_dynamic_mode
        self.mode = "train"
        self.network = network
        self._inputs = None
        self._labels = None
        self._loss = None
        self._loss_weights = None
        self._optimizer = None
        self._metrics = []
        self._input_info = None
        self._is_shape_inferred = False
        self._test_dataloader = None
        self._scaler = None
        self._accumulate = 1
        self.stop_training = False
        # Paddle's epoch loop shares one logs dict between the train and eval phases; so do we.
        self._logs = {}
        if not in_dynamic_mode():
            if not isinstance(inputs, (list, tuple, dict)) and not _is_spec(inputs):
                raise TypeError("'inputs' must be list or tuple or dict, and couldn't be None.")
            raise NotImplementedError("paddle.Model in static graph mode is not supported by torchpaddle; call "
                                      "paddle.disable_static() before creating the Model")
        if inputs:
            specs = list(inputs.values()) if isinstance(inputs, dict) else to_list(inputs)
            bad = [type(s).__name__ for s in specs if not _is_spec(s)]
            if bad:
                raise TypeError(f"Model: inputs must be InputSpec instances (or a list/tuple/dict of them), got {bad}")
            self._input_info = _input_info(inputs)
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)
        self._adapter = _DynamicAdapter(self)

    # -- batch steps -------------------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update=True):
        """One optimisation step; returns the losses (list of arrays), plus the metrics when there are any."""
        out = self._adapter.train_batch(inputs, labels, update)
        if self._input_info is None:
            self._update_inputs()
        return out

    def eval_batch(self, inputs, labels=None):
        """One evaluation step (no gradients); returns losses and/or metrics like train_batch."""
        from ..autograd import no_grad
        with no_grad():
            out = self._adapter.eval_batch(inputs, labels)
        if self._input_info is None:
            self._update_inputs()
        return out

    def predict_batch(self, inputs):
        """The network's outputs on one batch, as a list of numpy arrays."""
        from ..autograd import no_grad
        with no_grad():
            out = self._adapter.predict_batch(inputs)
        if self._input_info is None:
            self._update_inputs()
        return out

    # -- checkpoints ------------------------------------------------------------------------------
    def save(self, path, training=True):
        """``training=True``: ``path.pdparams`` (+ ``path.pdopt``); else an inference model via paddle.jit.save."""
        if _local_rank() == 0:
            if not training:
                self._save_inference_model(path)
            else:
                self._adapter.save(path)

    def _save_inference_model(self, path):
        if self._input_info is None:
            raise RuntimeError("Saving inference model needs 'inputs' or running before saving. Please specify "
                               "'inputs' in Model initialization or input training data and perform a training "
                               "for shape derivation.")
        if self._is_shape_inferred:
            warnings.warn("'inputs' was not specified when Model initialization, so the input shape to be saved "
                          f"will be the shape derived from the user's actual inputs. The input shape to be saved is "
                          f"{self._input_info[0]}. For saving correct input shapes, please provide 'inputs' for "
                          "Model initialization.")
        try:
            from ..jit import save as jit_save
        except ImportError:
            raise NotImplementedError("Model.save(training=False) needs paddle.jit.save, which torchpaddle does not "
                                      "provide yet") from None
        jit_save(self.network, path, input_spec=self._inputs)

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Restore ``path.pdparams`` by structured name (and ``path.pdopt`` unless ``reset_optimizer``)."""
        from ..framework.io import load as _load

        def read(file):
            return _load(file, return_numpy=True) if os.path.exists(file) else None

        path, ext = os.path.splitext(path)
        assert ext in ("", ".pdparams", ".pdopt", ".pdmodel"), f"Unknown postfix {ext} from weights"
        param_state = read(path + ".pdparams")
        assert param_state, "Failed to load parameters, please check path."
        pairs = []
        for key, param in self.network.state_dict().items():
            state = param_state.get(key, None)
            try:
                if state is None:
                    raise ValueError(f"{key} is not found in the providing file.")
                if list(np.shape(state)) != list(param.shape):
                    raise ValueError(f"{key} receives a shape {list(np.shape(state))}, but the expected shape is "
                                     f"{list(param.shape)}.")
            except ValueError as err:
                if not skip_mismatch:
                    raise
                # NOTE: Paddle re-appends the previous pair here (or fails on the first key); we just skip.
                warnings.warn(f"Skip loading for {key}. " + str(err))
                reset_optimizer = True
                continue
            pairs.append((param, state))
        optim_state = None if reset_optimizer else read(path + ".pdopt")
        scaler_state = None
        if self._scaler is not None and os.path.exists(path + ".pdscaler"):
            scaler_state = _load(path + ".pdscaler")
        return self._adapter.load(pairs, optim_state, scaler_state)

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self._adapter.parameters()

    # -- configuration ------------------------------------------------------------------------------
    def _prepare_amp(self, amp_configs):
        adapter = self._adapter
        adapter._amp_custom_lists, adapter._amp_configs = {}, {}

        def check_pure_fp16():
            clip = getattr(self._optimizer, "_grad_clip", None)
            if adapter._amp_level == "O2" and clip:
                from ..nn import ClipGradByGlobalNorm, ClipGradByNorm
                assert isinstance(clip, (ClipGradByGlobalNorm, ClipGradByNorm)), (
                    "Only ClipGradByNorm and ClipGradByGlobalNorm are supported in amp training with level=O2 "
                    "currently.")

        if not amp_configs:
            adapter._amp_level = "O0"
            return
        if isinstance(amp_configs, str):
            if amp_configs not in _AMP_LEVELS:
                raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
            adapter._amp_level = amp_configs
            check_pure_fp16()
            return
        if "level" not in amp_configs:
            adapter._amp_level = "O1"
        elif amp_configs["level"] not in _AMP_LEVELS:
            raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
        else:
            adapter._amp_level = amp_configs["level"]
        keys = set(amp_configs) - {"level"}
        if not keys or adapter._amp_level == "O0":
            return
        if "use_pure_fp16" in amp_configs:
            raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed precision training only "
                             "depends on 'O1' or 'O2'.")
        check_pure_fp16()
        for key in ("custom_white_list", "custom_black_list", "custom_black_varnames"):
            if key in keys:
                adapter._amp_custom_lists[key] = amp_configs[key]
                keys.discard(key)
        unknown = keys - _AMP_SCALER_KEYS
        if unknown:
            raise ValueError("Except for 'level', the keys of 'amp_configs' must be accepted by mixed precision "
                             f"APIs, but {tuple(unknown)} could not be recognized.")
        if "use_fp16_guard" in keys:
            raise ValueError("'use_fp16_guard' is supported in static graph mode only.")
        for key in keys:
            adapter._amp_configs[key] = amp_configs[key]

    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or callable) and the metrics; optionally AMP settings."""
        from ..framework.place import current_torch_device, place_of
        from ..metric import Metric
        from ..nn import Layer
        self._place = place_of(current_torch_device())
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable function.")
        self._loss = loss
        metrics = to_list(metrics or [])
        for metric in metrics:
            assert isinstance(metric, Metric), f"{metric.__class__.__name__} is not sub class of Metric"
        self._metrics = metrics
        self._prepare_amp(amp_configs)
        if self._adapter._amp_level != "O0":
            _amp()
        self._adapter.prepare()

    # -- loops ------------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        from ..io import DataLoader, Dataset, DistributedBatchSampler
        if data is None or not isinstance(data, Dataset):
            return data
        sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
        return DataLoader(data, batch_sampler=sampler, places=getattr(self, "_place", None), num_workers=num_workers,
                          return_list=True)

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10, save_dir=None,
            save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` epochs, evaluating on ``eval_data`` every ``eval_freq`` epochs."""
        assert train_data is not None, "train_data must be given!"
        if isinstance(batch_size, (tuple, list)) and all(isinstance(x, int) for x in batch_size):
            assert len(batch_size) == 2, "batch_size length error, expected train_batch_size and eval_batch_size."
            train_batch_size, eval_batch_size = batch_size
        elif isinstance(batch_size, int):
            train_batch_size = eval_batch_size = batch_size
        else:
            raise TypeError(f"Model.fit: batch_size must be an int or a list of two ints, got {batch_size!r}")
        train_loader = self._loader(train_data, train_batch_size, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, eval_batch_size, num_workers=num_workers)
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches

        steps = self._len_data_loader(train_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(steps, int):
            assert num_iters > 0, "num_iters must be greater than 0!"
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose,
                                metrics=self._metrics_name())
        if any(isinstance(k, EarlyStopping) for k in cbks) and not do_eval:
            warnings.warn("EarlyStopping needs validation data.")

        logs = self._logs
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len_data_loader(eval_loader),
                                       "metrics": self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, "eval")
                cbks.on_end("eval", eval_logs)
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        """Loss and metrics over ``eval_data``: ``{'loss': [value], '<metric>': value, ...}``."""
        eval_loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = eval_loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        eval_steps = self._len_data_loader(eval_loader)
        self.num_iters = num_iters
        if num_iters is not None and isinstance(num_iters, int) and isinstance(eval_steps, int):
            assert num_iters > 0, "num_iters must be greater than 0!"
            eval_steps = min(num_iters, eval_steps)
            self.num_iters = eval_steps
        cbks.on_begin("eval", {"steps": eval_steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(eval_loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        """The network's outputs over ``test_data``: one list per output (stacked arrays with stack_outputs)."""
        test_loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = test_loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len_data_loader(test_loader)})
        logs, outputs = self._run_one_epoch(test_loader, cbks, "predict")
        outputs = list(zip(*outputs))
        if stack_outputs:
            outputs = [np.vstack(outs) for outs in outputs]
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    def _run_one_epoch(self, data_loader, callbacks, mode):
        logs = self._logs
        outputs = []
        names = self._metrics_name()
        for step, data in enumerate(data_loader):
            # Batches may be [inputs..., labels...] or ([inputs...], [labels...]): flatten either.
            data = _flatten(data)
            batch_size = data[0].shape()[0] if callable(data[0].shape) else data[0].shape[0]
            callbacks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                n_in = len(self._inputs)
                args = [data[:n_in], data[n_in:]]
                if mode == "train":
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == len(data_loader))
                outs = getattr(self, mode + "_batch")(*args)
                if self._metrics and self._loss:
                    values = [[float(x) for x in outs[0]]]
                elif self._loss:
                    values = [[float(x) for x in outs]]
                else:
                    values = []
                for metric in self._metrics:
                    values.extend(to_list(metric.accumulate()))
                assert len(names) == len(values)
                logs.update(zip(names, values))
            else:
                outputs.append(self.predict_batch(data[:len(self._inputs)] if self._inputs is not None else data))
            logs["step"] = step
            merged = self._adapter._merge_count.get(mode + "_batch", 0)
            logs["batch_size"] = batch_size * self._adapter._nranks if mode == "train" or merged <= 0 else merged
            callbacks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        self._reset_metrics()
        if mode == "predict":
            return logs, outputs
        return logs

    # -- introspection ----------------------------------------------------------------------------
    def summary(self, input_size=None, dtype=None):
        """paddle.summary of the network, with ``input_size`` defaulting to the Model's ``inputs``."""
        assert input_size is not None or self._inputs is not None, "'input_size' or 'self._input' must be set"
        return summary(self.network, input_size if input_size is not None else self._inputs, dtypes=dtype)

    def _verify_spec(self, specs, shapes=None, dtypes=None, is_input=False):
        if specs is None:
            if is_input:
                names = _forward_arg_names(self.network)[1:]
                if shapes is not None and dtypes is not None:
                    # NOTE: Paddle raises IndexError when forward has more (optional) arguments than inputs.
                    out = [_make_spec(shape, dtype, n) for n, shape, dtype in zip(names, shapes, dtypes)]
                else:
                    out = [_make_spec([None], name=n) for n in names]
            else:
                out = None
        elif isinstance(specs, dict):
            assert is_input is False
            out = [specs[n] for n in _forward_arg_names(self.network) if n != "self"]
        else:
            out = to_list(specs)
        for i, spec in enumerate(out or []):
            assert _is_spec(spec)
            if spec.name is None:
                raise ValueError(f"Requires Input[{i}].name != None, but receive `None` with {spec}.")
        return out

    def _reset_metrics(self):
        for metric in self._metrics:
            metric.reset()

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(to_list(m.name()))
        return names

    @staticmethod
    def _len_data_loader(data_loader):
        try:
            return len(data_loader)
        except Exception:  # noqa: BLE001 (an iterable without a length: unknown step count)
            return None

    def _update_inputs(self):
        self._input_info = self._adapter._input_info
        if self._input_info is not None and len(self._input_info) == 2:
            self._inputs = self._verify_spec(None, self._input_info[0], self._input_info[1], True)
            self._is_shape_inferred = True

