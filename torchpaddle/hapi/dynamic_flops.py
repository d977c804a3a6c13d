"""paddle.flops: FLOPs of a network by Paddle's per-layer counting rules (and its table)."""
import warnings

import numpy as np

__all__ = ["flops", "dynamic_flops", "static_flops", "Table"]


class Table:
    """The ``+----+`` text table Paddle prints for ``print_detail=True``."""

    def __init__(self, table_heads):
        self.table_heads = table_heads
        self.table_len = [len(head) for head in table_heads]
        self.data = []
        self.col_num = len(table_heads)

    def add_row(self, row_str):
        if not isinstance(row_str, list):
            print("The row_str should be a list")
        if len(row_str) != self.col_num:
            print(f"The length of row data should be equal the length of table heads, but the data: {len(row_str)} "
                  f"is not equal table heads {self.col_num}")
        for i in range(self.col_num):
            self.table_len[i] = max(self.table_len[i], len(str(row_str[i])))
        self.data.append(row_str)

    def print_row(self, row):
        print("".join("|" + str(row[i]).center(self.table_len[i] + 2) for i in range(self.col_num)) + "|")

    def print_shelf(self):
        print("".join("+" + "-" * (length + 2) for length in self.table_len) + "+")

    def print_table(self):
        self.print_shelf()
        self.print_row(self.table_heads)
        self.print_shelf()
        for row in self.data:
            self.print_row(row)
        self.print_shelf()


# -- counting rules (each adds to ``m.total_ops``; the signature is the one custom_ops functions use) --------
def count_convNd(m, x, y):
    x = x[0]
    kernel_ops = np.prod(m.weight.shape[2:])
    bias_ops = 1 if m.bias is not None else 0
    total_ops = int(y.numel()) * (x.shape[1] / m._groups * kernel_ops + bias_ops)
    m.total_ops += abs(int(total_ops))


def count_leaky_relu(m, x, y):
    m.total_ops += int(x[0].numel())


def count_bn(m, x, y):
    # Paddle counts batch norm only in eval mode (flops() switches the network to eval).
    m.total_ops += abs(2 * int(x[0].numel()))


def count_linear(m, x, y):
    m.total_ops += abs(int(m.weight.shape[0]) * int(y.numel()))


def count_avgpool(m, x, y):
    m.total_ops += int(y.numel())


def count_adap_avgpool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    kernel_ops = np.prod(kernel) + 1  # the adds of one window, then one division
    m.total_ops += abs(int(kernel_ops) * int(y.numel()))


def count_zero_ops(m, x, y):
    m.total_ops += 0


def count_parameters(m, x, y):
    m.total_params[0] = abs(sum(int(np.prod(p.shape)) for p in m.parameters()))


def count_io_info(m, x, y):
    from ..tensor import to_tensor
    m.register_buffer("input_shape", to_tensor(x[0].shape))
    m.register_buffer("output_shape", to_tensor((y[0] if isinstance(y, (list, tuple)) else y).shape))


def _register_hooks():
    from .. import nn
    rules = [(count_convNd, ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]),
             (count_bn, ["BatchNorm2D", "BatchNorm"]),
             (count_zero_ops, ["ReLU", "ReLU6", "Dropout"]),
             (count_leaky_relu, ["LeakyReLU"]),
             (count_linear, ["Linear"]),
             (count_avgpool, ["AvgPool1D", "AvgPool2D", "AvgPool3D"]),
             (count_adap_avgpool, ["AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D"])]
    return {getattr(nn, name): fn for fn, names in rules for name in names if hasattr(nn, name)}


def _type_text(cls):
    """``str(cls)`` as Paddle prints it: our own layers under their ``paddle.`` module path."""
    module = cls.__module__
    if module == "torchpaddle" or module.startswith("torchpaddle."):
        module = "paddle" + module[len("torchpaddle"):]
    return f"<class '{module}.{cls.__qualname__}'>"


_HOOK_BUFFERS = ("total_ops", "total_params", "input_shape", "output_shape")


def _as_int(value):
    # NOTE: Paddle calls int() on these shape-[1] tensors, which NumPy >= 2.3 refuses; read the element instead.
    return int(np.asarray(value.numpy() if hasattr(value, "numpy") else value).reshape(-1)[0])


def _is_leaf(m):
    return next(iter(m.children()), None) is None


def _counted(m):
    return set(_HOOK_BUFFERS).issubset(m._buffers.keys())


def _drop_hook_buffers(model):
    # Paddle leaves these buffers on the root layer, on leaves the forward skipped and after a failed forward
    # (where they then show up in state_dict); we always remove them.
    for m in model.sublayers(include_self=True):
        for name in _HOOK_BUFFERS:
            m._buffers.pop(name, None)
            m._non_persistable_buffer_names_set.discard(name)


