"""TranslatedLayer: a Layer running a program loaded by ``paddle.jit.load``.

Its parameters and buffers are eager tensors (``param_0``, ``param_1``... and ``buffer_0``... in the order of
the persistable variables' names, as Paddle names them); ``forward`` runs the program's plan on the inputs and
those tensors with autograd recording, so a loaded model can be fine-tuned. In ``eval()`` mode (the default
after loading) the program runs as saved (``is_test`` set); ``train()`` runs a copy with ``is_test`` off.
NOTE: Paddle renames the loaded variables (``linear_0.w_0`` -> ``linear_0.w_1``); here they keep their names.
"""
import numpy as np
import torch

from ..framework.mode import STATE as _MODE
from ..framework.parameter import Parameter
from ..framework.place import current_torch_device
from ..framework.program import Block
from ..framework.tensor import Tensor
from ..nn import Layer
from ..utils import unique_name
from .trace import run_plan

__all__ = ["TranslatedLayer"]


class TranslatedLayer(Layer):
    """The Layer ``paddle.jit.load`` returns."""

    def __init__(self, program, feed_names, fetch_names, persistables):
        super().__init__()
        self._infer_program = program
        self._train_program = None
        self._feed_names = list(feed_names)
        self._fetch_names = list(fetch_names)
        self._plans = {}
        self._persistable_var_name_dict = {}
        counts = {"param": 0, "buffer": 0}
        for name in sorted(persistables):
            value = persistables[name]
            kind = "param" if isinstance(value, Parameter) else "buffer"
            attr = f"{kind}_{counts[kind]}"
            counts[kind] += 1
            self._persistable_var_name_dict[name] = attr
            if kind == "param":
                self.add_parameter(attr, value)
            else:
                self.register_buffer(attr, value)
        self.eval()

    def program(self, method_name="forward"):
        """The loaded (inference) program of ``method_name`` (only ``forward``)."""
        if method_name != "forward":
            raise ValueError(f"TranslatedLayer.program: the loaded model has no method {method_name!r} (only "
                             "'forward')")
        return self._infer_program

    def _program_for_mode(self):
        if self.training:
            if self._train_program is None:
                train = self._infer_program.clone()
                for block in train.blocks:
                    for op in block.ops:
                        if "is_test" in op.attrs:
                            op.attrs["is_test"] = False
                        # NOTE: a Layer traced in eval mode here writes use_global_stats=True (Paddle writes
                        # False); training takes batch statistics, as a Paddle-saved model does
                        if op.type == "batch_norm":
                            op.attrs["use_global_stats"] = False
                train._invalidate()
                self._train_program = train
            return self._train_program
        return self._infer_program

    def _plan(self, program):
        plan = self._plans.get(id(program))
        if plan is None:
            from ..static.executor import Plan
            plan = self._plans[id(program)] = Plan(program, self._feed_names, self._fetch_names)
        return plan

    def _tensor_of(self, var_name):
        attr = self._persistable_var_name_dict[var_name]
        tensor = self._parameters.get(attr)
        return self._buffers.get(attr) if tensor is None else tensor

    def forward(self, *inputs):
        if len(inputs) != len(self._feed_names):
            raise ValueError(f"TranslatedLayer: the loaded model takes {len(self._feed_names)} inputs "
                             f"({self._feed_names}), got {len(inputs)}")
        if _MODE.static:
            return self._append_to_program(inputs)
        program = self._program_for_mode()
        block = program.global_block()
        env = {}
        for name, value in zip(self._feed_names, inputs):
            var = block.var(name)
            if isinstance(value, np.ndarray):
                value = torch.from_numpy(np.ascontiguousarray(value)).to(current_torch_device())  # as to_tensor
            elif isinstance(value, Tensor):
                value = value._t
            else:
                raise TypeError(f"TranslatedLayer: the type of input {name!r} must be a numpy array or a Tensor, "
                                f"but received {type(value).__name__}")
            if value.dtype != var.dtype.torch:
                raise ValueError(f"TranslatedLayer: input {name!r} must have dtype {var.dtype.name}, got "
                                 f"{value.dtype}")
            # NOTE: as in Paddle, the feed's saved shape is not enforced: a program traced for one batch size
            # runs at another wherever its ops allow (the ops raise otherwise)
            env[name] = value
        for var_name in self._persistable_var_name_dict:
            env[var_name] = self._tensor_of(var_name)._t
        outs = run_plan(self._plan(program), env)
        return outs[0] if len(outs) == 1 else outs

    def _append_to_program(self, inputs):
        """In static mode (tracing for jit.save, or building a program): the loaded program's ops appended to
        the current block, reading ``inputs`` and this layer's tensors (persistable variables under
        paddle.jit's tracing, constants otherwise), so a loaded model can be saved again."""
        from ..framework.program import default_main_program
        from ..static.append import as_variable
        source = self._program_for_mode().global_block()
        block = default_main_program().current_block()
        names = {}
        for name, value in zip(self._feed_names, inputs):
            names[name] = as_variable(value, "TranslatedLayer", name).name
        for var_name in self._persistable_var_name_dict:
            names[var_name] = as_variable(self._tensor_of(var_name), "TranslatedLayer", var_name).name
        for op in source.ops:
            if op.type in ("feed", "fetch"):
                continue
            if any(isinstance(v, Block) or (isinstance(v, list) and any(isinstance(b, Block) for b in v))
                   for v in op.attrs.values()):
                raise NotImplementedError(f"TranslatedLayer: appending op {op.type}, which holds sub-blocks, to "
                                          "another program is not supported")
            for n in op.output_arg_names:
                if n not in names:
                    var = source.var(n)
                    names[n] = block.create_var(name=unique_name.generate(n), shape=var.desc_shape,
                                                dtype=var.dtype, stop_gradient=var.stop_gradient).name
            block.append_op(op.type, {k: [names[n] for n in v] for k, v in op.inputs.items()},
                            {k: [names[n] for n in v] for k, v in op.outputs.items()}, dict(op.attrs))
        outs = [block.var(names[n]) for n in self._fetch_names]
        return outs[0] if len(outs) == 1 else outs
