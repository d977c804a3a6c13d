"""paddle.static.nn's sequence_* layers work on LoD tensors (variable-length sequences packed with level-of-detail
offsets). Paddle 3.x's static graphs and torchpaddle's 2.x API carry no LoD; these names resolve and raise a
clear error, pointing at the legacy namespace where LoD support lives."""

__all__ = ["sequence_conv", "sequence_expand", "sequence_first_step", "sequence_last_step", "sequence_pool",
           "sequence_softmax"]


def _lod_only(api):
    def layer(*args, **kwargs):
        raise NotImplementedError(
            f"paddle.static.nn.{api} works on LoD tensors, which paddle.static does not carry here; it comes with "
            f"LoD support in paddle.fluid.layers.{api} (fluid.data(..., lod_level=1)). For padded batches use "
            "paddle.nn layers with paddle.nn.functional.sequence_mask.")
    layer.__name__ = layer.__qualname__ = api
    return layer


sequence_conv, sequence_expand, sequence_first_step, sequence_last_step, sequence_pool, sequence_softmax = (
    _lod_only(name) for name in __all__)
