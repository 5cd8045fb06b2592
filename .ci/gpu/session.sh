#!/bin/bash
# One device check of issue 21, as a list of parts chosen by the environment (run from the
# repository root on the device, after prepare.sh here; logs go to $OUT):
#   SMOKES="a b"    .ci/gpu/smoke_a.py ... (each at most T_SMOKE seconds)
#   TESTS="paths"   pytest on those paths (gpu-marked and not), at most T_TESTS seconds
#   FULL=1          the whole gpu-marked suite with chainer-cudnn, and without it (FULL=2 both)
#   BENCH="names"   benchmarks/gpu.py workloads, at most T_BENCH seconds
#   CENSUS="names"  benchmarks/gpu_census.py: the host budget, then kernels per step of those workloads
#   EXTRA="cmd"     one more shell command, run last
set -u
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
t0=$(date +%s)
$PY -m pip install -q --force-reinstall --no-index --no-deps --no-compile --no-cache-dir .gpu/whl/*.whl 2>&1 | tail -3
$PY -c "import chainer.backends._cuda_blas" || echo "THE WHEELS DID NOT INSTALL"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
$PY -c "import cupy, numpy; print('cupy', cupy.__version__, 'cuda', cupy.cuda.runtime.runtimeGetVersion(), 'numpy', numpy.__version__)"
echo "install: $(( $(date +%s) - t0 ))s"
for s in ${SMOKES:-}; do
  t1=$(date +%s)
  timeout -k 5 "${T_SMOKE:-40}" $PY ".ci/gpu/smoke_$s.py" > "$OUT/smoke_$s.log" 2>&1
  echo "== smoke $s rc=$? $(( $(date +%s) - t1 ))s"; tail -n 25 "$OUT/smoke_$s.log"
done
if [ -n "${TESTS:-}" ]; then
  t1=$(date +%s)
  timeout -s INT -k 20 "${T_TESTS:-150}" $PY -m pytest -q -n "${NPROC:-8}" -p no:cacheprovider -p no:benchmark \
    --tb=short $TESTS > "$OUT/tests.log" 2>&1
  echo "== tests rc=$? $(( $(date +%s) - t1 ))s"; grep -E "^(FAILED|ERROR)" "$OUT/tests.log" | head -40; tail -n 3 "$OUT/tests.log"
fi
if [ "${FULL:-0}" != 0 ]; then
  t1=$(date +%s)
  timeout -s INT -k 20 "${T_FULL:-170}" $PY -m pytest -q -n 16 -m gpu -p no:cacheprovider -p no:benchmark \
    --tb=line tests/ > "$OUT/full_cudnn.log" 2>&1
  echo "== gpu suite with cudnn rc=$? $(( $(date +%s) - t1 ))s"; grep -E "^(FAILED|ERROR)" "$OUT/full_cudnn.log" | head -30; tail -n 2 "$OUT/full_cudnn.log"
  if [ "${FULL}" = 2 ]; then
    t1=$(date +%s)
    CHAINER_DISABLE_PLUGINS=cpu_kernels,cudnn timeout -s INT -k 20 "${T_FULL:-170}" $PY -m pytest -q -n 16 -m gpu \
      -p no:cacheprovider -p no:benchmark --tb=line tests/ > "$OUT/full_plain.log" 2>&1
    echo "== gpu suite without cudnn rc=$? $(( $(date +%s) - t1 ))s"; grep -E "^(FAILED|ERROR)" "$OUT/full_plain.log" | head -20; tail -n 2 "$OUT/full_plain.log"
  fi
fi
if [ -n "${BENCH:-}" ]; then
  t1=$(date +%s)
  timeout -k 10 "${T_BENCH:-150}" $PY benchmarks/gpu.py $BENCH > "$OUT/bench.log" 2>&1
  echo "== bench rc=$? $(( $(date +%s) - t1 ))s"; cat "$OUT/bench.log"
fi
if [ -n "${CENSUS:-}" ]; then
  t1=$(date +%s)
  { timeout -k 10 "${T_CENSUS:-120}" $PY benchmarks/gpu_census.py budget
    timeout -k 10 "${T_CENSUS:-120}" $PY benchmarks/gpu_census.py kernels $CENSUS; } > "$OUT/census.log" 2>&1
  echo "== census rc=$? $(( $(date +%s) - t1 ))s"; cat "$OUT/census.log"
fi
if [ -n "${EXTRA:-}" ]; then
  t1=$(date +%s)
  bash -c "$EXTRA" > "$OUT/extra.log" 2>&1
  echo "== extra rc=$? $(( $(date +%s) - t1 ))s"; tail -n 60 "$OUT/extra.log"
fi
echo "total: $(( $(date +%s) - t0 ))s"
