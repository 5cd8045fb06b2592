#!/bin/bash
# Device check of issue 21 (chainer-cudnn): install the wheels of prepare.sh, a smoke test
# of the cuDNN path, the cuDNN tests, our gpu-marked tests with the plugin (and, with
# WITHOUT=1, without it), and benchmarks/gpu.py. Writes its logs to $OUT.
# Environment: T_SMOKE, T_CUDNN, T_OURS, T_BENCH (seconds), BENCH (workloads), OURS=0 skips
# the gpu-marked suites, NPROC (pytest workers).
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
NPROC=${NPROC:-16}
t0=$(date +%s)
$PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .gpu/whl/*.whl 2>&1 | tail -3
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$PY -m pip list 2>/dev/null | grep -iE "^(cupy|nvidia-cudnn|numpy|torch) " | tr '\n' ';'; echo
$PY -m chainer doctor 2>&1 | grep -E "^(cuDNN|CuPy|CUDA)"
echo "install: $(( $(date +%s) - t0 ))s"
timeout -k 10 "${T_SMOKE:-90}" $PY .ci/gpu/cudnn_smoke.py > "$OUT/smoke.log" 2>&1; echo "smoke rc=$?"; cat "$OUT/smoke.log" | tail -60
t1=$(date +%s)
timeout -s INT -k 20 "${T_CUDNN:-120}" $PY -m pytest -q -n 8 -p no:cacheprovider -p no:benchmark --tb=short tests/cudnn_tests > "$OUT/cudnn_tests.log" 2>&1
echo "cudnn tests rc=$? $(( $(date +%s) - t1 ))s"; grep -E "^(FAILED|ERROR)" "$OUT/cudnn_tests.log" | head -30; tail -n 3 "$OUT/cudnn_tests.log"
if [ "${OURS:-1}" = 1 ]; then
  t1=$(date +%s)
  timeout -s INT -k 20 "${T_OURS:-120}" $PY -m pytest -q -n "$NPROC" -m gpu -p no:cacheprovider -p no:benchmark --tb=line tests/ > "$OUT/ours_cudnn.log" 2>&1
  echo "ours with cudnn rc=$? $(( $(date +%s) - t1 ))s"; grep -E "^(FAILED|ERROR)" "$OUT/ours_cudnn.log" | head -20; tail -n 2 "$OUT/ours_cudnn.log"
  if [ "${WITHOUT:-0}" = 1 ]; then
    t1=$(date +%s)
    CHAINER_DISABLE_PLUGINS=cpu_kernels,cudnn timeout -s INT -k 20 "${T_OURS:-120}" $PY -m pytest -q -n "$NPROC" -m gpu -p no:benchmark \
      -p no:cacheprovider --tb=line tests/ > "$OUT/ours_plain.log" 2>&1
    echo "ours without cudnn rc=$? $(( $(date +%s) - t1 ))s"; grep -E "^(FAILED|ERROR)" "$OUT/ours_plain.log" | head -20; tail -n 2 "$OUT/ours_plain.log"
  fi
fi
t1=$(date +%s)
timeout -k 10 "${T_BENCH:-150}" $PY benchmarks/gpu.py ${BENCH:-cnn cnn_large mlp overhead resnet50} > "$OUT/bench.log" 2>&1
echo "bench rc=$? $(( $(date +%s) - t1 ))s"; cat "$OUT/bench.log"
echo "total: $(( $(date +%s) - t0 ))s"
