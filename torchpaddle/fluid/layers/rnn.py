"""fluid.layers: rnn. The decoding API that Paddle 2.x kept (RNNCell, Decoder, BeamSearchDecoder,
dynamic_decode, rnn) is paddle.nn's; the LoD recurrent layers (dynamic_lstm/gru/lstmp, beam_search,
beam_search_decode) come with LoD support; the rest is not supported yet and says so."""
from ...nn import RNN as _RNN
from ...nn import RNNCellBase as RNNCell
from ... import ops as _ops
from ... import tensor as _T
from ...nn.decode import BeamSearchDecoder, Decoder, dynamic_decode
from ...static.nn.common import layer_name as _layer_name
from ...static.nn.common import param as _param
from ._helper import check_dtype, hide, needs_lod, not_yet, tmp_names

__all__ = ["RNNCell", "Decoder", "BeamSearchDecoder", "dynamic_decode", "rnn", "GRUCell", "LSTMCell", "lstm",
           "gru_unit", "lstm_unit", "BasicDecoder", "DecodeHelper", "TrainingHelper", "GreedyEmbeddingHelper",
           "SampleEmbeddingHelper", "dynamic_lstm", "dynamic_lstmp", "dynamic_gru", "beam_search",
           "beam_search_decode"]


def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False, is_reverse=False, **kwargs):
    """Unroll ``cell`` over the time steps of ``inputs``; returns (outputs, final_states)."""
    return _RNN(cell, is_reverse=is_reverse, time_major=time_major)(inputs, initial_states, sequence_length,
                                                                    **kwargs)


_FLOATS = ("float32", "float64")
_ACTIVATIONS = ("sigmoid", "tanh", "relu", "identity")


def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None, bias_attr=None, name=None):
    """One LSTM step: fc([x_t, h_prev]) -> 4 gate blocks (i, f, o, candidate); c = f * c_prev + i * tanh(g),
    h = o * tanh(c), with ``forget_bias`` added to f's input. Returns (h, c)."""
    for what, v in (("x_t", x_t), ("hidden_t_prev", hidden_t_prev), ("cell_t_prev", cell_t_prev)):
        check_dtype(v, "lstm_unit", what, _FLOATS)
    if len(x_t.shape) != 2 or len(hidden_t_prev.shape) != 2 or len(cell_t_prev.shape) != 2:
        raise ValueError("lstm_unit: x_t, hidden_t_prev and cell_t_prev must be 2-D")
    size = cell_t_prev.shape[1]
    from .nn import fc
    projected = fc(_T.concat([x_t, hidden_t_prev], axis=1), 4 * size, param_attr=param_attr, bias_attr=bias_attr)
    prefix = name or _layer_name("lstm_unit")
    with tmp_names(prefix):
        i, f, o, g = [hide(v) for v in _T.split(projected, 4, axis=1)]
        f = hide(_ops.sigmoid(hide(_ops.scale(f, None, scale=1.0, bias=float(forget_bias), bias_after_scale=True))))
        c = hide(_ops.sigmoid(i)) * hide(_ops.tanh(g))
        c = f * cell_t_prev + c
        h = hide(_ops.sigmoid(o)) * hide(_ops.tanh(c))
    return h, c


def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh", gate_activation="sigmoid",
             origin_mode=False):
    """One GRU step on the projected input [N, 3D] (size = 3D) and hidden [N, D], with weight ``gru_unit_N.w_0``
    [D, 3D] (its memory holds the [D, 2D] update/reset weight, then the [D, D] candidate weight) and bias
    [1, 3D]. Returns (new hidden, reset hidden, gates).
    NOTE: Paddle 1.x validates ``activation``/``gate_activation`` but always applies tanh and sigmoid; so does
    this, to give legacy code its results."""
    check_dtype(input, "gru_unit", "input", _FLOATS)
    check_dtype(hidden, "gru_unit", "hidden", _FLOATS)
    if activation not in _ACTIVATIONS or gate_activation not in _ACTIVATIONS:
        raise ValueError(f"gru_unit: activation and gate_activation must be one of {_ACTIVATIONS}")
    d = size // 3
    if size % 3 or hidden.shape[1] != d or input.shape[1] != size:
        raise ValueError(f"gru_unit: size must be 3 * hidden size with input [N, size]; got size={size}, input "
                         f"{list(input.shape)}, hidden {list(hidden.shape)}")
    prefix = _layer_name("gru_unit")
    with tmp_names(prefix):
        weight = _param("gru_unit", prefix, [d, 3 * d], input.dtype, param_attr)
        bias = _param("gru_unit", prefix, [1, 3 * d], input.dtype, bias_attr, is_bias=True)
        flat = hide(_T.reshape(weight, [-1]))
        w_gates = hide(_T.reshape(hide(_T.slice(flat, [0], [0], [2 * d * d])), [d, 2 * d]))
        w_state = hide(_T.reshape(hide(_T.slice(flat, [0], [2 * d * d], [3 * d * d])), [d, d]))
        x = input if bias is None else hide(input + bias)
        x_gates, x_state = [hide(v) for v in _T.split(x, [2 * d, d], axis=1)]
        gates = hide(_ops.sigmoid(hide(x_gates + hide(_T.matmul(hidden, w_gates)))))
        update, reset = [hide(v) for v in _T.split(gates, 2, axis=1)]
        reset_hidden = reset * hidden
        candidate = hide(_ops.tanh(hide(x_state + hide(_T.matmul(reset_hidden, w_state)))))
        if origin_mode:
            new_hidden = update * hidden + hide((1.0 - update) * candidate)
        else:
            new_hidden = hide((1.0 - update) * hidden) + update * candidate
        gate = _T.concat([update, reset, candidate], axis=1)
    return new_hidden, reset_hidden, gate


# fluid's GRUCell/LSTMCell infer the input size on first call and lay their parameters out differently from
# paddle.nn's, so they are not mapped onto them
for _name in ("GRUCell", "LSTMCell", "lstm", "BasicDecoder", "DecodeHelper",
              "TrainingHelper", "GreedyEmbeddingHelper", "SampleEmbeddingHelper"):
    globals()[_name] = not_yet(_name)
for _name in ("dynamic_lstm", "dynamic_lstmp", "dynamic_gru", "beam_search", "beam_search_decode"):
    globals()[_name] = needs_lod(_name)
