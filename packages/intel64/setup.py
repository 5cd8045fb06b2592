"""The C++ extension of chainer-intel64 (everything else is in pyproject.toml).

oneDNN comes from PyPI: ``onednn-devel-cpu-gomp`` puts its headers in ``<prefix>/include``
and ``onednn-cpu-gomp`` puts ``libdnnl.so.3`` in ``<prefix>/lib`` (wheel "data" files, so
``<prefix>`` is the environment that pip installed them into: the build environment under
build isolation, the venv otherwise). Both are located through their installed metadata,
not guessed.

At run time the extension finds ``libdnnl.so.3`` in two ways (see README.md, "How the
library is found"): an rpath ``$ORIGIN/../../..``, which is ``<prefix>/lib`` for a wheel
installed into a venv, a ``--user`` or a system site-packages; and, whatever the layout
(editable installs, a ``--target`` folder), :mod:`chainer_intel64._library` loads the
library by its located path before importing the extension.
"""

import importlib.metadata
import pathlib
import sys

from setuptools import Extension, setup


def _located(distribution: str, suffix: str) -> pathlib.Path:
    """The installed file of ``distribution`` whose path ends with ``suffix`` (its RECORD
    names the data files relative to site-packages: ``../../libdnnl.so.3``)."""
    try:
        dist = importlib.metadata.distribution(distribution)
    except importlib.metadata.PackageNotFoundError:
        sys.exit(f"chainer-intel64: building needs {distribution}==2023.2.0 (pip install {distribution}==2023.2.0)")
    for file in dist.files or ():
        if file.as_posix().endswith(suffix):
            return pathlib.Path(dist.locate_file(file)).resolve()
    sys.exit(f"chainer-intel64: {distribution} is installed but has no {suffix}")


header = _located("onednn-devel-cpu-gomp", "oneapi/dnnl/dnnl.hpp")
library = _located("onednn-cpu-gomp", "/libdnnl.so.3")
include_dir = header.parent.parent.parent
library_dir = library.parent

setup(
    ext_modules=[
        Extension(
            "chainer_intel64._dnnl",
            sources=[
                "csrc/module.cpp",
                "csrc/common.cpp",
                "csrc/convolution.cpp",
                "csrc/inner_product.cpp",
                "csrc/pooling.cpp",
                "csrc/eltwise.cpp",
                "csrc/normalization.cpp",
            ],
            depends=["csrc/common.hpp"],
            include_dirs=[str(include_dir)],
            library_dirs=[str(library_dir)],
            # libdnnl.so is a copy of libdnnl.so.3 in the wheel; link to the SONAME'd file.
            extra_link_args=[f"-l:{library.name}", "-Wl,-rpath,$ORIGIN/../../.."],
            extra_compile_args=["-O2", "-std=c++17", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            language="c++",
        )
    ]
)
