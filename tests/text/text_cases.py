"""paddle.text cases run on real PaddlePaddle 3.3.1 and on torchpaddle (test_text.py compares them)."""
import sys

import numpy as np

from tests.nn.layer_case_tools import dump


def _viterbi_inputs(paddle, seed, batch, seq, tags, lengths, dtype="float32"):
    rng = np.random.default_rng(seed)
    return (paddle.to_tensor(rng.normal(size=[batch, seq, tags]).astype(dtype)),
            paddle.to_tensor(rng.normal(size=[tags, tags]).astype(dtype)),
            paddle.to_tensor(np.array(lengths, dtype="int64")))


def c_viterbi_bos_eos(paddle):
    out = []
    for seed, (batch, seq, tags, lengths) in enumerate([(2, 4, 3, [4, 2]), (4, 6, 5, [6, 1, 3, 5]),
                                                         (3, 5, 4, [5, 5, 5])]):
        out.append(paddle.text.viterbi_decode(*_viterbi_inputs(paddle, seed, batch, seq, tags, lengths), True))
    return out


def c_viterbi_plain(paddle):
    out = []
    for seed, (batch, seq, tags, lengths) in enumerate([(2, 4, 3, [4, 2]), (4, 7, 6, [7, 1, 2, 4])]):
        out.append(paddle.text.viterbi_decode(*_viterbi_inputs(paddle, seed, batch, seq, tags, lengths, "float64"),
                                              False))
    return out


def c_viterbi_shorter_than_input(paddle):
    return paddle.text.viterbi_decode(*_viterbi_inputs(paddle, 5, 3, 8, 4, [3, 2, 5]), True)


def c_viterbi_decoder_layer(paddle):
    x, trans, lengths = _viterbi_inputs(paddle, 9, 3, 5, 4, [5, 3, 4])
    return paddle.text.ViterbiDecoder(trans, include_bos_eos_tag=False)(x, lengths)


def c_uci_housing(paddle):
    import os
    import tempfile
    rng = np.random.default_rng(3)
    data = rng.uniform(0, 50, size=[20, 14])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "housing.data")
        np.savetxt(path, data, fmt="%.4f")
        train = paddle.text.UCIHousing(data_file=path, mode="train")
        test = paddle.text.UCIHousing(data_file=path, mode="test")
        return [len(train), len(test), ("A", np.stack([train[i][0] for i in range(len(train))])),
                ("A", np.stack([test[i][1] for i in range(len(test))])), str(train[0][0].dtype)]


CASES = {name[2:]: fn for name, fn in sorted(globals().items()) if name.startswith("c_")}


if __name__ == "__main__":
    dump(CASES, sys.argv[1])
