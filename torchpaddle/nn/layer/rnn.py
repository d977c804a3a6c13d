"""Recurrent layers: cells (SimpleRNNCell, LSTMCell, GRUCell), the RNN/BiRNN wrappers that unroll a cell, and
the multi-layer SimpleRNN / LSTM / GRU networks (the fused ``rnn`` op, torch's RNN kernels).

Parameter names and layouts are Paddle's: a cell has ``weight_ih`` [gates*hidden, input], ``weight_hh``
[gates*hidden, hidden], ``bias_ih``, ``bias_hh``; networks also expose them as ``weight_ih_l{k}[_reverse]``
so a state_dict saved by Paddle (which holds both spellings) loads unchanged.
"""
import math

import numpy as np

from ... import ops as _ops
from ...framework import dtype as _dtype
from ...framework.tensor import Tensor
from .. import functional as F
from .. import initializer as I
from ... import tensor as _P
from .container import LayerList
from .layers import Layer
from ...utils.nest import _describe, flatten as _flatten, map_structure as _map, pack_sequence_as as _pack_as

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "SimpleRNN", "LSTM", "GRU"]


def _shape_leaf(x):
    # In a state_shape structure a list/tuple of ints is one shape, not a sequence.
    return isinstance(x, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in x)


def _map_shapes(fn, shapes, dtypes):
    if _shape_leaf(shapes):
        return fn(shapes, dtypes)
    if isinstance(shapes, (list, tuple)):
        if not isinstance(dtypes, (list, tuple)):
            dtypes = [dtypes] * len(shapes)
        items = [_map_shapes(fn, s, d) for s, d in zip(shapes, dtypes)]
        if isinstance(shapes, tuple) and hasattr(shapes, "_fields"):
            return type(shapes)(*items)
        return type(shapes)(items)
    raise TypeError(f"get_initial_states: a shape must be a list/tuple of ints, got {shapes!r}")


# -- unrolling a cell -----------------------------------------------------------------------------------------
def _time_mask(sequence_length, time_steps, name):
    """[time_steps, batch] bool: step t of sequence b is valid."""
    if not isinstance(sequence_length, Tensor):
        raise TypeError(f"{name}: sequence_length must be a Tensor, got {type(sequence_length).__name__}")
    if sequence_length.dtype.name not in ("int32", "int64"):
        raise ValueError(f"{name}: sequence_length must be int32 or int64, got {sequence_length.dtype.name}")
    steps = _P.arange(time_steps, dtype=sequence_length.dtype)
    return _P.less_than(_P.unsqueeze(steps, 1), _P.unsqueeze(sequence_length, 0))


def _keep_where(mask, old, new):
    # Paddle blends new*mask + old*(1-mask); a select gives the same values and gradients.
    mask = _P.reshape(mask, [-1] + [1] * (new.ndim - 1))
    return _P.where(mask, new, old)


def _unroll(cell, inputs, initial_states=None, sequence_length=None, time_major=False, is_reverse=False,
            **kwargs):
    """Run ``cell`` over the time axis; returns (outputs, final_states) like paddle.nn.layer.rnn.rnn."""
    flat = _flatten(inputs)
    time_axis = 0 if time_major else 1
    for x in flat:
        if not isinstance(x, Tensor):
            raise TypeError(f"RNN: inputs must be Tensors, got {type(x).__name__}")
        if x.ndim < 2:
            raise ValueError(f"RNN: inputs must be at least 2-D [batch, time, ...], got shape {x.shape}")
    time_steps = flat[0].shape[time_axis]
    if time_steps == 0:
        raise ValueError(f"RNN: inputs have no time steps (shape {flat[0].shape}, time axis {time_axis})")
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs, batch_dim_idx=1 if time_major else 0)
    steps = [_P.unstack(x, axis=time_axis) for x in flat]
    mask = None
    if sequence_length is not None:
        mask = _P.unstack(_time_mask(sequence_length, time_steps, "RNN"), axis=0)
    order = range(time_steps - 1, -1, -1) if is_reverse else range(time_steps)
    states = initial_states
    collected = out_structure = None
    for i in order:
        step_inputs = _pack_as(inputs, [s[i] for s in steps])
        step_outputs, new_states = cell(step_inputs, states, **kwargs)
        if mask is not None:
            new_states = _map(lambda old, new: _keep_where(mask[i], old, new), states, new_states)
        states = new_states
        if collected is None:
            out_structure = step_outputs
            collected = [[y] for y in _flatten(step_outputs)]
        else:
            for acc, y in zip(collected, _flatten(step_outputs)):
                acc.append(y)
    if is_reverse:
        collected = [acc[::-1] for acc in collected]
    outputs = _pack_as(out_structure, [_P.stack(acc, axis=time_axis) for acc in collected])
    return outputs, states


