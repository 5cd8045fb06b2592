"""Penn Treebank (word level, as preprocessed by Mikolov et al.): language-modelling text.

The files have no published checksum: their SHA-256 is recorded at the first download
and the cached copies are verified against it afterwards.
"""

from __future__ import annotations

import os

import numpy

from chainer.dataset import download

_FILES = {"train": "ptb.train.txt", "valid": "ptb.valid.txt", "test": "ptb.test.txt"}
_DIRECTORY = "pfnet/chainer/ptb"


def _load_words(split: str, caller: str) -> list[str]:
    path = download.fetch("ptb", _FILES[split], caller)
    words: list[str] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words.extend(line.split())
            words.append("<eos>")
    return words


def _retrieve_vocabulary(caller: str) -> dict[str, int]:
    path = os.path.join(download.get_dataset_directory(_DIRECTORY), "vocab.txt")

    def creator(temp_path: str) -> dict[str, int]:
        vocabulary: dict[str, int] = {}
        for word in _load_words("train", caller):
            vocabulary.setdefault(word, len(vocabulary))
        with open(temp_path, "w", encoding="utf-8") as f:
            f.writelines(f"{word}\n" for word in vocabulary)
        return vocabulary

    def loader(path: str) -> dict[str, int]:
        with open(path, encoding="utf-8") as f:
            return {line.strip(): i for i, line in enumerate(f)}

    return download.cache_or_load_file(path, creator, loader)


def _retrieve_words(split: str, caller: str) -> numpy.ndarray:
    path = os.path.join(download.get_dataset_directory(_DIRECTORY), f"{split}.npz")

    def creator(temp_path: str) -> dict[str, numpy.ndarray]:
        vocabulary = _retrieve_vocabulary(caller)
        words = _load_words(split, caller)
        unknown = sorted({w for w in words if w not in vocabulary})
        if unknown:
            raise ValueError(
                f"{caller}: {_FILES[split]} has words that are not in the training vocabulary: {unknown[:10]}"
            )
        x = numpy.fromiter((vocabulary[w] for w in words), numpy.int32, len(words))
        numpy.savez_compressed(temp_path, x=x)
        return {"x": x}

    return download.cache_or_load_file(path, creator, download.load_npz)["x"]


def get_ptb_words() -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """Gets the Penn Tree Bank dataset as long word sequences.

    Each split is one long sequence of word IDs (``int32``): the lines of the file, each
    followed by the end-of-sentence word ``<eos>``. IDs come from
    :func:`get_ptb_words_vocabulary`. Cached under the dataset root as
    ``pfnet/chainer/ptb/{train,valid,test}.npz``.

    Returns:
        ``(train, valid, test)``: arrays of about 930,000, 74,000 and 82,000 word IDs.
    """
    return (
        _retrieve_words("train", "get_ptb_words"),
        _retrieve_words("valid", "get_ptb_words"),
        _retrieve_words("test", "get_ptb_words"),
    )


def get_ptb_words_vocabulary() -> dict[str, int]:
    """Gets the Penn Tree Bank word vocabulary.

    Words are numbered in the order they first appear in the training file (10,000
    words, ``<eos>`` included). Cached as ``pfnet/chainer/ptb/vocab.txt`` (one word per
    line, in ID order).

    Returns:
        A dict from word to ID.
    """
    return _retrieve_vocabulary("get_ptb_words_vocabulary")
