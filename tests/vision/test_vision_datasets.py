"""paddle.vision.datasets on tiny fake files: the same files read by real Paddle 3.3.1 must give the same
samples, labels, dtypes and lengths; plus the local-only behaviour (no downloads, clear errors)."""
import gzip
import io
import os
import pickle
import tarfile

import numpy as np
import pytest
from PIL import Image

import torchpaddle as paddle
from torchpaddle.vision import datasets
from tests.fixtures.vision import vision_cases
from vision_compare import data_dir, mismatch, paddle_reference


@pytest.fixture(scope="module")
def files():
    return data_dir()


@pytest.mark.conformance
def test_datasets_match_paddle(files):
    ref = paddle_reference()
    ours = vision_cases.dataset_results(paddle, files)
    cv2_agrees = ref["cv2"] == vision_cases.cv2_available()
    problems = []
    for name, expected in ref["datasets"].items():
        if name == "DatasetFolder.cv2" and not cv2_agrees:
            continue
        found = mismatch(ours[name], expected, name)
        if found:
            problems.append(found)
    assert not problems, "\n".join(problems)


def test_mnist_samples(files):
    ds = datasets.MNIST(os.path.join(files, "test-images.gz"), os.path.join(files, "test-labels.gz"), mode="test")
    assert len(ds) == 100
    image, label = ds[3]
    assert isinstance(image, Image.Image) and image.mode == "L" and image.size == (28, 28)
    assert label.dtype == np.int64 and label.shape == (1,)
    ds = datasets.FashionMNIST(os.path.join(files, "test-images.gz"), os.path.join(files, "test-labels.gz"),
                               mode="test", backend="cv2")
    image, _ = ds[3]
    assert image.dtype == np.float32 and image.shape == (28, 28)


def _write_idx(path, array, magic, compress):
    data = np.array([magic, *array.shape], dtype=">u4").tobytes() + array.astype(np.uint8).tobytes()
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(data)


def test_mnist_plain_idx_any_count(tmp_path):
    images = np.arange(7 * 28 * 28).reshape(7, 28, 28) % 256
    _write_idx(tmp_path / "img", images, 2051, compress=False)
    _write_idx(tmp_path / "lab", np.arange(7), 2049, compress=True)
    ds = datasets.MNIST(str(tmp_path / "img"), str(tmp_path / "lab"), backend="cv2")
    assert len(ds) == 7
    np.testing.assert_array_equal(ds[6][0], images[6].astype(np.float32))
    assert ds[6][1].tolist() == [6]


def test_mnist_bad_files(tmp_path):
    _write_idx(tmp_path / "lab", np.arange(3), 2049, compress=True)
    with pytest.raises(FileNotFoundError, match="missing-images"):
        datasets.MNIST(str(tmp_path / "missing-images"), str(tmp_path / "lab"))
    _write_idx(tmp_path / "swapped", np.arange(3), 2049, compress=True)
    with pytest.raises(ValueError, match="magic"):
        datasets.MNIST(str(tmp_path / "swapped"), str(tmp_path / "lab"))
    _write_idx(tmp_path / "img", np.zeros((3, 28, 28)), 2051, compress=True)
    with open(tmp_path / "img", "rb") as f:
        raw = gzip.decompress(f.read())
    with open(tmp_path / "short", "wb") as f:
        f.write(raw[:100])
    with pytest.raises(ValueError, match="truncated"):
        datasets.MNIST(str(tmp_path / "short"), str(tmp_path / "lab"))


def test_missing_data_files_name_the_path(tmp_path):
    missing = str(tmp_path / "no-such-file")
    for make in (lambda: datasets.Cifar10(missing), lambda: datasets.Cifar100(missing),
                 lambda: datasets.FashionMNIST(missing, missing)):
        with pytest.raises(FileNotFoundError, match="no-such-file"):
            make()

def test_no_downloads(tmp_path, monkeypatch):
    monkeypatch.setattr("torchpaddle.vision.datasets._common.DATA_HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match="does not download.*t10k-images-idx3-ubyte.gz"):
        datasets.MNIST(mode="test")
    with pytest.raises(RuntimeError, match="cifar-10-python.tar.gz"):
        datasets.Cifar10()
    with pytest.raises(AssertionError, match="download"):
        datasets.Cifar100(download=False)
    # a file already in Paddle's cache layout is used, after its md5 is checked
    os.makedirs(tmp_path / "cifar")
    with open(tmp_path / "cifar" / "cifar-10-python.tar.gz", "wb") as f:
        f.write(b"not the real archive")
    with pytest.raises(RuntimeError, match="corrupt"):
        datasets.Cifar10()


def test_cifar_samples(files):
    ds = datasets.Cifar10(os.path.join(files, "cifar-10-python.tar.gz"))
    assert len(ds) == 7  # data_batch_1 (4) then data_batch_2 (3)
    image, label = ds[0]
    assert isinstance(image, Image.Image) and image.size == (32, 32) and image.mode == "RGB"
    assert label.dtype == np.int64 and label.shape == ()
    ds = datasets.Cifar100(os.path.join(files, "cifar-100-python.tar.gz"), mode="test", backend="cv2")
    assert len(ds) == 3 and ds[0][0].shape == (32, 32, 3) and ds[0][0].dtype == np.float32


def _tar(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, payload in members:
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))


