"""BeamSearchDecoder and dynamic_decode vs real Paddle 3.3.1 (fixtures in tests/fixtures/nn_rnn from
cases_decode.py: predicted ids, final beam states, lengths, gradients of the scores) plus loop semantics."""
import warnings

import numpy as np
import pytest

import torchpaddle as paddle
from tests.fixtures.nn_rnn import cases_decode, harness

META, STORED = harness.load_fixture("cases_decode")


@pytest.mark.parametrize("key", sorted(META))
def test_matches_paddle(key):
    harness.check_case(paddle, cases_decode.CASES, META, STORED, key)


def test_every_case_has_a_fixture():
    assert harness.fixture_keys(cases_decode.CASES) == set(META)


class Counter(paddle.nn.decode.Decoder):
    """Emits 0, 1, 2...; entry b finishes after it emitted stop[b]."""

    def __init__(self, stop, own=False):
        self.stop, self.own = paddle.to_tensor(stop), own

    def initialize(self, inits):
        zeros = paddle.zeros([self.stop.shape[0]], dtype="int64")
        return zeros, zeros, paddle.full([self.stop.shape[0]], False, dtype="bool")

    def step(self, time, inputs, states, **kwargs):
        return inputs * 10, states + 1, inputs + 1, paddle.greater_equal(inputs, self.stop)

    @property
    def tracks_own_finished(self):
        return self.own


def test_loop_stops_when_all_finished_and_counts_lengths():
    out, states, lengths = paddle.nn.dynamic_decode(Counter([1, 3]), return_length=True)
    np.testing.assert_array_equal(out.numpy(), [[0, 10, 20, 30]] * 2)   # batch-major
    np.testing.assert_array_equal(lengths.numpy(), [1, 3])            # finished read after this step's update
    np.testing.assert_array_equal(states.numpy(), [4, 4])


def test_impute_finished_freezes_states():
    out, states = paddle.nn.dynamic_decode(Counter([1, 3]), impute_finished=True)
    np.testing.assert_array_equal(states.numpy(), [1, 3])     # an entry keeps its state from the step it ends


def test_max_step_num_allows_one_extra_step():
    out, _ = paddle.nn.dynamic_decode(Counter([100]), max_step_num=2)
    assert out.shape == [1, 3]
    out, _ = paddle.nn.dynamic_decode(Counter([100]), max_step_num=0, output_time_major=True)
    assert out.shape == [1, 1]


def test_own_finished_without_lengths_warns():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _, _, lengths = paddle.nn.dynamic_decode(Counter([0], own=True), return_length=True)
    assert any("lengths" in str(w.message) for w in caught)
    np.testing.assert_array_equal(lengths.numpy(), [0])


def test_beam_search_finished_beams_only_extend_with_end_token():
    paddle.seed(0)
    cell, fc = paddle.nn.GRUCell(3, 4), paddle.nn.Linear(4, 5)
    emb = paddle.nn.Embedding(5, 3)
    decoder = paddle.nn.BeamSearchDecoder(cell, 0, 1, 4, embedding_fn=emb, output_fn=fc)
    ids, states, lengths = paddle.nn.dynamic_decode(decoder, inits=paddle.zeros([2, 4]), max_step_num=8,
                                                    return_length=True)
    ids = ids.numpy()
    assert ids.shape[:2] == (2, ids.shape[1]) and ids.shape[2] == 4
    for b in range(2):
        for k in range(4):
            seq = list(ids[b, :, k])
            if 1 in seq:
                first = seq.index(1)
                assert all(t == 1 for t in seq[first:])
                assert lengths.numpy()[b, k] == first + 1


def test_tile_beam_merge_with_batch_repeats_rows():
    x = paddle.to_tensor(np.arange(6).reshape(2, 3))
    y = paddle.nn.BeamSearchDecoder.tile_beam_merge_with_batch(x, 2).numpy()
    np.testing.assert_array_equal(y, [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]])


def _beam(**kwargs):
    args = dict(cell=paddle.nn.GRUCell(3, 4), start_token=0, end_token=1, beam_size=2,
                embedding_fn=paddle.nn.Embedding(5, 3), output_fn=paddle.nn.Linear(4, 5))
    args.update(kwargs)
    return paddle.nn.BeamSearchDecoder(**args)


ERRORS = [
    (lambda: _beam(beam_size=0), ValueError),
    (lambda: _beam(beam_size=1.5), ValueError),
    (lambda: paddle.nn.dynamic_decode(_beam(end_token=7), inits=paddle.zeros([2, 4])), ValueError),
    (lambda: paddle.nn.dynamic_decode(_beam(), inits=paddle.zeros([2, 4]), max_step_num=-1), ValueError),
    (lambda: paddle.nn.dynamic_decode(_beam(), inits=[[0.0] * 4]), TypeError),
    (lambda: paddle.nn.dynamic_decode(_FinishedAtStart()), ValueError),
]


class _FinishedAtStart(Counter):
    def __init__(self):
        super().__init__([0])

    def initialize(self, inits):
        i, s, _ = super().initialize(inits)
        return i, s, paddle.full([1], True, dtype="bool")


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_bad_input_raises(i):
    fn, exc = ERRORS[i]
    with pytest.raises(exc):
        fn()
