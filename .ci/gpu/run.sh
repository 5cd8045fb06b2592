#!/bin/bash
# Device check (issues 18 and 21): our gpu-marked tests, then Chainer 7.8.1's GPU tests
# (the marker expression of shared/compat's README) on CuPy, both with 16 pytest workers.
# Needs .gpu/ from prepare.sh; writes ours.log, compat_gpu.log and compat_gpu.jsonl.gz
# (one JSON line per outcome) to $OUT. About 4 minutes on an H200.
set -u
export PYTHONUNBUFFERED=1
ROOT=$(pwd)
T_OURS=${T_OURS:-120}
T_COMPAT=${T_COMPAT:-380}
NPROC=${NPROC:-16}
PY=${PY:-python3}
t0=$(date +%s)
[ -n "${SKIP_INSTALL:-}" ] || $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .gpu/whl/*.whl 2>&1 | tail -3
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$PY -c "import chainer, cupy, numpy; from chainer.backends import cuda; print('chainer', chainer.__version__, chainer.__file__, 'cupy', cupy.__version__, 'numpy', numpy.__version__, 'cuda available', cuda.available)" || [ -n "${SKIP_INSTALL:-}" ] || exit 1
echo "install: $(( $(date +%s) - t0 ))s"
# 1) our own gpu-marked tests
t1=$(date +%s)
cd "$ROOT"
timeout -s INT -k 20 "$T_OURS" $PY -m pytest -q -n "$NPROC" -m gpu -p no:cacheprovider -p no:benchmark --tb=line tests/ > "$OUT/ours.log" 2>&1
echo "ours rc=$? $(( $(date +%s) - t1 ))s"; tail -n 25 "$OUT/ours.log"
# 2) Chainer 7.8.1's GPU tests (marker expression of shared/compat's README)
t2=$(date +%s)
cd "$ROOT/.gpu/ct" && mkdir -p /tmp/ctds /tmp/cttmp
# Two modules put function reprs (addresses) into test ids, which xdist's workers then
# collect differently: they run in a process of their own beside the xdist run.
SERIAL="tests/chainer_tests/links_tests/connection_tests/test_mlp_convolution_2d.py tests/chainer_tests/links_tests/model_tests/test_classifier.py"
IGN=""; for f in $SERIAL; do IGN="$IGN --ignore=$f"; done
export PYTHONPATH="$ROOT/.gpu" PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 \
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 CHAINER_TEST_PAIRWISE_PARAMETERIZATION=never \
  CHAINER_DATASET_ROOT=/tmp/ctds MPLBACKEND=Agg TMPDIR=/tmp/cttmp PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python
MARKS="gpu and not (chainerx or multi_gpu or slow or theano)"
COMMON="-c pytest.ini --rootdir . -p no:cacheprovider -p no:benchmark -p gpu_report --timeout 90 -q --tb=no -rN --continue-on-collection-errors"
GPU_REPORT_FILE="$OUT/compat_serial.jsonl" timeout -s INT -k 30 "$T_COMPAT" $PY -m pytest $COMMON \
    -m "$MARKS" -k "not use_chainerx_true" $SERIAL > "$OUT/compat_serial.log" 2>&1 &
GPU_REPORT_FILE="$OUT/compat_gpu.jsonl" timeout -s INT -k 30 "$T_COMPAT" $PY -m pytest $COMMON -n "$NPROC" \
    -m "$MARKS" -k "not use_chainerx_true" $IGN ${COMPAT_TARGETS:-tests/chainer_tests} > "$OUT/compat_gpu.log" 2>&1
rc=$?; wait
tail -n 3 "$OUT/compat_serial.log"; cat "$OUT/compat_serial.jsonl" >> "$OUT/compat_gpu.jsonl"; rm -f "$OUT/compat_serial.jsonl"
echo "compat rc=$rc $(( $(date +%s) - t2 ))s"; tail -n 5 "$OUT/compat_gpu.log"
gzip -f "$OUT/compat_gpu.jsonl" 2>/dev/null; ls -la "$OUT"