class _Evil:
    def __reduce__(self):
        return os.system, ("echo owned",)


def test_cifar_refuses_unsafe_or_corrupt_pickles(tmp_path):
    _tar(tmp_path / "evil.tar.gz", [("cifar-10-batches-py/data_batch_1", pickle.dumps({b"data": _Evil()}))])
    with pytest.raises(ValueError, match="refused"):
        datasets.Cifar10(str(tmp_path / "evil.tar.gz"))
    _tar(tmp_path / "cut.tar.gz", [("cifar-10-batches-py/test_batch", pickle.dumps({b"data": b"x" * 50})[:20])])
    with pytest.raises(ValueError, match="corrupt"):
        datasets.Cifar10(str(tmp_path / "cut.tar.gz"), mode="test")
    batch = {b"data": np.zeros((2, 10), np.uint8), b"labels": [1, 2]}
    _tar(tmp_path / "shape.tar.gz", [("cifar-10-batches-py/test_batch", pickle.dumps(batch))])
    with pytest.raises(ValueError, match="3072"):
        datasets.Cifar10(str(tmp_path / "shape.tar.gz"), mode="test")
    with open(tmp_path / "junk.tar.gz", "wb") as f:
        f.write(b"junk")
    with pytest.raises(ValueError, match="tar"):
        datasets.Cifar10(str(tmp_path / "junk.tar.gz"))


def test_dataset_folder_is_valid_file(files):
    root = os.path.join(files, "folder")
    ds = datasets.DatasetFolder(root, is_valid_file=lambda p: p.endswith(".npy"), loader=os.path.basename)
    assert ds.classes == ["cat", "dog", "empty_class"] and len(ds) == 1 and ds[0] == ("x.npy", 0)
    ds = datasets.ImageFolder(root, is_valid_file=lambda p: p.endswith(".txt"), loader=os.path.basename)
    assert [ds[i] for i in range(len(ds))] == [["notes.txt"]]
    with pytest.raises(FileNotFoundError, match="no-such-dir"):
        datasets.DatasetFolder(os.path.join(files, "no-such-dir"))


def test_default_dtype_applies_to_cv2_backend(files):
    paddle.set_default_dtype("float64")
    try:
        ds = datasets.MNIST(os.path.join(files, "test-images.gz"), os.path.join(files, "test-labels.gz"),
                            mode="test", backend="cv2")
    finally:
        paddle.set_default_dtype("float32")
    assert ds[0][0].dtype == np.float64


def test_flowers_needs_scipy_or_reads_mat_files(tmp_path):
    import importlib.util
    tgz = tmp_path / "102flowers.tgz"
    with tarfile.open(tgz, "w:gz") as tar:
        for index in (1, 2, 3):
            buf = io.BytesIO()
            Image.fromarray(np.full((4, 5, 3), index * 40, np.uint8)).save(buf, "JPEG")
            info = tarfile.TarInfo(f"jpg/image_{index:05}.jpg")
            info.size = len(buf.getvalue())
            tar.addfile(info, io.BytesIO(buf.getvalue()))
    labels, setid = tmp_path / "imagelabels.mat", tmp_path / "setid.mat"
    if importlib.util.find_spec("scipy") is None:
        labels.write_bytes(b"x")
        setid.write_bytes(b"x")
        with pytest.raises(ImportError, match="SciPy"):
            datasets.Flowers(str(tgz), str(labels), str(setid))
        return
    import scipy.io
    scipy.io.savemat(str(labels), {"labels": np.array([[5, 6, 7]])})
    scipy.io.savemat(str(setid), {"tstid": np.array([[3, 1]]), "trnid": np.array([[2]]), "valid": np.array([[1]])})
    ds = datasets.Flowers(str(tgz), str(labels), str(setid), mode="train")
    assert len(ds) == 2
    image, label = ds[0]
    assert image.size == (5, 4) and label.tolist() == [7]


def test_image_backend():
    from torchpaddle import vision
    assert vision.get_image_backend() == "pil"
    vision.set_image_backend("cv2")
    try:
        assert vision.get_image_backend() == "cv2"
    finally:
        vision.set_image_backend("pil")
    with pytest.raises(ValueError, match="backend"):
        vision.set_image_backend("PIL")
    assert vision.image_load(__file__, backend="tensor") is None
