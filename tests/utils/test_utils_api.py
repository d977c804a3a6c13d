"""paddle.utils.download, cpp_extension, paddle.hub's remote sources and paddle.sysconfig: offline behaviour
(cache hits, clear download errors), archive safety, and the parts Paddle cannot be compared with here."""
import hashlib
import io
import os
import tarfile
import zipfile

import numpy as np
import pytest
import torch

import torchpaddle as paddle
from torchpaddle import hub
from torchpaddle.utils import download


def _md5(data):
    return hashlib.md5(data).hexdigest()


@pytest.fixture
def fake_net(monkeypatch):
    """download._fetch serving ``files`` (url -> bytes); other urls fail like an offline machine."""
    files, fetched = {}, []

    def fetch(url, target):
        fetched.append(url)
        if url not in files:
            raise OSError("<urlopen error [Errno -3] Temporary failure in name resolution>")
        with open(target, "wb") as f:
            f.write(files[url])
    monkeypatch.setattr(download, "_fetch", fetch)
    return files, fetched


def test_get_path_from_url_uses_the_cache_then_downloads(tmp_path, fake_net):
    files, fetched = fake_net
    url = "https://example.com/data/w.pdparams"
    cached = tmp_path / "w.pdparams"
    cached.write_bytes(b"cached")
    assert download.get_path_from_url(url, str(tmp_path)) == str(cached) and fetched == []
    # a wrong MD5 means a fresh download
    files[url] = b"fresh"
    assert download.get_path_from_url(url, str(tmp_path), md5sum=_md5(b"fresh")) == str(cached)
    assert cached.read_bytes() == b"fresh" and fetched == [url]


def test_download_errors_say_how_to_work_offline(tmp_path, fake_net):
    files, fetched = fake_net
    url = "https://example.com/missing.tar"
    with pytest.raises(RuntimeError, match="Retry limit reached.*put the file at .*missing.tar"):
        download.get_path_from_url(url, str(tmp_path))
    assert len(fetched) == download.DOWNLOAD_RETRY_LIMIT and os.listdir(tmp_path) == []
    files[url] = b"corrupt"
    with pytest.raises(RuntimeError, match="MD5 mismatch"):
        download.get_path_from_url(url, str(tmp_path), md5sum=_md5(b"right"))
    with pytest.raises(AssertionError, match="not a url"):
        download.get_path_from_url("/local/file", str(tmp_path))
    with pytest.raises(ValueError, match="'get' or 'wget'"):
        download._download(url, str(tmp_path), method="curl")


