"""fluid.average: WeightedAverage, a host-side running weighted mean (deprecated in fluid for fluid.metrics)."""
import warnings

import numpy as np

__all__ = ["WeightedAverage"]


def _is_number_or_matrix(value):
    return (isinstance(value, (int, float, np.int64)) and not isinstance(value, bool)) or \
        isinstance(value, np.ndarray)


class WeightedAverage:
    """``add(value, weight)`` repeatedly, then ``eval()`` = sum(value * weight) / sum(weight)."""

    def __init__(self):
        warnings.warn("The WeightedAverage is deprecated, please use fluid.metrics.Accuracy instead.", Warning)
        self.reset()

    def reset(self):
        self.numerator = None
        self.denominator = None

    def add(self, value, weight):
        if not _is_number_or_matrix(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number_or_matrix(weight):
            raise ValueError("The 'weight' must be a number(int, float) or a numpy ndarray.")
        if self.numerator is None or self.denominator is None:
            self.numerator, self.denominator = value * weight, weight
        else:
            self.numerator += value * weight
            self.denominator += weight

    def eval(self):
        if self.numerator is None or self.denominator is None:
            raise ValueError("There is no data to be averaged in WeightedAverage.")
        return self.numerator / self.denominator
