"""fluid.evaluator: Paddle 1.x's deprecated static-graph evaluators. Their three subclasses evaluate LoD
sequences or detections (chunk_eval, edit_distance, detection_map), so they come with LoD support; use
fluid.metrics for host-side metrics."""
import warnings

__all__ = ["Evaluator", "ChunkEvaluator", "EditDistance", "DetectionMAP"]


class Evaluator:
    """Base class: ``states`` are the accumulator variables, ``metrics`` the per-batch results."""

    def __init__(self, name, **kwargs):
        warnings.warn(f"The {type(self).__name__} is deprecated, because maintain a modified program inside "
                      "evaluator cause bug easily, please use fluid.metrics.%s instead." % type(self).__name__,
                      Warning)
        self.states = []
        self.metrics = []
        self._name = name

    def reset(self, executor, reset_program=None):
        raise NotImplementedError(f"{type(self).__name__}.reset: the Evaluator base class has no states to reset")

    def eval(self, executor, eval_program=None):
        raise NotImplementedError(f"{type(self).__name__}.eval: the Evaluator base class computes nothing")


class _LoDEvaluator(Evaluator):
    _what = ""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"fluid.evaluator.{type(self).__name__} evaluates {self._what}; it comes with LoD "
                                  "support in a later torchpaddle release (fluid.metrics."
                                  f"{type(self).__name__} accumulates fetched values meanwhile)")


class ChunkEvaluator(_LoDEvaluator):
    _what = "LoD label sequences with the chunk_eval op"


class EditDistance(_LoDEvaluator):
    _what = "LoD sequences with the edit_distance op"


class DetectionMAP(_LoDEvaluator):
    _what = "LoD detection results with the detection_map op"
