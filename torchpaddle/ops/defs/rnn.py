"""The fused multi-layer recurrent op (``rnn``) behind nn.SimpleRNN / nn.LSTM / nn.GRU.

Paddle's gate layouts are torch's (LSTM i, f, g, o; GRU r, z, n with the reset gate applied to the hidden
projection after its bias), so the kernel is torch's own fused RNN with Paddle's weight list reordered.
"""
import torch
from torch.nn.utils import rnn as _packing

from ..registry import op

# torch entry points by Paddle's `mode` attr: (padded, packed) call forms share one function.
_FUNCTIONS = {"LSTM": torch._VF.lstm, "GRU": torch._VF.gru, "RNN_TANH": torch._VF.rnn_tanh,
              "RNN_RELU": torch._VF.rnn_relu}
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check(Input, PreState, WeightList, SequenceLength, mode, is_bidirec, input_size, hidden_size, num_layers):
    if mode not in _FUNCTIONS:
        raise ValueError(f"rnn: mode must be one of {sorted(_FUNCTIONS)}, got {mode!r}")
    if Input.dim() != 3:
        raise ValueError(f"rnn: Input must be 3-D [time_steps, batch_size, input_size], got {list(Input.shape)}")
    if Input.shape[2] != input_size:
        raise ValueError(f"rnn: the last dimension of Input{list(Input.shape)} must equal input_size={input_size}")
    if Input.shape[0] == 0:
        raise ValueError(f"rnn: Input{list(Input.shape)} has no time steps")
    directions = 2 if is_bidirec else 1
    n_states = 2 if mode == "LSTM" else 1
    if len(PreState) != n_states:
        raise ValueError(f"rnn: {mode} needs {n_states} tensor(s) in PreState, got {len(PreState)}")
    for i, s in enumerate(PreState):
        if s.dim() != 3 or s.shape[0] != num_layers * directions or s.shape[1] != Input.shape[1] or \
                s.shape[2] != hidden_size:
            raise ValueError(f"rnn: PreState[{i}] must have shape [{num_layers * directions}, {Input.shape[1]}, "
                             f"{hidden_size}] for Input{list(Input.shape)}, got {list(s.shape)}")
        if s.dtype != Input.dtype:
            raise ValueError(f"rnn: PreState[{i}] dtype {s.dtype} differs from Input dtype {Input.dtype}")
    count = 4 * num_layers * directions
    if len(WeightList) != count:
        raise ValueError(f"rnn: WeightList must hold {count} tensors for num_layers={num_layers}, "
                         f"is_bidirec={is_bidirec}, got {len(WeightList)}")
    gates = _GATES[mode] * hidden_size
    for i, w in enumerate(WeightList):
        if w.dtype != Input.dtype:
            raise ValueError(f"rnn: WeightList[{i}] dtype {w.dtype} differs from Input dtype {Input.dtype}")
        if w.shape[0] != gates:
            raise ValueError(f"rnn: WeightList[{i}] has shape {list(w.shape)}, expected {gates} rows for {mode} "
                             f"with hidden_size={hidden_size}")
    if SequenceLength is not None:
        if SequenceLength.dtype not in (torch.int32, torch.int64):
            raise ValueError(f"rnn: SequenceLength must be int32 or int64, got {SequenceLength.dtype}")
        if list(SequenceLength.shape) != [Input.shape[1]]:
            raise ValueError(f"rnn: SequenceLength must have shape [{Input.shape[1]}] (the batch size), got "
                             f"{list(SequenceLength.shape)}")


@op("rnn", inputs=["Input", "PreState[]", "WeightList[]", "SequenceLength?"],
    outputs=["Out", "DropoutState?", "Reserve", "State[]"],
    attrs={"dropout_prob": 0.0, "is_bidirec": False, "input_size": 10, "hidden_size": 100, "num_layers": 1,
           "mode": "RNN_TANH", "seed": 0, "is_test": False})
def rnn(Input, PreState, WeightList, SequenceLength, *, dropout_prob, is_bidirec, input_size, hidden_size,
        num_layers, mode, seed, is_test):
    """Input [T, B, I] time-major; WeightList in Paddle's order: every (layer, direction)'s weight_ih,
    weight_hh, then every one's bias_ih, bias_hh. Padded steps (t >= SequenceLength[b]) output zeros and leave
    the state alone; the reverse direction starts at each sequence's last valid step."""
    _check(Input, PreState, WeightList, SequenceLength, mode, is_bidirec, input_size, hidden_size, num_layers)
    n = len(WeightList) // 4
    params = []
    for k in range(n):
        params += [WeightList[2 * k], WeightList[2 * k + 1], WeightList[2 * n + 2 * k], WeightList[2 * n + 2 * k + 1]]
    fn = _FUNCTIONS[mode]
    hx = tuple(PreState) if mode == "LSTM" else PreState[0]
    train = not is_test
    flags = (True, num_layers, float(dropout_prob), train, bool(is_bidirec))
    empty = Input.new_empty([0], dtype=torch.uint8)
    if Input.device.type == "meta":
        # static shape inference: torch's meta RNN unrolls every time step, and an unknown (-1) time dim
        # stands in as ~10^4 steps there (minutes per op); the shapes follow from the checked inputs
        directions = 2 if is_bidirec else 1
        out = Input.new_empty([Input.shape[0], Input.shape[1], directions * hidden_size])
        return out, empty, empty, [torch.empty_like(s) for s in PreState]
    if SequenceLength is None:
        out, *state = fn(Input, hx, params, *flags, False)
        return out, empty, empty, list(state)

    T = Input.shape[0]
    lengths = SequenceLength.to("cpu", torch.int64)
    if lengths.numel():
        lo, hi = torch.stack(torch.aminmax(lengths)).tolist()
        if lo < 0 or hi > T:
            raise ValueError(f"rnn: SequenceLength values must lie in [0, {T}] (the time steps of Input), "
                             f"got min {lo}, max {hi}")
    empty_rows = lengths == 0
    # torch cannot pack empty sequences: run them one step and restore their zeros/initial state below.
    packed = _packing.pack_padded_sequence(Input, lengths.clamp(min=1), enforce_sorted=False)
    order, back = packed.sorted_indices.to(Input.device), packed.unsorted_indices.to(Input.device)
    hx_sorted = tuple(h.index_select(1, order) for h in hx) if mode == "LSTM" else hx.index_select(1, order)
    out, *state = fn(packed.data, packed.batch_sizes, hx_sorted, params, *flags)
    out, _ = _packing.pad_packed_sequence(_packing.PackedSequence(out, packed.batch_sizes), total_length=T)
    out = out.index_select(1, back)
    state = [s.index_select(1, back) for s in state]
    if bool(empty_rows.any()):
        rows = empty_rows.to(Input.device).view(1, -1, 1)
        out = out.masked_fill(rows, 0.0)
        state = [torch.where(rows, h0, s) for h0, s in zip(PreState, state)]
    return out, empty, empty, state
