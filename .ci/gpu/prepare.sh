#!/bin/bash
# Prepares the device checks (run here, on the CPU machine, from the repository root):
# wheels of our distributions and of `mock` (the compat suite imports it; the GPU image
# lacks it), and a copy of Chainer 7.8.1's test suite from ../shared/compat with the
# harness's conftest files, all under .gpu/ (ignored by git; `run` carries it).
# Then: run(command="bash .ci/gpu/run.sh", carry=[".gpu"]) with the device tool (or cudnn.sh,
# or session.sh, which takes its parts from the environment: smoke scripts, test paths, the
# gpu-marked suite with and without chainer-cudnn, benchmarks). session.sh force-reinstalls
# the wheels: a machine kept warm between calls may hold an older build of the same version.
set -eu
PY=${PY:-python3}
SHARED=${CHAINER_SHARED_DIR:-../shared}
grep -qx "/.gpu/" .git/info/exclude 2>/dev/null || echo "/.gpu/" >> .git/info/exclude
rm -rf .gpu && mkdir -p .gpu/whl
"$PY" -m pip wheel -q --no-deps --no-build-isolation -w .gpu/whl packages/core packages/links \
    packages/datasets packages/training packages/distributed packages/onnx-export packages/cudnn tests/plugins/*
# chainer-cudnn's cuDNN frontend, for the device's Python 3.12 (its cuDNN 9 comes with the image).
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 -d .gpu/whl "nvidia-cudnn-frontend==1.32.0"
"$PY" -m pip download -q --no-deps --only-binary=:all: -d .gpu/whl mock
cp .ci/gpu/gpu_report.py .gpu/
if [ -d "$SHARED/compat/chainer-7.8.1/tests" ]; then
    mkdir -p .gpu/ct
    cp -r "$SHARED/compat/chainer-7.8.1/tests" .gpu/ct/tests
    find .gpu/ct -name __pycache__ -prune -exec rm -rf {} +
    cp "$SHARED/compat/harness/conftest_tests.py" .gpu/ct/tests/conftest.py
    cp "$SHARED/compat/harness/conftest_chainer_tests.py" .gpu/ct/tests/chainer_tests/conftest.py
    cp "$SHARED/compat/harness/pytest.ini" .gpu/ct/pytest.ini
fi
du -sh .gpu