def _birnn(cell_fw, cell_bw, inputs, initial_states=None, sequence_length=None, time_major=False, **kwargs):
    if initial_states is None:
        # NOTE: Paddle builds the backward states with cell_fw; cell_bw is right when the sizes differ.
        batch_dim = 1 if time_major else 0
        states_fw = cell_fw.get_initial_states(batch_ref=inputs, batch_dim_idx=batch_dim)
        states_bw = cell_bw.get_initial_states(batch_ref=inputs, batch_dim_idx=batch_dim)
    else:
        states_fw, states_bw = initial_states
    out_fw, states_fw = _unroll(cell_fw, inputs, states_fw, sequence_length, time_major, False, **kwargs)
    out_bw, states_bw = _unroll(cell_bw, inputs, states_bw, sequence_length, time_major, True, **kwargs)
    outputs = _map(lambda a, b: _P.concat([a, b], axis=-1), out_fw, out_bw)
    return outputs, (states_fw, states_bw)


# Paddle's module-level functional forms (paddle.nn.layer.rnn.rnn / birnn).
rnn = _unroll
birnn = _birnn


def split_states(states, bidirectional=False, state_components=1):
    """[L*D, N, C] state tensor(s) -> per-layer (and per-direction) cell states."""
    if state_components == 1:
        states = _P.unstack(states)
        return states if not bidirectional else list(zip(states[::2], states[1::2]))
    if len(states) != state_components:
        raise ValueError(f"split_states: expected {state_components} state tensors, got {len(states)}")
    per_layer = list(zip(*[_P.unstack(s) for s in states]))
    return per_layer if not bidirectional else list(zip(per_layer[::2], per_layer[1::2]))


def concat_states(states, bidirectional=False, state_components=1):
    """Inverse of split_states: per-cell states -> [L*D, N, C] tensor(s)."""
    flat = _flatten(states)
    if state_components == 1:
        return _P.stack(flat)
    return tuple(_P.stack(flat[i::state_components]) for i in range(state_components))


def _batch_full(shape, at, batch_ref, batch_dim_idx, value, dtype):
    """``full(shape)`` whose dim ``at`` is ``batch_ref``'s batch dim; a static batch of unknown size (-1) is
    read at run time by fill_constant_batch_size_like, as Paddle's static RNNs do."""
    batch = batch_ref.shape[batch_dim_idx]
    if batch >= 0:
        shape = list(shape)
        shape[at] = batch
        return _P.full(shape, value, dtype=dtype)
    return _ops.fill_constant_batch_size_like(batch_ref, shape=list(shape), value=float(value),
                                              dtype=_dtype.convert_dtype(dtype).proto, input_dim_idx=batch_dim_idx,
                                              output_dim_idx=at)


