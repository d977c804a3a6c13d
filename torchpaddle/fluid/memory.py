"""fluid.memory_optimize / release_memory: no-ops, as they were in Paddle 2.0 (which had already replaced them
by BuildStrategy's memory options); torchpaddle's executor frees dead variables by itself."""
import logging

__all__ = ["memory_optimize", "release_memory"]


def memory_optimize(input_program, skip_opt_set=None, print_log=False, level=0, skip_grads=True):
    """Does nothing (documented as deprecated and a no-op since Paddle 1.6)."""
    logging.warning("Caution! paddle.fluid.memory_optimize() is deprecated and not maintained any more, since "
                    "it is not stable!\nThis API would not take any memory optimizations on your Program now, "
                    "since we have provided default strategies for you.")


def release_memory(input_program, skip_opt_set=None):
    """Does nothing (documented as deprecated and a no-op since Paddle 1.6)."""
    logging.warning("paddle.fluid.release_memory() is deprecated, it would not take any memory release on your "
                    "program")
