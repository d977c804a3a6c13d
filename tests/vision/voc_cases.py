"""VOC2012 from a small fake VOCtrainval tar: ``python -m tests.vision.voc_cases OUT.pkl TAR`` records what real
PaddlePaddle 3.3.1 reads from it; tests/vision/test_voc2012.py compares torchpaddle's reading."""
import io
import pickle
import sys
import tarfile

import numpy as np

_SPLITS = {"trainval": ["2007_000032", "2007_000039", "2007_000063"], "train": ["2007_000032"],
           "val": ["2007_000039", "2007_000063"]}


def write_tar(path):
    """A tar with VOC's layout: set lists, JPEG images and palette PNG segmentation masks."""
    from PIL import Image
    rng = np.random.default_rng(0)

    def add(archive, name, data):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    with tarfile.open(path, "w") as archive:
        for split, names in _SPLITS.items():
            add(archive, f"VOCdevkit/VOC2012/ImageSets/Segmentation/{split}.txt", "".join(
                n + "\n" for n in names).encode())
        for i, name in enumerate(_SPLITS["trainval"]):
            h, w = 6 + i, 8 + 2 * i
            buffer = io.BytesIO()
            Image.fromarray((rng.random((h, w, 3)) * 255).astype("uint8")).save(buffer, format="JPEG", quality=95)
            add(archive, f"VOCdevkit/VOC2012/JPEGImages/{name}.jpg", buffer.getvalue())
            mask = Image.fromarray(rng.integers(0, 21, (h, w)).astype("uint8"), mode="P")
            mask.putpalette(list(range(256)) * 3)
            buffer = io.BytesIO()
            mask.save(buffer, format="PNG")
            add(archive, f"VOCdevkit/VOC2012/SegmentationClass/{name}.png", buffer.getvalue())


def read_all(paddle, tar_path):
    out = {}
    for mode in ("train", "valid", "test"):
        for backend in ("pil", "cv2"):
            data = paddle.vision.datasets.VOC2012(data_file=tar_path, mode=mode, backend=backend)
            items = []
            for i in range(len(data)):
                image, label = data[i]
                items.append((type(image).__name__, str(np.asarray(image).dtype), np.asarray(image),
                              type(label).__name__, str(np.asarray(label).dtype), np.asarray(label)))
            out[(mode, backend)] = (len(data), items)
    return out


if __name__ == "__main__":
    import paddle
    with open(sys.argv[1], "wb") as f:
        pickle.dump({"results": read_all(paddle, sys.argv[2])}, f)