def _tar(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_archives_are_unpacked_into_the_cache(tmp_path, fake_net):
    files, _ = fake_net
    files["https://example.com/folder.tar"] = _tar({"folder/a.txt": b"a", "folder/b.txt": b"b"})
    path = download.get_path_from_url("https://example.com/folder.tar", str(tmp_path))
    assert path == str(tmp_path / "folder") and sorted(os.listdir(path)) == ["a.txt", "b.txt"]
    files["https://example.com/loose.tar"] = _tar({"x.txt": b"x", "y.txt": b"y"})
    path = download.get_path_from_url("https://example.com/loose.tar", str(tmp_path))
    assert path == str(tmp_path / "loose") and sorted(os.listdir(path)) == ["x.txt", "y.txt"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("one.bin", b"1")
    files["https://example.com/one.zip"] = buf.getvalue()
    assert download.get_path_from_url("https://example.com/one.zip", str(tmp_path)) == str(tmp_path / "one.bin")
    files["https://example.com/raw.zip"] = buf.getvalue()
    assert download.get_path_from_url("https://example.com/raw.zip", str(tmp_path), decompress=False) == \
        str(tmp_path / "raw.zip")


def test_archives_cannot_write_outside_the_cache(tmp_path, fake_net):
    files, _ = fake_net
    files["https://example.com/evil.tar"] = _tar({"../evil.txt": b"x", "ok.txt": b"y"})
    with pytest.raises(ValueError, match="outside"):
        download.get_path_from_url("https://example.com/evil.tar", str(tmp_path / "cache"))
    assert not (tmp_path / "evil.txt").exists()


def test_weights_go_to_the_hapi_cache(monkeypatch, tmp_path, fake_net):
    files, _ = fake_net
    monkeypatch.setattr(download, "WEIGHTS_HOME", str(tmp_path))
    files["https://example.com/w.pdparams"] = b"w"
    path = download.get_weights_path_from_url("https://example.com/w.pdparams", md5sum=_md5(b"w"))
    assert path == str(tmp_path / "w.pdparams")


def test_hub_remote_sources_fail_clearly_offline(monkeypatch, tmp_path, fake_net):
    monkeypatch.setattr(hub, "HUB_DIR", str(tmp_path))
    with pytest.raises(RuntimeError, match="github.com/owner/repo/archive/main.zip failed"):
        hub.list("owner/repo", source="github")
    with pytest.raises(RuntimeError, match="gitee.com/owner/repo/repository/archive/dev.zip failed"):
        hub.load("owner/repo:dev", "m", source="gitee")
    with pytest.raises(ValueError, match="owner/name"):
        hub.list("just_a_name", source="github")


def test_hub_reuses_a_downloaded_repository(monkeypatch, tmp_path, fake_net, capsys):
    files, fetched = fake_net
    monkeypatch.setattr(hub, "HUB_DIR", str(tmp_path))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("repo-main/hubconf.py", "def entry(k=1):\n    'doc'\n    return k * 2\n")
    files["https://github.com/owner/repo/archive/main.zip"] = buf.getvalue()
    assert hub.load("owner/repo", "entry", k=4) == 8 and len(fetched) == 1
    assert hub.list("owner/repo") == ["entry"] and len(fetched) == 1
    assert "Using cache found in" in capsys.readouterr().err
    assert hub.help("owner/repo", "entry", force_reload=True) == "doc" and len(fetched) == 2


def test_load_state_dict_from_url_checks_the_hash_and_unzips(tmp_path, fake_net):
    files, _ = fake_net
    state = {"w": paddle.to_tensor([1.0, 2.0])}
    paddle.save(state, str(tmp_path / "src.pdparams"))
    data = (tmp_path / "src.pdparams").read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:10]
    files[f"https://example.com/m-{digest}.pdparams"] = data
    loaded = hub.load_state_dict_from_url(f"https://example.com/m-{digest}.pdparams",
                                          model_dir=str(tmp_path / "a"), check_hash=True)
    np.testing.assert_array_equal(loaded["w"].numpy(), [1.0, 2.0])
    files["https://example.com/m-00000000.pdparams"] = data
    with pytest.raises(RuntimeError, match="invalid hash value"):
        hub.load_state_dict_from_url("https://example.com/m-00000000.pdparams", model_dir=str(tmp_path / "b"),
                                     check_hash=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("inner.pdparams", data)
    files["https://example.com/packed.zip"] = buf.getvalue()
    loaded = hub.load_state_dict_from_url("https://example.com/packed.zip", model_dir=str(tmp_path / "c"),
                                          map_location="cpu")
    np.testing.assert_array_equal(loaded["w"].numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="map_location"):
        hub.load_state_dict_from_url("https://example.com/packed.zip", model_dir=str(tmp_path / "c"),
                                     map_location="tpu")


def test_cpp_extension_says_what_to_do_instead(monkeypatch, tmp_path):
    ext = paddle.utils.cpp_extension
    for fn in (ext.load, ext.setup, ext.CppExtension, ext.CUDAExtension):
        with pytest.raises(NotImplementedError, match="PyLayer"):
            fn("op", sources=["op.cc"])
    monkeypatch.setenv("PADDLE_EXTENSION_DIR", str(tmp_path / "ext"))
    assert ext.get_build_directory() == str(tmp_path / "ext") and os.path.isdir(tmp_path / "ext")


def test_sysconfig_points_at_torchs_headers_and_libraries():
    include, lib = paddle.sysconfig.get_include(), paddle.sysconfig.get_lib()
    assert os.path.isfile(os.path.join(include, "torch", "extension.h"))
    assert any(name.startswith("libtorch") for name in os.listdir(lib))
    assert include.startswith(os.path.dirname(torch.__file__))


def test_deprecated_class_and_version_of_the_package():
    @paddle.utils.deprecated(since="1.0", update_to="paddle.New", level=1)
    class Old:
        """Old class."""
    with pytest.warns(paddle.utils.deprecated.__globals__["VisibleDeprecationWarning"], match="paddle.New"):
        Old()
    assert paddle.utils.require_version("3.3.1") is None
    assert paddle.utils.flatten([1, [2, (3,)]]) == [1, 2, 3]
