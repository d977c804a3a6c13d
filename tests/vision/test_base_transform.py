"""vision.transforms.BaseTransform: subclasses implement _apply_image; ``keys`` routes tuple inputs."""
import numpy as np
import pytest

import torchpaddle as paddle
from torchpaddle.vision.transforms import BaseTransform


class _AddOne(BaseTransform):
    def _apply_image(self, image):
        return image + 1


def test_base_transform_applies_to_image_and_keys():
    image = np.zeros((2, 2, 3), dtype="float32")
    np.testing.assert_array_equal(_AddOne()(image), image + 1)
    with pytest.raises(NotImplementedError):  # like Paddle 3.3.1: "label" is not a supported key
        _AddOne(keys=("image", "label"))
    assert isinstance(paddle.vision.transforms.Compose([_AddOne(), _AddOne()])(image), np.ndarray)
