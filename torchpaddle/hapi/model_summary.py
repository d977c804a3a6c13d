"""paddle.summary: a per-layer table of input/output shapes and parameter counts (Paddle's exact text)."""
import numbers
import sys
import warnings

import numpy as np

__all__ = ["summary", "summary_string"]


def _input_spec_types():
    """The InputSpec class(es) available: paddle.static.InputSpec (or paddle.jit's) once torchpaddle has one."""
    root = __package__.rsplit(".", 1)[0]
    for name in ("static", "jit"):
        cls = getattr(sys.modules.get(f"{root}.{name}"), "InputSpec", None)
        if cls is not None:
            return (cls, _FallbackSpec)
    return (_FallbackSpec,)


class _FallbackSpec:
    """Stand-in for paddle.static.InputSpec, only used by Model when that class is not available."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        from ..framework.dtype import convert_dtype
        self.shape = tuple(-1 if d is None else d for d in shape)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = stop_gradient

    def __repr__(self):
        return f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, " \
               f"stop_gradient={self.stop_gradient})"


def _is_spec(x):
    return isinstance(x, _input_spec_types())


def _all_numbers(items):
    return all(isinstance(item, numbers.Number) for item in items)


def _input_size_of(input):
    from ..framework.tensor import Tensor
    if isinstance(input, Tensor):
        return tuple(input.shape)
    if isinstance(input, (list, tuple)):
        return [tuple(x.shape) for x in input]
    if isinstance(input, dict):
        return [tuple(v.shape) for v in input.values()]
    raise ValueError("Input is not tensor, list, tuple and dict, unable to determine input_size, please input "
                     "input_size.")


def _normalize_input_size(input_size):
    if _is_spec(input_size):
        return tuple(input_size.shape)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            assert isinstance(item, tuple) or _is_spec(item), (
                f"When input_size is list, expect item in input_size is a tuple or InputSpec, but got {type(item)}")
            out.append(tuple(item.shape) if _is_spec(item) else item)
        return out
    if isinstance(input_size, int):
        return (input_size,)
    return input_size


def _check_shape(shape):
    unknown = 0
    out = []
    for item in shape:
        if item is None or item == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("Option input_size only the dim of batch_size can be None or -1.")
            item = 1
        elif isinstance(item, numbers.Number) and item <= 0:
            raise ValueError(f"Expected element in input size greater than zero, but got {item}")
        out.append(item)
    return tuple(out)


def _check_input(input_size):
    if isinstance(input_size, (list, tuple)) and not any(isinstance(i, (list, tuple)) for i in input_size):
        return _check_shape(input_size)
    return [_check_input(i) for i in input_size]


def summary(net, input_size=None, dtypes=None, input=None):
    """Print the network's layer table; returns ``{'total_params': n, 'trainable_params': m}``."""
    from ..framework.mode import in_dynamic_mode
    if input_size is None and input is None:
        raise ValueError("input_size and input cannot be None at the same time")
    if input_size is None:
        input_size = _input_size_of(input)
    input_size = _check_input(_normalize_input_size(input_size))
    if not in_dynamic_mode():
        warnings.warn("Your model was created in static graph mode, this may not get correct summary information!")
        was_training = False
    else:
        was_training = net.training
    if was_training:
        net.eval()
    try:
        text, params_info = summary_string(net, input_size, dtypes, input)
        print(text)
    finally:
        if was_training:
            net.train()
    return params_info


def _shape_of_inputs(x):
    from ..framework.tensor import Tensor
    if isinstance(x, Tensor):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shape_of_inputs(v) for v in x]
    return None


def _shape_of_output(output):
    if isinstance(output, (list, tuple)):
        return [_shape_of_output(o) for o in output]
    if hasattr(output, "shape"):
        return list(output.shape)
    return []


