"""Decoding loops: the Decoder interface, BeamSearchDecoder and dynamic_decode (eager mode)."""
import collections
import warnings

import numpy as np

from ..framework import dtype as _dtype
from ..framework.tensor import Tensor
from .. import tensor as _P
from . import functional as F
from ..utils.nest import flatten as _flatten, map_structure as _map, pack_sequence_as as _pack_as

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]


class Decoder:
    """Interface for dynamic_decode: ``initialize(inits) -> (inputs, states, finished)``,
    ``step(time, inputs, states, **kwargs) -> (outputs, next_states, next_inputs, finished)``, and optionally
    ``finalize(outputs, final_states, sequence_lengths) -> (outputs, final_states)``."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        return False


class _TokenRangeError(IndexError, ValueError):
    """A token id outside the vocabulary: Paddle fails with IndexError there; a ValueError as well."""


def _float_dtype():
    # Paddle builds the beam scores in float32 unless the default dtype is float64.
    return "float64" if _dtype.get_default_dtype() == "float64" else "float32"


class BeamSearchDecoder(Decoder):
    """Beam search over ``cell``: each step keeps the ``beam_size`` best (log-prob) continuations per batch
    entry. Cell states and inputs are laid out [batch * beam, ...] for the cell and [batch, beam, ...]
    elsewhere."""

    OutputWrapper = collections.namedtuple("OutputWrapper", ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper", ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None, output_fn=None):
        if not isinstance(beam_size, (int, np.integer)) or beam_size < 1:
            raise ValueError(f"BeamSearchDecoder: beam_size must be a positive int, got {beam_size!r}")
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """[batch, ...] -> [batch * beam_size, ...], each batch entry repeated beam_size times in a row."""
        x = _P.unsqueeze(x, [1])
        times = [1] * x.ndim
        times[1] = beam_size
        x = _P.tile(x, times)
        return _P.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        return _P.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return _P.reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        x = _P.unsqueeze(x, [1])
        times = [1] * x.ndim
        times[1] = self.beam_size
        return _P.tile(x, times)

    def _mask_probs(self, probs, finished):
        # Finished beams may only emit end_token (log-prob 0, all else -1e9). Paddle's arithmetic blend, kept
        # as is: it turns a -inf log-prob of a finished beam into NaN, as Paddle does.
        finished = _P.cast(finished, probs.dtype)
        blocked = _P.tile(_P.unsqueeze(finished, [2]), [1, 1, self.vocab_size]) * self.noend_mask_tensor
        return blocked - probs * _P.unsqueeze(finished - 1, [2])

    def _gather(self, x, indices, batch_size):
        """x[b, indices[b, k]] for every batch entry b and beam k."""
        batch_pos = _P.tile(_P.unsqueeze(_P.arange(0, batch_size, 1, dtype=indices.dtype), [1]),
                            [1, self.beam_size])
        coordinates = _P.stack([batch_pos, indices], axis=2)
        coordinates.stop_gradient = True
        return _P.gather_nd(x, coordinates)

    def initialize(self, initial_cell_states):
        self.kinf = 1e9
        state = _flatten(initial_cell_states)[0]
        if not isinstance(state, Tensor):
            raise TypeError(f"BeamSearchDecoder.initialize: initial_cell_states must hold Tensors, got "
                            f"{type(state).__name__}")
        self.batch_size = state.shape[0]
        self.start_token_tensor = _P.full([1], self.start_token, dtype="int64")
        self.end_token_tensor = _P.full([1], self.end_token, dtype="int64")
        init_cell_states = _map(self._expand_to_beam_size, initial_cell_states)
        init_inputs = _P.full([self.batch_size, self.beam_size], self.start_token, dtype="int64")
        first = np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)], dtype=_float_dtype())
        log_probs = _P.tile(_P.to_tensor(first), [self.batch_size, 1])
        init_finished = _P.full([self.batch_size, self.beam_size], False, dtype="bool")
        init_lengths = _P.zeros_like(init_inputs)
        if self.embedding_fn:
            init_inputs = self.embedding_fn(init_inputs)
        return init_inputs, self.StateWrapper(init_cell_states, log_probs, init_finished, init_lengths), \
            init_finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        self.vocab_size = logits.shape[-1]
        if not 0 <= self.end_token < self.vocab_size:
            raise _TokenRangeError(f"BeamSearchDecoder: end_token {self.end_token} is outside the vocabulary "
                             f"[0, {self.vocab_size})")
        self.vocab_size_tensor = _P.full([1], self.vocab_size, dtype="int64")
        noend = np.full([self.vocab_size], -self.kinf, dtype=_float_dtype())
        noend[self.end_token] = 0
        self.noend_mask_tensor = _P.to_tensor(noend)

        step_log_probs = _P.log(F.softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = step_log_probs + _P.unsqueeze(beam_state.log_probs, [2])
        scores = _P.reshape(log_probs, [-1, self.beam_size * self.vocab_size])
        topk_scores, topk_indices = _P.topk(scores, k=self.beam_size)
        beam_indices = _P.floor_divide(topk_indices, self.vocab_size_tensor)
        token_indices = _P.remainder(topk_indices, self.vocab_size_tensor)
        next_log_probs = self._gather(scores, topk_indices, self.batch_size)
        next_cell_states = _map(lambda x: self._gather(x, beam_indices, self.batch_size), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, self.batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, self.batch_size)
        next_lengths = next_lengths + _P.cast(_P.logical_not(next_finished), beam_state.lengths.dtype)
        next_finished = _P.logical_or(next_finished, _P.equal(token_indices, self.end_token_tensor))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished, next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = _map(self._merge_batch_beams, inputs)
        cell_states = _map(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = _map(self._split_batch_beams, cell_outputs)
        next_cell_states = _map(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time=time, logits=cell_outputs, next_cell_states=next_cell_states,
                                               beam_state=states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Backtrack the beams: predicted_ids [time, batch, beam] follow parent_ids to whole sequences."""
        predicted_ids = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return _P.cast(predicted_ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        return True


def _impute(state, new_state, finished):
    # Finished entries keep their old state: state * m - new * (m - 1), in float for bool states.
    state_dtype = state.dtype
    if state_dtype.name == "bool":
        state, new_state = _P.cast(state, "float32"), _P.cast(new_state, "float32")
    mask = _P.cast(finished, state.dtype) if finished.dtype != state.dtype else finished
    # NOTE: Paddle unsqueezes the mask to [batch, 1], which broadcasts wrongly for 1-D states; same otherwise.
    mask = _P.reshape(mask, [-1] + [1] * (state.ndim - 1))
    mask.stop_gradient = True
    out = state * mask - new_state * (mask - 1)
    return _P.cast(out, state_dtype) if state_dtype.name == "bool" else out


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False, impute_finished=False,
                   is_test=False, return_length=False, **kwargs):
    """Run ``decoder`` step by step until every entry is finished, or past ``max_step_num`` steps (so at most
    max_step_num + 1 steps). Returns (outputs, final_states[, sequence_lengths]); outputs are batch-major
    unless ``output_time_major``."""
    if max_step_num is not None and (not isinstance(max_step_num, (int, np.integer)) or max_step_num < 0):
        raise ValueError(f"dynamic_decode: max_step_num must be a non-negative int or None, got {max_step_num!r}")
    inputs, states, finished = decoder.initialize(inits)
    sequence_lengths = _P.cast(_P.zeros_like(finished), "int64")
    collected = out_structure = None
    step_idx = 0
    step_idx_tensor = _P.full([1], 0, dtype="int64")
    while not bool(_P.all(finished).item()):
        step_outputs, next_states, next_inputs, next_finished = decoder.step(step_idx_tensor, inputs, states,
                                                                             **kwargs)
        if not decoder.tracks_own_finished:
            # NOTE: in Paddle's eager loop `finished` is overwritten with next_finished before the lengths and
            # the imputation read it (its static loop reads the previous value); eager is followed here.
            finished = _P.logical_or(next_finished, finished)
            next_finished = finished
            next_sequence_lengths = sequence_lengths + _P.cast(_P.logical_not(finished), sequence_lengths.dtype)
            if impute_finished:
                next_states = _map(lambda old, new: _impute(old, new, finished), states, next_states)
        else:
            if not hasattr(next_states, "lengths"):
                warnings.warn("`next_states` has no `lengths` attribute, the returned `sequence_lengths` would "
                              "be all zeros.")
            next_sequence_lengths = getattr(next_states, "lengths", sequence_lengths)
        if collected is None:
            out_structure = step_outputs
            collected = [[y] for y in _flatten(step_outputs)]
        else:
            for acc, y in zip(collected, _flatten(step_outputs)):
                acc.append(y)
        inputs, states, finished, sequence_lengths = next_inputs, next_states, next_finished, next_sequence_lengths
        step_idx_tensor = step_idx_tensor + 1
        step_idx += 1
        if max_step_num is not None and step_idx > max_step_num:
            break
    if collected is None:
        raise ValueError("dynamic_decode: every entry is finished before the first step; nothing was decoded")
    final_outputs = _pack_as(out_structure, [_P.stack(acc, axis=0) for acc in collected])
    final_states = states
    try:
        final_outputs, final_states = decoder.finalize(final_outputs, final_states, sequence_lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        final_outputs = _map(lambda x: _P.transpose(x, [1, 0] + list(range(2, x.ndim))), final_outputs)
    return (final_outputs, final_states, sequence_lengths) if return_length else (final_outputs, final_states)
