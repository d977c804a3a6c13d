import pytest

import torchpaddle as paddle


def test_param_attr_fields_and_conversion():
    attr = paddle.ParamAttr(name="fc.w", learning_rate=0.5, trainable=False, need_clip=False)
    assert (attr.name, attr.learning_rate, attr.trainable, attr.need_clip) == ("fc.w", 0.5, False, False)
    assert paddle.ParamAttr._to_attr(None).name is None
    assert paddle.ParamAttr._to_attr("w").name == "w"
    assert paddle.ParamAttr._to_attr(False) is False
    assert paddle.ParamAttr._to_attr(attr) is attr


@pytest.mark.parametrize("kwargs,exc", [({"name": 3}, TypeError), ({"learning_rate": "x"}, TypeError),
                                        ({"trainable": 1}, TypeError), ({"learning_rate": -1.0}, ValueError)])
def test_param_attr_rejects_bad_values(kwargs, exc):
    with pytest.raises(exc):
        paddle.ParamAttr(**kwargs)


def test_param_attr_from_initializer_regularizer_and_true():
    init = paddle.nn.initializer.Orthogonal()
    assert paddle.ParamAttr._to_attr(init).initializer is init
    reg = paddle.regularizer.L2Decay(0.1)
    assert paddle.ParamAttr._to_attr(reg).regularizer is reg
    assert paddle.ParamAttr._to_attr(True).trainable is True
    with pytest.raises(TypeError):
        paddle.ParamAttr._to_attr(3.5)