def dynamic_flops(model, inputs, custom_ops=None, print_detail=False):
    """Run ``model(inputs)`` with counting hooks on every leaf layer; print the totals; return the FLOPs."""
    from ..autograd import no_grad
    from ..tensor import zeros
    custom_ops = {} if custom_ops is None else custom_ops
    rules = _register_hooks()
    handles, seen_types = [], set()

    def add_hooks(m):
        if not _is_leaf(m):
            return
        m.register_buffer("total_ops", zeros([1], dtype="int64"))
        m.register_buffer("total_params", zeros([1], dtype="int64"))
        m_type = type(m)
        fn = None
        if m_type in custom_ops:
            fn = custom_ops[m_type]
            if m_type not in seen_types:
                print(f"Customize Function has been applied to {_type_text(m_type)}")
        elif m_type in rules:
            fn = rules[m_type]
            if m_type not in seen_types:
                print(f"{_type_text(m_type)}'s flops has been counted")
        elif m_type not in seen_types:
            print(f"Cannot find suitable count function for {_type_text(m_type)}. Treat it as zero FLOPs.")
        if fn is not None:
            handles.append(m.register_forward_post_hook(fn))
        handles.append(m.register_forward_post_hook(count_parameters))
        handles.append(m.register_forward_post_hook(count_io_info))
        seen_types.add(m_type)

    training = model.training
    model.eval()
    try:
        model.apply(add_hooks)
        with no_grad():
            model(inputs)
    except BaseException:
        _drop_hook_buffers(model)
        raise
    finally:
        if training:
            model.train()
        for handle in handles:
            handle.remove()

    # NOTE: as in Paddle, only sublayers count: a network that is itself a leaf layer totals 0.
    total_ops = total_params = 0
    table = Table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"])
    for m in model.sublayers():
        if _is_leaf(m) and _counted(m):
            ops, n_params = _as_int(m.total_ops), _as_int(m.total_params)
            total_ops += ops
            total_params += n_params
            table.add_row([m.full_name(), m.input_shape.numpy().tolist(), m.output_shape.numpy().tolist(),
                           n_params, ops])
    _drop_hook_buffers(model)
    if print_detail:
        table.print_table()
    print(f"Total Flops: {total_ops}     Total Params: {total_params}")
    return total_ops


def static_flops(program, print_detail=False):
    """FLOPs of a static Program's conv/pool/mul/matmul/batch_norm/elementwise ops (Paddle's static rules)."""
    table = Table(["OP Type", "Param name", "Flops"])

    def var(name):
        for block in program.blocks:
            if block.has_var(name):
                return block.var(name)
        return None

    def inputs(op, slot):
        return [var(n) for n in op.input(slot)] if slot in op.input_names else []

    def outputs(op, slot):
        return [var(n) for n in op.output(slot)]

    total = 0
    for block in program.blocks:
        for op in block.ops:
            param_name, op_flops = "", 0
            if op.type in ("conv2d", "depthwise_conv2d"):
                filt = inputs(op, "Filter")[0]
                bias_ops = 1 if inputs(op, "Bias") else 0
                op_flops = abs(np.prod(outputs(op, "Output")[0].shape[1:]) * (np.prod(filt.shape[1:]) + bias_ops))
                param_name = filt.name
            elif op.type == "pool2d":
                in_shape, out_shape = inputs(op, "X")[0].shape, outputs(op, "Out")[0].shape
                kernel = np.array(in_shape[2:]) // np.array(out_shape[2:])
                op_flops = abs((np.prod(kernel) + 1) * np.prod(out_shape[1:]))
            elif op.type in ("mul", "matmul"):
                y = inputs(op, "Y")[0]
                op_flops = abs(y.shape[0] * np.prod(outputs(op, "Out")[0].shape[1:]))
                param_name = y.name
            elif op.type == "batch_norm":
                op_flops = abs(2 * np.prod(outputs(op, "Y")[0].shape[1:]))
            elif op.type.startswith("element"):
                op_flops = abs(np.prod(inputs(op, "X")[0].shape[1:]))
            total += op_flops
            if op_flops != 0:
                table.add_row([op.type, param_name, op_flops])
    if print_detail:
        table.print_table()
    return total


def flops(net, input_size, custom_ops=None, print_detail=False):
    """FLOPs of ``net`` (a Layer, run once on ``randn(input_size)``, or a static Program); prints a summary."""
    from ..nn import Layer
    from ..tensor import randn
    if isinstance(net, Layer):
        forward = net.forward
        # A to_static-decorated forward: count the original dygraph function.
        original = getattr(forward, "dygraph_function", None)
        if callable(original):
            net.forward = original.__get__(net) if not hasattr(original, "__self__") else original
        return dynamic_flops(net, inputs=randn(input_size), custom_ops=custom_ops, print_detail=print_detail)
    try:
        from ..static import Program
    except ImportError:
        Program = None
    if Program is not None and isinstance(net, Program):
        return static_flops(net, print_detail=print_detail)
    warnings.warn("Your model must be an instance of paddle.nn.Layer or paddle.static.Program.")
    return -1
