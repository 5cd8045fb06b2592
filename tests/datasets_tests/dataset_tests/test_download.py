import hashlib
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
import time
import urllib.error

import pytest

from chainer import dataset
from chainer.dataset import download


def test_root_default_env_and_setter(tmp_path, monkeypatch):
    monkeypatch.delenv("CHAINER_DATASET_ROOT")
    assert dataset.get_dataset_root() == os.path.join(os.path.expanduser("~"), ".chainer", "dataset")
    monkeypatch.setenv("CHAINER_DATASET_ROOT", str(tmp_path / "env"))
    assert dataset.get_dataset_root() == str(tmp_path / "env")
    dataset.set_dataset_root(tmp_path / "explicit")
    assert dataset.get_dataset_root() == str(tmp_path / "explicit")
    dataset.set_dataset_root(None)
    assert dataset.get_dataset_root() == str(tmp_path / "env")
    with pytest.raises(TypeError, match="set_dataset_root"):
        dataset.set_dataset_root(3)


def test_get_dataset_directory(dataset_root):
    path = dataset.get_dataset_directory("pfnet/chainer/x", create_directory=False)
    assert path == os.path.join(str(dataset_root), "pfnet/chainer/x")
    assert not os.path.exists(path)
    assert dataset.get_dataset_directory("pfnet/chainer/x") == path
    assert os.path.isdir(path)


def test_cached_download_downloads_once(file_server, dataset_root):
    server = file_server({"/a.bin": b"hello"})
    url = server.url + "/a.bin"
    path = dataset.cached_download(url)
    assert path == os.path.join(str(dataset_root), "_dl_cache", hashlib.md5(url.encode()).hexdigest())
    assert pathlib.Path(path).read_bytes() == b"hello"
    assert dataset.cached_download(url) == path
    assert server.requests == ["/a.bin"]


def test_cached_download_threads_share_one_download(file_server):
    server = file_server({"/slow": b"x" * 1000}, delay=0.3)
    paths = []
    threads = [
        threading.Thread(target=lambda: paths.append(dataset.cached_download(server.url + "/slow"))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(paths)) == 1 and len(paths) == 4
    assert server.requests == ["/slow"]


def test_cached_download_file_url(tmp_path):
    source = tmp_path / "local.txt"
    source.write_bytes(b"local data")
    path = dataset.cached_download(source.as_uri())
    assert pathlib.Path(path).read_bytes() == b"local data"


@pytest.mark.parametrize("patched", ["urllib.request.urlretrieve", "six.moves.urllib.request.urlretrieve"])
def test_cached_download_goes_through_urlretrieve(dataset_root, monkeypatch, patched):
    # Code written for Chainer 7 serves downloads offline by patching urlretrieve under
    # either name; cached_download must look it up at each call.
    requests = []

    def fake_urlretrieve(url, path):
        requests.append(url)
        pathlib.Path(path).write_text("served offline")

    pytest.importorskip("six")
    monkeypatch.setattr(patched, fake_urlretrieve)
    path = dataset.cached_download("https://example.invalid/data")
    assert pathlib.Path(path).read_text() == "served offline"
    assert requests == ["https://example.invalid/data"]
    assert sorted(p.name for p in (dataset_root / "_dl_cache").iterdir() if not p.name.endswith(".lock")) == [
        os.path.basename(path)
    ]


def test_cached_download_failure_leaves_no_file(file_server, dataset_root):
    server = file_server({})
    with pytest.raises(dataset.DownloadError, match=r"cached_download: could not download .*/missing: HTTPError"):
        dataset.cached_download(server.url + "/missing")
    leftovers = [p.name for p in (dataset_root / "_dl_cache").iterdir() if not p.name.endswith(".lock")]
    assert leftovers == []
    with pytest.raises(TypeError, match="url must be a str"):
        dataset.cached_download(b"http://x")


def test_cache_or_load_file_creates_once_then_loads(tmp_path):
    path = str(tmp_path / "sub" / "data.txt")
    seen = []

    def creator(temp_path):
        seen.append(temp_path)
        assert temp_path != path and os.path.basename(temp_path) == "data.txt"
        assert not os.path.exists(temp_path)
        with open(temp_path, "w") as f:
            f.write("42")
        return "created"

    def loader(p):
        return "loaded " + pathlib.Path(p).read_text()

    assert dataset.cache_or_load_file(path, creator, loader) == "created"
    assert pathlib.Path(path).read_text() == "42"
    assert dataset.cache_or_load_file(path, creator, loader) == "loaded 42"
    assert len(seen) == 1
    assert not os.path.exists(seen[0]) and not os.path.exists(os.path.dirname(seen[0]))


def test_cache_or_load_file_failed_creator_leaves_nothing(tmp_path):
    path = tmp_path / "data.npz"

    def creator(temp_path):
        pathlib.Path(temp_path).write_text("half")
        raise RuntimeError("conversion failed")

    with pytest.raises(RuntimeError, match="conversion failed"):
        dataset.cache_or_load_file(str(path), creator, pathlib.Path.read_text)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".data.npz.lock"]
    with pytest.raises(RuntimeError, match="did not write the file"):
        dataset.cache_or_load_file(str(path), lambda p: None, pathlib.Path.read_text)
    assert not path.exists()


