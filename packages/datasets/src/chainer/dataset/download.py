"""Download, verify and cache data set files under the dataset root.

Layout (the same as Chainer 7, so an existing cache is reused)::

    <root>/_dl_cache/<md5 of the URL>           raw downloads (cached_download)
    <root>/pfnet/chainer/<name>/<file>.npz      converted arrays (cache_or_load_file)

The root is ``$CHAINER_DATASET_ROOT``, else ``~/.chainer/dataset``; ``set_dataset_root``
overrides both. Every cache file appears atomically (written to a temporary file in the
same directory, then ``os.replace``), under an inter-process file lock, so processes that
load a data set at the same time all succeed and download it once. A download that ends
before the length its server announced (``Content-Length``) raises
:class:`IncompleteDownloadError` and caches nothing. Temporaries are made by
:func:`chainer.utils.make_temporary`: those that a killed process left behind are removed
by a later download or conversion into the same folder once nobody has written to them
for an hour.

The concrete data sets (``chainer.datasets.get_mnist`` and friends) are verified against
the MD5 their publishers list before anything is cached or parsed, and can be served
from a mirror: see :func:`set_dataset_mirror`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from http.client import HTTPException
from typing import Any, TypeVar

from chainer import utils
from chainer.dataset import _filelock, _sources

__all__ = [
    "ChecksumError",
    "DownloadError",
    "IncompleteDownloadError",
    "cache_or_load_file",
    "cached_download",
    "get_dataset_directory",
    "get_dataset_root",
    "override_checksums",
    "set_dataset_mirror",
    "set_dataset_root",
]

_T = TypeVar("_T")

_ROOT_ENV = "CHAINER_DATASET_ROOT"
_MIRROR_ENV = "CHAINER_DATASET_MIRROR"
_DOWNLOAD_TIMEOUT = 60.0
_CHUNK = 1 << 20

_dataset_root: str | None = None
# Mirror base URLs set by set_dataset_mirror: data set name (None: all) -> base URL.
_mirrors: dict[str | None, str] = {}
# Expected MD5s set by override_checksums: '<name>/<file or member>' -> MD5.
_checksum_overrides: dict[str, str] = {}


class DownloadError(OSError):
    """A data set file could not be downloaded (and no valid cached copy exists)."""


class ChecksumError(DownloadError):
    """A downloaded or cached data set file does not match its expected checksum."""


class IncompleteDownloadError(DownloadError, urllib.error.ContentTooShortError):
    """The server closed the connection before it sent the bytes it announced.

    Also a ``urllib.error.ContentTooShortError``, which is what Chainer 7 raised. Nothing
    of the download is kept.

    Attributes:
        url (str): The URL (of the last incomplete download, for a data set file tried at
            several URLs).
        expected (int): The length the server announced (``Content-Length``).
        received (int): The bytes it sent.
    """

    def __init__(self, message: str, url: str, expected: int, received: int) -> None:
        urllib.error.ContentTooShortError.__init__(self, message, None)
        self.url = url
        self.expected = expected
        self.received = received

    def __str__(self) -> str:
        # URLError would wrap the message in '<urlopen error ...>'.
        return str(self.reason)


# ----------------------------------------------------------------------------- the root


def get_dataset_root() -> str:
    """Gets the path to the root directory to download and cache datasets.

    Returns:
        The path set by :func:`set_dataset_root`, else ``$CHAINER_DATASET_ROOT``, else
        ``~/.chainer/dataset``.
    """
    if _dataset_root is not None:
        return _dataset_root
    env = os.environ.get(_ROOT_ENV)
    if env:
        return os.path.expanduser(env)
    return os.path.join(os.path.expanduser("~"), ".chainer", "dataset")


def set_dataset_root(path: str | os.PathLike[str] | None) -> None:
    """Sets the root directory to download and cache datasets.

    Args:
        path: The new root directory; ``None`` goes back to ``$CHAINER_DATASET_ROOT`` or
            the default ``~/.chainer/dataset``.
    """
    global _dataset_root
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"set_dataset_root: path must be a str or os.PathLike, got {type(path).__name__}")
    _dataset_root = None if path is None else os.fspath(path)


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """Gets the path to the directory of a dataset: ``<root>/<dataset_name>``.

    Args:
        dataset_name: A relative path such as ``'pfnet/chainer/mnist'``.
        create_directory: Create the directory (and its parents) if it does not exist.

    Returns:
        The path of the directory.
    """
    if not isinstance(dataset_name, str) or not dataset_name:
        raise TypeError(f"get_dataset_directory: dataset_name must be a non-empty str, got {dataset_name!r}")
    path = os.path.join(get_dataset_root(), dataset_name)
    if create_directory:
        try:
            os.makedirs(path, exist_ok=True)
        except OSError as exc:
            raise OSError(f"get_dataset_directory: cannot create the dataset directory {path}: {exc}") from exc
    return path


# ------------------------------------------------------------------------------ mirrors


def _env_name(name: str) -> str:
    return f"{_MIRROR_ENV}_{name.upper().replace('-', '_')}"


def set_dataset_mirror(name: str | None, base_url: str | None) -> str | None:
    """Serve the files of the concrete data sets from a mirror instead of their publishers.

    Files are verified against the published checksums wherever they come from, so a
    mirror only needs to hold copies of the original files.

    Args:
        name: A data set: ``'mnist'``, ``'fashion-mnist'``, ``'kuzushiji-mnist'``,
            ``'cifar'``, ``'svhn'`` or ``'ptb'``; its files are fetched from
            ``<base_url>/<file name>`` (e.g. ``<base_url>/train-images-idx3-ubyte.gz``).
            ``None`` sets one mirror for all data sets, laid out as
            ``<base_url>/<name>/<file name>``.
        base_url: An ``http(s)://`` or ``file://`` URL, or ``None`` to remove the setting.

    Returns:
        The previous setting (``None`` if there was none), to restore it later.

    A setting made here takes precedence over the environment variables
    ``CHAINER_DATASET_MIRROR_<NAME>`` (one data set, e.g. ``CHAINER_DATASET_MIRROR_FASHION_MNIST``)
    and ``CHAINER_DATASET_MIRROR`` (all data sets), which work the same way. A per-data-set
    mirror wins over an all-data-sets one. With a mirror set, the publishers' servers are
    not contacted.

    Example:
        >>> old = chainer.dataset.set_dataset_mirror(None, 'https://datasets.example.org/chainer')
        >>> train, test = chainer.datasets.get_mnist()  # doctest: +SKIP
        >>> chainer.dataset.set_dataset_mirror(None, old)  # restore the previous setting
        'https://datasets.example.org/chainer'

        (``get_mnist`` would download from ``.../chainer/mnist/...``; the doc tests skip
        that line.)
    """
    if name is not None:
        _sources.get(name)
    if base_url is not None:
        if not isinstance(base_url, str) or not re.match(r"^(https?|file|ftp)://", base_url):
            raise ValueError(
                f"set_dataset_mirror: base_url must be an http(s)://, ftp:// or file:// URL, got {base_url!r}"
            )
    previous = _mirrors.get(name)
    if base_url is None:
        _mirrors.pop(name, None)
    else:
        _mirrors[name] = base_url
    return previous


def _join_url(base: str, *parts: str) -> str:
    return "/".join([base.rstrip("/"), *parts])


def _candidate_urls(source: _sources.Source, filename: str) -> tuple[list[str], str | None]:
    """The URLs to try for a file, and a description of the mirror setting used (if any)."""
    per_dataset = _mirrors.get(source.name)
    if per_dataset is not None:
        return [_join_url(per_dataset, filename)], f"set_dataset_mirror({source.name!r}, ...)"
    env = os.environ.get(_env_name(source.name))
    if env:
        return [_join_url(env, filename)], f"${_env_name(source.name)}"
    everything = _mirrors.get(None)
    if everything is not None:
        return [_join_url(everything, source.name, filename)], "set_dataset_mirror(None, ...)"
    env = os.environ.get(_MIRROR_ENV)
    if env:
        return [_join_url(env, source.name, filename)], f"${_MIRROR_ENV}"
    return [base + filename for base in source.base_urls], None


# ---------------------------------------------------------------------------- checksums


_MD5_RE = re.compile(r"^[0-9a-f]{32}$")


@contextlib.contextmanager
def override_checksums(checksums: Mapping[str, str]) -> Iterator[None]:
    """Replace the expected MD5 of concrete data set files inside a ``with`` block.

    Meant for tests that serve small stand-in files, and for a mirror that deliberately
    serves different content. Overrides nest; the previous ones come back on exit.

    Args:
        checksums: ``'<name>/<file>'`` -> MD5 hex digest, e.g.
            ``{'mnist/train-images-idx3-ubyte.gz': '0123...'}``. Members of an archive are
            named by their path in it: ``'cifar/cifar-10-batches-py/data_batch_1'``.

    Example:
        A stand-in PTB served from the current folder, cached under a throwaway data set
        root so the real cache is untouched:

        >>> import hashlib, pathlib
        >>> text = b'the cat sat'
        >>> for part in ('train', 'valid', 'test'):
        ...     _ = pathlib.Path(f'ptb.{part}.txt').write_bytes(text)
        >>> md5 = hashlib.md5(text).hexdigest()
        >>> old_root = chainer.dataset.get_dataset_root()
        >>> chainer.dataset.set_dataset_root('dataset_root')
        >>> old_mirror = chainer.dataset.set_dataset_mirror('ptb', pathlib.Path.cwd().as_uri())
        >>> files = {f'ptb/ptb.{part}.txt': md5 for part in ('train', 'valid', 'test')}
        >>> with chainer.dataset.override_checksums(files):
        ...     train, val, test = chainer.datasets.get_ptb_words()
        >>> train
        array([0, 1, 2, 3], dtype=int32)
        >>> _ = chainer.dataset.set_dataset_mirror('ptb', old_mirror)
        >>> chainer.dataset.set_dataset_root(old_root)
    """
    checked: dict[str, str] = {}
    for key, digest in checksums.items():
        name, sep, filename = str(key).partition("/")
        if not sep:
            raise ValueError(f"override_checksums: keys are '<data set>/<file>', got {key!r}")
        source = _sources.get(name)
        known = set(source.md5).union(*source.members.values())
        if filename not in known:
            raise ValueError(
                f"override_checksums: {filename!r} is not a file of the {source.title} data set; "
                f"its files are {sorted(known)}"
            )
        if not isinstance(digest, str) or not _MD5_RE.match(digest.lower()):
            raise ValueError(
                f"override_checksums: {key!r} must map to an MD5 hex digest (32 hex digits), got {digest!r}"
            )
        checked[key] = digest.lower()
    saved = dict(_checksum_overrides)
    _checksum_overrides.update(checked)
    try:
        yield
    finally:
        _checksum_overrides.clear()
        _checksum_overrides.update(saved)


def _expected_md5(source: _sources.Source, filename: str) -> str | None:
    key = f"{source.name}/{filename}"
    if key in _checksum_overrides:
        return _checksum_overrides[key]
    published = source.md5.get(filename)
    if published is not None:
        return published
    for members in source.members.values():
        if filename in members:
            return members[filename]
    return None


def verify_member(name: str, member: str, data: bytes, archive: str) -> None:
    """Check the bytes of an archive member against its published MD5 (before parsing it)."""
    source = _sources.get(name)
    expected = _expected_md5(source, member)
    if expected is None:
        return
    actual = hashlib.md5(data).hexdigest()
    if actual != expected:
        raise ChecksumError(
            f"{member} in {archive} of the {source.title} data set has MD5 {actual}, expected {expected}; "
            "the archive is not the published one, so it is not used"
        )


def _file_digest(path: str, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _read_record(record_path: str) -> str | None:
    try:
        with open(record_path, encoding="ascii") as f:
            return f.read().split()[0].lower()
    except (FileNotFoundError, IndexError):
        return None


def _write_atomically(path: str, data: bytes) -> None:
    temp = utils.make_temporary(path)
    try:
        with open(temp, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temp)
        raise


# ---------------------------------------------------------------------------- downloads


_NETWORK_ERRORS = (urllib.error.URLError, HTTPException, OSError, ValueError)


def _announced_length(headers: Any) -> int | None:
    """The ``Content-Length`` of a response, or ``None`` (absent or not a number)."""
    value = headers.get("Content-Length") if headers is not None else None
    try:
        length = int(value)
    except (TypeError, ValueError):
        return None
    return length if length >= 0 else None


def _incomplete(url: str, expected: int, received: int, caller: str) -> IncompleteDownloadError:
    return IncompleteDownloadError(
        f"{caller}: the download of {url} is incomplete: the server announced {expected} bytes (Content-Length) "
        f"but sent {received} before it closed the connection; nothing was cached",
        url,
        expected,
        received,
    )


def _download(url: str, cache_path: str) -> tuple[str, dict[str, str]]:
    """Download ``url`` into a temporary file next to ``cache_path``; return it and its
    digests.

    Raises:
        IncompleteDownloadError: the server sent less than its ``Content-Length``.
    """
    print(f"Downloading from {url}...", file=sys.stderr, flush=True)
    temp = utils.make_temporary(cache_path)
    digests = {"md5": hashlib.md5(), "sha256": hashlib.sha256()}
    received = 0
    try:
        with open(temp, "wb") as out, urllib.request.urlopen(url, timeout=_DOWNLOAD_TIMEOUT) as response:
            expected = _announced_length(response.headers)
            # http.client ends a body cut short at its Content-Length as if it were complete.
            while chunk := response.read(_CHUNK):
                received += len(chunk)
                out.write(chunk)
                for digest in digests.values():
                    digest.update(chunk)
        if expected is not None and received < expected:
            raise _incomplete(url, expected, received, "download")
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temp)
        raise
    return temp, {name: digest.hexdigest() for name, digest in digests.items()}


_URLRETRIEVE = urllib.request.urlretrieve


def _urlretrieve() -> Callable[..., Any]:
    """``urlretrieve``, looked up at each call: tests and offline setups written for
    Chainer 7 patch ``six.moves.urllib.request.urlretrieve`` (the name Chainer 7 called,
    a separate object from ``urllib.request``'s) or ``urllib.request.urlretrieve`` to
    serve files without a network."""
    six = sys.modules.get("six")
    if six is not None:
        # vars(), not getattr: six resolves its names lazily and keeps what it found,
        # so reading it while urllib.request is patched would keep the patch for good.
        patched = vars(six.moves.urllib.request).get("urlretrieve", _URLRETRIEVE)
        if patched is not _URLRETRIEVE:
            return patched
    return urllib.request.urlretrieve


def _retrieve(url: str, cache_path: str) -> str:
    """Download ``url`` into a temporary file next to ``cache_path`` with :func:`_urlretrieve`.

    Raises:
        IncompleteDownloadError: the server sent less than its ``Content-Length``.
    """
    print(f"Downloading from {url}...", file=sys.stderr, flush=True)
    temp = utils.make_temporary(cache_path)
    try:
        try:
            result = _urlretrieve()(url, temp)
        except urllib.error.ContentTooShortError as exc:
            # urlretrieve's own check; its content is (file name, headers).
            headers = exc.content[1] if isinstance(exc.content, tuple) and len(exc.content) == 2 else None
            expected = _announced_length(headers)
            if expected is None:
                raise
            raise _incomplete(url, expected, os.path.getsize(temp), "cached_download") from exc
        # A urlretrieve patched in by a test or an offline setup may not check the length
        # (or return headers at all); check it here whenever a length was announced.
        headers = result[1] if isinstance(result, tuple) and len(result) == 2 else None
        expected = _announced_length(headers)
        received = os.path.getsize(temp)
        if expected is not None and received < expected:
            raise _incomplete(url, expected, received, "cached_download")
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(temp)
        raise
    return temp


def _cache_path(url: str) -> str:
    cache_root = get_dataset_directory("_dl_cache")
    return os.path.join(cache_root, hashlib.md5(url.encode("utf-8")).hexdigest())


def cached_download(url: str) -> str:
    """Downloads a file and caches it.

    The file is stored under ``<root>/_dl_cache/`` (see :func:`set_dataset_root`), keyed
    by the URL; when a cache for the URL exists, its path is returned without
    downloading. The cache file appears atomically, and concurrent calls for one URL (from
    threads or processes) download it once.

    Args:
        url: The URL to download.

    Returns:
        The path of the cached file.

    Raises:
        IncompleteDownloadError: The server closed the connection before it sent the
            ``Content-Length`` it announced (a ``urllib.error.ContentTooShortError``, as in
            Chainer 7); nothing is cached.
        DownloadError: The download failed otherwise (a subclass of ``OSError``; an HTTP
            error names its status code). ``OSError`` is also raised when the cache
            directory cannot be created.
    """
    if not isinstance(url, str):
        raise TypeError(f"cached_download: url must be a str, got {type(url).__name__}")
    cache_path = _cache_path(url)
    if os.path.exists(cache_path):
        return cache_path
    with _filelock.FileLock(cache_path + ".lock"):
        if os.path.exists(cache_path):
            return cache_path
        try:
            temp = _retrieve(url, cache_path)
        except IncompleteDownloadError:
            raise
        except _NETWORK_ERRORS as exc:
            raise DownloadError(f"cached_download: could not download {url}: {_describe_error(exc)}") from exc
        os.replace(temp, cache_path)
    return cache_path


def _describe_error(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTPError: status {exc.code} {exc.reason}"
    reason = getattr(exc, "reason", None)
    return f"{type(exc).__name__}: {reason if reason is not None else exc}"


def _check_cached(path: str, expected_md5: str | None, record_path: str) -> str | None:
    """``None`` if the cached file is valid, else why it is not."""
    if expected_md5 is not None:
        actual = _file_digest(path, "md5")
        if actual == expected_md5:
            return None
        return f"the cached copy {path} has MD5 {actual}, expected {expected_md5}"
    recorded = _read_record(record_path)
    actual = _file_digest(path, "sha256")
    if recorded is None:
        # A cache made before checksums were recorded: trust it now, verify it from now on.
        _write_atomically(record_path, f"{actual}\n".encode("ascii"))
        return None
    if actual == recorded:
        return None
    return f"the cached copy {path} has SHA-256 {actual}, but {recorded} was recorded at its download"


def fetch(name: str, filename: str, caller: str) -> str:
    """Return the path of a verified local copy of a concrete data set file.

    The cached copy is used if it matches the expected checksum (the published MD5, an
    :func:`override_checksums` entry, or the SHA-256 recorded at the first download where
    nothing is published); otherwise the file is downloaded from the mirror setting or
    the publisher and verified before it replaces the cache.

    Args:
        name: The data set (a key of the source table, e.g. ``'mnist'``).
        filename: The file name on the server.
        caller: The public function, for messages.
    """
    source = _sources.get(name)
    if filename not in source.md5:
        raise ValueError(f"{caller}: {filename!r} is not a file of the {source.title} data set")
    cache_path = _cache_path(source.canonical_url(filename))
    expected_md5 = _expected_md5(source, filename)
    record_path = cache_path + ".sha256"
    with _filelock.FileLock(cache_path + ".lock"):
        cache_problem = None
        if os.path.exists(cache_path):
            cache_problem = _check_cached(cache_path, expected_md5, record_path)
            if cache_problem is None:
                return cache_path
        recorded = _read_record(record_path) if expected_md5 is None else None
        urls, mirror_setting = _candidate_urls(source, filename)
        failures: list[str] = []
        mismatch = False
        incomplete: list[IncompleteDownloadError] = []
        for url in urls:
            try:
                temp, digests = _download(url, cache_path)
            except IncompleteDownloadError as exc:
                incomplete.append(exc)
                failures.append(f"{url}: incomplete, the server announced {exc.expected} bytes but sent {exc.received}")
                continue
            except _NETWORK_ERRORS as exc:
                failures.append(f"{url}: {_describe_error(exc)}")
                continue
            problem = None
            if expected_md5 is not None and digests["md5"] != expected_md5:
                problem = f"MD5 {digests['md5']}, expected {expected_md5}"
            elif expected_md5 is None and recorded is not None and digests["sha256"] != recorded:
                problem = f"SHA-256 {digests['sha256']}, but {recorded} was recorded at the first download"
            if problem is not None:
                os.remove(temp)
                mismatch = True
                failures.append(f"{url}: the file has {problem}")
                continue
            if expected_md5 is None:
                _write_atomically(record_path, f"{digests['sha256']}\n".encode("ascii"))
            os.replace(temp, cache_path)
            return cache_path
    error = _fetch_error(source, filename, caller, cache_path, cache_problem, failures, mismatch, mirror_setting)
    if incomplete and len(incomplete) == len(failures):
        last = incomplete[-1]
        raise IncompleteDownloadError(str(error), last.url, last.expected, last.received)
    raise error


def _fetch_error(
    source: _sources.Source,
    filename: str,
    caller: str,
    cache_path: str,
    cache_problem: str | None,
    failures: list[str],
    mismatch: bool,
    mirror_setting: str | None,
) -> DownloadError:
    lines = [f"{caller}: could not get {filename!r} of the {source.title} data set."]
    lines.append(f"  cache: {cache_problem}" if cache_problem else f"  cache: no cached copy at {cache_path}")
    lines += [f"  tried {failure}" for failure in failures]
    if mismatch:
        lines.append(
            "  A file that does not match its expected checksum is refused and not cached "
            "(use chainer.dataset.override_checksums only for files you trust)."
        )
    if mirror_setting is not None:
        lines.append(f"  The URL comes from the mirror setting {mirror_setting}.")
    lines.append(
        f"  Offline? Put the original file at {cache_path}, or serve the files from a mirror: set "
        f"{_env_name(source.name)}=<base URL> (files at <base URL>/{filename}), or {_MIRROR_ENV}=<base URL> "
        f"(files at <base URL>/{source.name}/{filename}), or call chainer.dataset.set_dataset_mirror"
        f"({source.name!r}, <base URL>); file:// URLs work."
    )
    error_class = ChecksumError if mismatch else DownloadError
    return error_class("\n".join(lines))


# ------------------------------------------------------------------------ derived files


def cache_or_load_file(path: str, creator: Callable[[str], _T], loader: Callable[[str], _T]) -> _T:
    """Caches a file if it does not exist, or loads it otherwise.

    If ``path`` exists, returns ``loader(path)``. Otherwise calls ``creator(temp_path)``,
    which must write the file at ``temp_path`` (a fresh path in the same directory, with
    the same file name, that does not exist yet) and return its content; the file is then
    moved to ``path`` atomically and the creator's result is returned. Concurrent calls
    for one path (threads or processes) run the creator once; the others load its file.

    Args:
        path: Where the cached file lives.
        creator: ``creator(temp_path) -> content``.
        loader: ``loader(path) -> content``.

    Returns:
        What the creator or the loader returned.
    """
    path = os.fspath(path)
    if os.path.exists(path):
        return loader(path)
    directory = os.path.dirname(path) or "."
    basename = os.path.basename(path)
    os.makedirs(directory, exist_ok=True)
    with _filelock.FileLock(os.path.join(directory, f".{basename}.lock")):
        if os.path.exists(path):
            return loader(path)
        temp_dir = utils.make_temporary(path, folder=True)
        try:
            temp_path = os.path.join(temp_dir, basename)
            content = creator(temp_path)
            if not os.path.exists(temp_path):
                raise RuntimeError(
                    f"cache_or_load_file: the creator {creator!r} did not write the file at the path it was "
                    f"given ({temp_path}), so nothing can be cached at {path}"
                )
            os.replace(temp_path, path)
        finally:
            shutil.rmtree(temp_dir, ignore_errors=True)
    return content


def load_npz(path: str) -> dict[str, Any]:
    """Load every array of an ``.npz`` file into a dict (no pickles; the file is closed)."""
    import numpy

    with numpy.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}
