"""The C extension of chainer-cpu-kernels (everything else is in pyproject.toml).

The kernels are plain C loops written so that GCC and Clang vectorise them. The wheel
must run on any x86-64 (or other) CPU, so no -march=native: on x86-64 the hot loops are
compiled twice through ``target_clones`` (AVX2+FMA and the baseline) and the loader
picks the variant for the CPU at hand. ``-fno-math-errno`` lets ``sqrt`` vectorise, and
``-fno-trapping-math`` lets a loop compute both sides of a floating-point select (the
clamps of csrc/fastmath.h), which only gives up raising floating-point exception flags
nobody reads; no other fast-math flag is used (no reassociation, no contraction), so the
results follow IEEE rounding like NumPy's.
"""

import sys

from setuptools import Extension, setup

if sys.platform == "win32":
    compile_args = ["/O2"]
else:
    compile_args = [
        "-O3",
        "-fno-math-errno",
        "-fno-trapping-math",
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
    ]

setup(
    ext_modules=[
        Extension(
            "chainer_cpu_kernels._ops",
            sources=[
                "csrc/module.c",
                "csrc/optimizers.c",
                "csrc/pooling.c",
                "csrc/activation.c",
                "csrc/im2col.c",
                "csrc/rnn.c",
                "csrc/loss.c",
                "csrc/embed.c",
                "csrc/blas.c",
            ],
            depends=["csrc/kernels.h", "csrc/fastmath.h"],
            extra_compile_args=compile_args,
            # dlopen/dlsym (csrc/blas.c): in libc from glibc 2.34, in libdl before.
            libraries=["dl"] if sys.platform.startswith("linux") else [],
        )
    ]
)
