"""fluid.dygraph.BackwardStrategy: fluid's gradient-accumulation switch. torchpaddle's autograd always
accumulates in a fixed order, so ``sort_sum_gradient`` is accepted and recorded only."""

__all__ = ["BackwardStrategy"]


class BackwardStrategy:
    def __init__(self):
        self.sort_sum_gradient = False