# -- cells ----------------------------------------------------------------------------------------------------
class RNNCellBase(Layer):
    """Base class of RNN cells: ``forward(inputs, states) -> (outputs, new_states)``."""

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0, batch_dim_idx=0):
        """States filled with ``init_value``; a leading -1 (batch) is added to shapes that lack it and set from
        ``batch_ref.shape[batch_dim_idx]``."""
        batch_ref = _flatten(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = _dtype.get_default_dtype()
        flat_dtypes = _flatten(dtype)
        if len(flat_dtypes) == 1:
            dtype = flat_dtypes[0]

        def fill(s, d):
            s = list(s) if s[0] == -1 else [-1] + list(s)
            return _batch_full(s, 0, batch_ref, batch_dim_idx, init_value, d)
        return _map_shapes(fill, shapes, dtype)

    @property
    def state_shape(self):
        raise NotImplementedError("Please add implementation for `state_shape` in the used cell.")

    @property
    def state_dtype(self):
        raise NotImplementedError("Please add implementation for `state_dtype` in the used cell.")

    def _make_weights(self, gates, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                      bias_hh_attr, hh_cols=None):
        """Paddle's four parameters; an attr of False still creates the tensor (ones / zeros, frozen)."""
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, but now equals to "
                             f"{hidden_size}")
        std = 1.0 / math.sqrt(hidden_size)
        specs = [("weight_ih", (gates * hidden_size, input_size), weight_ih_attr, False, 1.0),
                 ("weight_hh", (gates * hidden_size, hh_cols or hidden_size), weight_hh_attr, False, 1.0),
                 ("bias_ih", (gates * hidden_size,), bias_ih_attr, True, 0.0),
                 ("bias_hh", (gates * hidden_size,), bias_hh_attr, True, 0.0)]
        for name, shape, attr, is_bias, frozen_value in specs:
            if attr is not False:
                param = self.create_parameter(shape, attr, is_bias=is_bias, default_initializer=I.Uniform(-std, std))
            else:
                param = self.create_parameter(shape, None, is_bias=is_bias,
                                              default_initializer=I.Constant(frozen_value))
                param.stop_gradient = True
            setattr(self, name, param)
        return std

    def _gates(self, inputs, states):
        x = _P.matmul(inputs, self.weight_ih, transpose_y=True)
        if self.bias_ih is not None:
            x = x + self.bias_ih
        h = _P.matmul(states, self.weight_hh, transpose_y=True)
        if self.bias_hh is not None:
            h = h + self.bias_hh
        return x, h


