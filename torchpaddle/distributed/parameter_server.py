"""Names of Paddle's parameter-server training (PSLib datasets and sparse-table entry policies).

torchpaddle has no parameter server: these names resolve so that imports work, and constructing one raises
NotImplementedError saying so; collective training (fleet collective mode, DataParallel, auto-parallel) is the
supported way to train on several processes.
"""

__all__ = ["InMemoryDataset", "QueueDataset", "CountFilterEntry", "ProbabilityEntry", "ShowClickEntry"]


class _ParameterServerOnly:
    _what = ""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"paddle.distributed.{type(self).__name__}: {self._what} belongs to "
                                  "parameter-server training, which torchpaddle does not support; use collective "
                                  "training (paddle.distributed.fleet collective mode, DataParallel or "
                                  "auto-parallel) with paddle.io.DataLoader instead")


class InMemoryDataset(_ParameterServerOnly):
    _what = "the in-memory PS dataset"


class QueueDataset(_ParameterServerOnly):
    _what = "the streaming PS dataset"


class CountFilterEntry(_ParameterServerOnly):
    _what = "the count-filter entry policy of sparse tables"


class ProbabilityEntry(_ParameterServerOnly):
    _what = "the probability entry policy of sparse tables"


class ShowClickEntry(_ParameterServerOnly):
    _what = "the show/click entry policy of sparse tables"