def test_cache_or_load_file_processes_create_once(tmp_path):
    log = tmp_path / "log.txt"
    code = textwrap.dedent(
        f"""
        import os, time
        from chainer.dataset import cache_or_load_file
        def creator(temp_path):
            with open({str(log)!r}, 'a') as f:
                f.write('created\\n')
            time.sleep(0.5)
            with open(temp_path, 'w') as f:
                f.write('content')
            return 'content'
        def loader(path):
            with open(path) as f:
                return f.read()
        assert cache_or_load_file({str(tmp_path / "cache.txt")!r}, creator, loader) == 'content'
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
    assert [p.wait(60) for p in procs] == [0, 0, 0]
    assert log.read_text() == "created\n"


def test_set_dataset_mirror_validates_and_returns_previous():
    assert dataset.set_dataset_mirror("mnist", "https://mirror.example/mnist") is None
    assert dataset.set_dataset_mirror("mnist", "file:///srv/mnist") == "https://mirror.example/mnist"
    assert download._candidate_urls(download._sources.get("mnist"), "f.gz")[0] == ["file:///srv/mnist/f.gz"]
    assert dataset.set_dataset_mirror("mnist", None) == "file:///srv/mnist"
    with pytest.raises(ValueError, match="unknown data set name 'minst'"):
        dataset.set_dataset_mirror("minst", "https://x")
    with pytest.raises(ValueError, match="must be an http"):
        dataset.set_dataset_mirror(None, "/srv/datasets")


def test_mirror_precedence(monkeypatch):
    cifar = download._sources.get("cifar")
    f = "cifar-10-python.tar.gz"
    assert download._candidate_urls(cifar, f)[0] == ["https://www.cs.toronto.edu/~kriz/" + f]
    monkeypatch.setenv("CHAINER_DATASET_MIRROR", "https://all.example/base/")
    assert download._candidate_urls(cifar, f)[0] == ["https://all.example/base/cifar/" + f]
    dataset.set_dataset_mirror(None, "https://fn-all.example")
    assert download._candidate_urls(cifar, f)[0] == ["https://fn-all.example/cifar/" + f]
    monkeypatch.setenv("CHAINER_DATASET_MIRROR_CIFAR", "https://env-one.example")
    assert download._candidate_urls(cifar, f)[0] == ["https://env-one.example/" + f]
    dataset.set_dataset_mirror("cifar", "https://fn-one.example")
    assert download._candidate_urls(cifar, f)[0] == ["https://fn-one.example/" + f]
    monkeypatch.setenv("CHAINER_DATASET_MIRROR_FASHION_MNIST", "https://fashion.example")
    fashion = download._sources.get("fashion-mnist")
    assert download._candidate_urls(fashion, "x.gz")[0] == ["https://fashion.example/x.gz"]


def test_mnist_tries_the_public_mirror_after_the_canonical_server():
    urls, setting = download._candidate_urls(download._sources.get("mnist"), "t10k-labels-idx1-ubyte.gz")
    assert urls == [
        "http://yann.lecun.com/exdb/mnist/t10k-labels-idx1-ubyte.gz",
        "https://ossci-datasets.s3.amazonaws.com/mnist/t10k-labels-idx1-ubyte.gz",
    ]
    assert setting is None


def test_override_checksums_validates_and_nests():
    key = "mnist/train-images-idx3-ubyte.gz"
    source = download._sources.get("mnist")
    published = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
    assert download._expected_md5(source, "train-images-idx3-ubyte.gz") == published
    with dataset.override_checksums({key: "A" * 32}):
        assert download._expected_md5(source, "train-images-idx3-ubyte.gz") == "a" * 32
        with dataset.override_checksums({key: "b" * 32}):
            assert download._expected_md5(source, "train-images-idx3-ubyte.gz") == "b" * 32
        assert download._expected_md5(source, "train-images-idx3-ubyte.gz") == "a" * 32
    assert download._expected_md5(source, "train-images-idx3-ubyte.gz") == published
    with pytest.raises(ValueError, match="keys are '<data set>/<file>'"):
        with dataset.override_checksums({"train.gz": "a" * 32}):
            pass
    with pytest.raises(ValueError, match="'train.gz' is not a file of the MNIST data set"):
        with dataset.override_checksums({"mnist/train.gz": "a" * 32}):
            pass
    with pytest.raises(ValueError, match="must map to an MD5 hex digest"):
        with dataset.override_checksums({key: "123"}):
            pass
    with dataset.override_checksums({"cifar/cifar-100-python/train": "c" * 32}):
        assert download._expected_md5(download._sources.get("cifar"), "cifar-100-python/train") == "c" * 32


def test_every_published_checksum_is_an_md5():
    for source in download._sources.SOURCES.values():
        digests = [d for d in source.md5.values() if d is not None]
        digests += [d for members in source.members.values() for d in members.values()]
        for digest in digests:
            assert len(digest) == 32 and int(digest, 16) >= 0
    assert set(download._sources.SOURCES["ptb"].md5.values()) == {None}


# -- complete downloads only (issue 23) --------------------------------------------------------


def cache_entries(dataset_root):
    """Everything in the download cache but the lock files."""
    return sorted(p.name for p in (dataset_root / "_dl_cache").iterdir() if not p.name.endswith(".lock"))


def test_cached_download_refuses_a_download_cut_short(file_server, dataset_root, truncated):
    body = bytes(range(256)) * 64
    server = file_server({"/big.bin": truncated(body[:5000], len(body))})
    url = server.url + "/big.bin"
    with pytest.raises(dataset.IncompleteDownloadError) as info:
        dataset.cached_download(url)
    error = info.value
    # What Chainer 7.8.1 raised, with the URL and both byte counts.
    assert isinstance(error, urllib.error.ContentTooShortError)
    assert isinstance(error, dataset.DownloadError)
    assert (error.url, error.expected, error.received) == (url, len(body), 5000)
    assert url in str(error) and f"announced {len(body)} bytes" in str(error) and "sent 5000" in str(error)
    assert cache_entries(dataset_root) == []

    # Nothing was cached: once the server sends the whole file, it is downloaded.
    server.files["/big.bin"] = body
    assert pathlib.Path(dataset.cached_download(url)).read_bytes() == body
    assert server.requests == ["/big.bin", "/big.bin"]


@pytest.mark.parametrize("status", [404, 500])
def test_cached_download_http_error_names_status_and_url(file_server, dataset_root, status):
    server = file_server({"/f": status})
    url = server.url + "/f"
    with pytest.raises(dataset.DownloadError, match=rf"could not download {url}: HTTPError: status {status} "):
        dataset.cached_download(url)
    assert cache_entries(dataset_root) == []


def test_cached_download_checks_length_of_a_patched_urlretrieve(dataset_root, monkeypatch):
    # An offline stand-in for urlretrieve that returns headers but writes less than they
    # announce is caught too (urllib's own urlretrieve checks; a replacement may not).
    def short_urlretrieve(url, path):
        pathlib.Path(path).write_bytes(b"abc")
        return path, {"Content-Length": "10"}

    monkeypatch.setattr("urllib.request.urlretrieve", short_urlretrieve)
    with pytest.raises(dataset.IncompleteDownloadError, match="announced 10 bytes .* sent 3"):
        dataset.cached_download("https://example.invalid/short")
    assert cache_entries(dataset_root) == []


def test_concrete_data_set_download_cut_short_caches_nothing(file_server, dataset_root, truncated):
    # PTB has no published checksum: without the length check the first, truncated
    # download would be cached and its SHA-256 recorded as the reference.
    text = b" the cat sat \n" * 100
    server = file_server({"/p/ptb.train.txt": truncated(text[:700], len(text))})
    dataset.set_dataset_mirror("ptb", server.url + "/p")
    with pytest.raises(dataset.IncompleteDownloadError) as info:
        download.fetch("ptb", "ptb.train.txt", "get_ptb_words")
    assert isinstance(info.value, urllib.error.ContentTooShortError)
    assert (info.value.expected, info.value.received) == (len(text), 700)
    assert "get_ptb_words: could not get 'ptb.train.txt'" in str(info.value)
    assert f"{server.url}/p/ptb.train.txt: incomplete, the server announced {len(text)} bytes but sent 700" in str(
        info.value
    )
    assert cache_entries(dataset_root) == []

    server.files["/p/ptb.train.txt"] = text
    path = download.fetch("ptb", "ptb.train.txt", "get_ptb_words")
    assert pathlib.Path(path).read_bytes() == text
    assert pathlib.Path(path + ".sha256").read_text().strip() == hashlib.sha256(text).hexdigest()


def test_concrete_data_set_http_error_names_status_and_url(file_server, dataset_root):
    server = file_server({"/m/train-images-idx3-ubyte.gz": 500})
    dataset.set_dataset_mirror("mnist", server.url + "/m")
    with pytest.raises(dataset.DownloadError) as info:
        download.fetch("mnist", "train-images-idx3-ubyte.gz", "get_mnist")
    assert not isinstance(info.value, dataset.IncompleteDownloadError)
    assert f"tried {server.url}/m/train-images-idx3-ubyte.gz: HTTPError: status 500 " in str(info.value)
    assert cache_entries(dataset_root) == []


def test_stale_temporary_files_of_killed_downloads_are_removed(file_server, dataset_root):
    # A killed download or conversion leaves its temporary; the next download into the
    # folder removes those nobody has written to for an hour, and leaves younger ones
    # (maybe in progress) and files that are not ours.
    cache = dataset_root / "_dl_cache"
    cache.mkdir(parents=True)
    stale, fresh = cache / ".0123abcd.k1ll3d.chainer-tmp", cache / ".4567ef01.running.chainer-tmp"
    stale_dir = cache / ".train.npz.x9.chainer-tmp"
    for path in (stale, fresh):
        path.write_bytes(b"partial")
    stale_dir.mkdir()
    (stale_dir / "train.npz").write_bytes(b"partial")
    two_hours_ago = time.time() - 7200
    other = cache / ".user-file.tmp"
    other.write_bytes(b"not ours")
    for path in (stale, stale_dir / "train.npz", stale_dir, other):
        os.utime(path, (two_hours_ago, two_hours_ago))

    server = file_server({"/a": b"data"})
    dataset.cached_download(server.url + "/a")
    assert not stale.exists() and not stale_dir.exists()
    assert fresh.exists() and other.exists()