class SimpleRNNCell(RNNCellBase):
    """Elman cell: h = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act in {tanh, relu}."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(1, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.input_size = input_size
        self.hidden_size = hidden_size
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get {activation}")
        self.activation = activation
        self._activation_fn = _P.tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        x, h = self._gates(inputs, states)
        h = self._activation_fn(x + h)
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.activation != "tanh":
            s += f", activation={self.activation}"
        return s


class LSTMCell(RNNCellBase):
    """LSTM cell, gates i, f, g (cell candidate), o; with proj_size > 0, h is projected by ``weight_ho``."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if hidden_size <= 0:
            raise ValueError(f"hidden_size of {type(self).__name__} must be greater than 0, but now equals to "
                             f"{hidden_size}")
        if proj_size < 0:
            raise ValueError(f"proj_size of {type(self).__name__} must be greater than 0, but now equals to "
                             f"{proj_size}")
        if proj_size >= hidden_size:
            raise ValueError("proj_size must be smaller than hidden_size")
        std = self._make_weights(4, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                                 bias_hh_attr, hh_cols=proj_size or None)
        self.proj_size = proj_size
        if proj_size > 0:
            # NOTE: Paddle creates the projection with weight_hh_attr.
            self.weight_ho = self.create_parameter((hidden_size, proj_size), weight_hh_attr,
                                                   default_initializer=I.Uniform(-std, std))
        self.hidden_size = hidden_size
        self.input_size = input_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        if isinstance(states, Tensor) or len(states) != 2:
            raise ValueError("LSTMCell: states must be a list/tuple of two Tensors (h, c), got "
                             f"{_describe(states)}")
        pre_hidden, pre_cell = states
        x, h = self._gates(inputs, pre_hidden)
        i, f, g, o = _P.split(x + h, num_or_sections=4, axis=-1)
        c = F.sigmoid(f) * pre_cell + F.sigmoid(i) * _P.tanh(g)
        h = F.sigmoid(o) * _P.tanh(c)
        if self.proj_size > 0:
            h = _P.matmul(h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self):
        # NOTE: Paddle returns ((hidden,), (proj or hidden,)), which breaks default states when proj_size > 0;
        # h is [proj or hidden] and c is [hidden].
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class GRUCell(RNNCellBase):
    """GRU cell, gates r, z, c; the reset gate multiplies the hidden projection after its bias (like cuDNN)."""

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None,
                 bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(3, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.hidden_size = hidden_size
        self.input_size = input_size

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        pre_hidden = states
        x, h = self._gates(inputs, pre_hidden)
        x_r, x_z, x_c = _P.split(x, num_or_sections=3, axis=1)
        h_r, h_z, h_c = _P.split(h, num_or_sections=3, axis=1)
        r = F.sigmoid(x_r + h_r)
        z = F.sigmoid(x_z + h_z)
        c = _P.tanh(x_c + r * h_c)
        h = (pre_hidden - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


# -- wrappers -------------------------------------------------------------------------------------------------
class RNN(Layer):
    """Unrolls ``cell`` over the time axis of its inputs."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer) and not callable(cell):
            raise TypeError(f"RNN: cell must be an RNNCellBase, got {type(cell).__name__}")
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return _unroll(self.cell, inputs, initial_states=initial_states, sequence_length=sequence_length,
                       time_major=self.time_major, is_reverse=self.is_reverse, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over the same inputs; outputs concatenated on the last axis."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not equals that of backward "
                             f"cell({cell_bw.input_size})")
        self.time_major = time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if isinstance(initial_states, (list, tuple)) and len(initial_states) != 2:
            raise ValueError(f"BiRNN: initial_states must hold 2 entries (forward, backward), got "
                             f"{len(initial_states)}")
        return _birnn(self.cell_fw, self.cell_bw, inputs, initial_states, sequence_length, self.time_major,
                      **kwargs)


# -- networks -------------------------------------------------------------------------------------------------
_BIDIRECTIONAL = ("bidirectional", "bidirect")


class RNNBase(LayerList):
    """Shared body of SimpleRNN, LSTM and GRU: a LayerList of RNN / BiRNN layers, one per layer."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward", time_major=False,
                 dropout=0.0, weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 proj_size=0):
        super().__init__()
        if direction not in ("forward",) + _BIDIRECTIONAL:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), received direction = "
                             f"{direction}")
        if not isinstance(num_layers, int) or num_layers < 1:
            raise ValueError(f"{type(self).__name__}: num_layers must be a positive int, got {num_layers!r}")
        if not 0 <= dropout <= 1:
            raise ValueError(f"{type(self).__name__}: dropout must be in [0, 1], got {dropout}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.dropout = dropout
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.time_major = time_major
        self.num_layers = num_layers
        self.state_components = 2 if mode == "LSTM" else 1
        self.proj_size = proj_size
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr,
                  "bias_ih_attr": bias_ih_attr, "bias_hh_attr": bias_hh_attr}
        if mode == "LSTM":
            cell_cls = LSTMCell
            kwargs["proj_size"] = proj_size
        elif mode == "GRU":
            cell_cls = GRUCell
        else:
            cell_cls = SimpleRNNCell
            kwargs["activation"] = "relu" if mode == "RNN_RELU" else "tanh"
        if proj_size > 0 and mode != "LSTM":
            raise ValueError(f"{type(self).__name__}: proj_size is only supported by LSTM")
        layer_input = proj_size or hidden_size
        for i in range(num_layers):
            size = input_size if i == 0 else layer_input * self.num_directions
            if self.num_directions == 1:
                self.append(RNN(cell_cls(size, hidden_size, **kwargs), False, time_major))
            else:
                self.append(BiRNN(cell_cls(size, hidden_size, **kwargs), cell_cls(size, hidden_size, **kwargs),
                                  time_major))
        cell_params = self.parameters()
        # Every cell holds exactly 4 tensors unless it projects (weight_ho): then the cell loop runs instead.
        self.could_use_cudnn = len(cell_params) == num_layers * 4 * self.num_directions
        # Paddle pairs these names with the flat parameter list; with bias_ih_attr=False the names shift
        # against the tensors, and a state_dict saved by Paddle carries the shifted pairing, so keep it.
        names = []
        for layer in range(num_layers):
            for d in range(self.num_directions):
                suffix = "_reverse" if d == 1 else ""
                names += [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                if bias_ih_attr is not False:
                    names.append(f"bias_ih_l{layer}{suffix}")
                if bias_hh_attr is not False:
                    names.append(f"bias_hh_l{layer}{suffix}")
        for name, param in zip(names, cell_params):
            setattr(self, name, param)
        self.flatten_parameters()

    def flatten_parameters(self):
        """Collects the cells' tensors in the fused op's order (all weights, then all biases); torch needs no
        contiguous copy, so the tensors stay where they are."""
        if not self.could_use_cudnn:
            return
        weights, biases = [], []
        for layer in self:
            for cell in ([layer.cell] if self.num_directions == 1 else [layer.cell_fw, layer.cell_bw]):
                weights += [cell.weight_ih, cell.weight_hh]
                biases += [cell.bias_ih, cell.bias_hh]
        self._all_weights = weights + biases

    def _fused(self, inputs, initial_states, sequence_length):
        if not self.time_major:
            inputs = _P.transpose(inputs, [1, 0, 2])
        out, _, _, state = _ops.rnn(inputs, initial_states, self._all_weights, sequence_length,
                                    dropout_prob=float(self.dropout), is_bidirec=self.num_directions == 2,
                                    input_size=self.input_size, hidden_size=self.hidden_size,
                                    num_layers=self.num_layers, mode=self.mode, seed=0, is_test=not self.training)
        if not self.time_major:
            out = _P.transpose(out, [1, 0, 2])
        return out, tuple(state) if len(state) > 1 else state[0]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        name = type(self).__name__
        if not isinstance(inputs, Tensor):
            raise TypeError(f"{name}: inputs must be a Tensor, got {type(inputs).__name__}")
        if inputs.ndim != 3:
            layout = "[time, batch, input]" if self.time_major else "[batch, time, input]"
            raise ValueError(f"{name}: inputs must be 3-D {layout}, got shape {inputs.shape}")
        batch_index = 1 if self.time_major else 0
        if initial_states is None:
            dims = ([self.proj_size or self.hidden_size], [self.hidden_size])
            shape = [self.num_layers * self.num_directions, -1]
            initial_states = tuple(_batch_full(shape + dims[i], 1, inputs, batch_index, 0, inputs.dtype)
                                   for i in range(self.state_components))
        elif isinstance(initial_states, Tensor):
            initial_states = [initial_states]
        elif not isinstance(initial_states, (list, tuple)):
            raise TypeError(f"{name}: initial_states must be a Tensor or a list/tuple of Tensors, got "
                            f"{type(initial_states).__name__}")
        if self.could_use_cudnn:
            return self._fused(inputs, initial_states, sequence_length)

        if len(initial_states) != self.state_components:
            raise ValueError(f"{name}: initial_states must hold {self.state_components} tensor(s), got "
                             f"{len(initial_states)}")
        states = split_states(initial_states if self.state_components > 1 else initial_states[0],
                              self.num_directions == 2, self.state_components)
        final_states = []
        for i, rnn_layer in enumerate(self):
            if i > 0:
                inputs = F.dropout(inputs, self.dropout, training=self.training, mode="upscale_in_train")
            outputs, final_state = rnn_layer(inputs, states[i], sequence_length)
            final_states.append(final_state)
            inputs = outputs
        return outputs, concat_states(final_states, self.num_directions == 2, self.state_components)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.time_major is not False:
            s += f", time_major={self.time_major}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN (tanh or relu)."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 activation="tanh", weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None,
                 name=None):
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}'")
        self.activation = activation
        super().__init__("RNN_TANH" if activation == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         direction, time_major, dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                         bias_hh_attr, 0)


class LSTM(RNNBase):
    """Multi-layer LSTM; states are (h, c), each [num_layers * num_directions, batch, size]."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, proj_size=0,
                 name=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size)


class GRU(RNNBase):
    """Multi-layer GRU."""

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward", time_major=False, dropout=0.0,
                 weight_ih_attr=None, weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, 0)
