"""``assert`` on a Variable inside converted code."""

__all__ = ["static_assert"]


def static_assert(condition, message):
    raise NotImplementedError("dy2static: assert on a Tensor is not converted yet (no Assert op); assert on a "
                              "Python value, or check the Tensor outside paddle.jit.to_static")