def _record(table, layer):
    """The forward-post hook: one table row per (class, creation index), as Paddle keys them."""
    def hook(layer, inputs, output):
        class_name = str(layer.__class__).split(".")[-1].split("'")[0]
        try:
            index = int(layer._full_name.split("_")[-1])
        except (AttributeError, ValueError):
            index = len(table)
        row = table[f"{class_name}-{index + 1}"] = {}
        try:
            row["input_shape"] = _shape_of_inputs(inputs)
        except Exception:  # noqa: BLE001 (Paddle: a warning and an empty shape)
            warnings.warn("Get layer {} input shape failed!")
            row["input_shape"] = []
        row["output_shape"] = _shape_of_output(output)
        params = 0
        row["trainable_params"] = 0
        trainable_seen = False
        for name, value in layer._parameters.items():
            params += np.prod(value.shape)
            try:
                param = getattr(layer, name)
                if param.trainable and not param.stop_gradient:
                    row["trainable_params"] += np.prod(value.shape)
                    row["trainable"] = trainable_seen = True
                elif not trainable_seen:
                    row["trainable"] = False
            except Exception:  # noqa: BLE001
                row["trainable"] = True
        row["nb_params"] = params
    return hook


def _build_dtypes(input_size, dtype):
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        return [dtype]
    return [_build_dtypes(i, dtype) for i in input_size]


def _build_input(input_size, dtypes):
    from ..tensor import cast, rand
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return cast(rand(list(input_size)), dtype)
    return [_build_input(i, d) for i, d in zip(input_size, dtypes)]


def _input_megabytes(input_size):
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        return abs(np.prod(input_size) * 4.0 / (1024 ** 2.0))
    return sum(_input_megabytes(i) for i in input_size)


def _widths(table):
    widths = {"layer_width": 15, "input_shape_width": 20, "output_shape_width": 20, "params_width": 15}
    for key, row in table.items():
        widths["output_shape_width"] = max(widths["output_shape_width"], len(str(row["output_shape"])))
        widths["input_shape_width"] = max(widths["input_shape_width"], len(str(row["input_shape"])))
        widths["layer_width"] = max(widths["layer_width"], len(str(key)))
        widths["params_width"] = max(widths["params_width"], len(str(row["nb_params"])))
    widths["table_width"] = max(75, sum(widths.values()) + 5)
    return widths


def summary_string(model, input_size=None, dtypes=None, input=None):
    """The text ``summary`` prints, and the parameter totals."""
    from ..autograd import no_grad
    from ..nn import LayerList, Sequential
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(input_size, "float32" if dtypes is None else dtypes)
    depth = len(list(model.sublayers()))
    table = {}
    hooks = []

    def register(layer):
        if (not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1)) or \
                getattr(layer, "could_use_cudnn", False):
            hooks.append(layer.register_forward_post_hook(_record(table, layer)))

    if isinstance(input_size, tuple):
        input_size = [input_size]
    model.apply(register)
    try:
        with no_grad():
            if input is not None:
                model(input)
            else:
                model(*_build_input(input_size, dtypes))
    finally:
        for h in hooks:
            h.remove()

    widths = _widths(table)
    line = "{:^{}} {:^{}} {:^{}} {:^{}}"
    rule, double = "-" * widths["table_width"], "=" * widths["table_width"]
    lines = [rule, line.format("Layer (type)", widths["layer_width"], "Input Shape", widths["input_shape_width"],
                               "Output Shape", widths["output_shape_width"], "Param #", widths["params_width"]),
             double]
    total_params = total_output = trainable_params = 0
    for key, row in table.items():
        lines.append(line.format(key, widths["layer_width"], str(row["input_shape"]), widths["input_shape_width"],
                                 str(row["output_shape"]), widths["output_shape_width"],
                                 "{:,}".format(row["nb_params"]), widths["params_width"]))
        total_params += row["nb_params"]
        try:
            total_output += np.sum(np.prod(row["output_shape"], axis=-1))
        except Exception:  # noqa: BLE001 (ragged nested output shapes: one product per output)
            for shape in row["output_shape"]:
                total_output += np.sum(np.prod(shape, axis=-1))
        if row.get("trainable"):
            trainable_params += row["trainable_params"]

    input_mb = _input_megabytes(input_size)
    output_mb = abs(2.0 * total_output * 4.0 / (1024 ** 2.0))  # x2 for the gradients
    params_mb = abs(total_params * 4.0 / (1024 ** 2.0))
    lines += [double,
              f"Total params: {total_params:,}",
              f"Trainable params: {trainable_params:,}",
              f"Non-trainable params: {total_params - trainable_params:,}",
              rule,
              f"Input size (MB): {input_mb:0.2f}",
              f"Forward/backward pass size (MB): {output_mb:0.2f}",
              f"Params size (MB): {params_mb:0.2f}",
              f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:0.2f}",
              rule]
    return "\n".join(lines) + "\n", {"total_params": total_params, "trainable_params": trainable_params}
