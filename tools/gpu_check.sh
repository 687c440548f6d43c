#!/usr/bin/env bash
# Run every package's gpu_check.py on a lent GPU machine, in one call.
#
# Here (no GPU):  bash tools/gpu_check.sh --prepare      # builds the workspace wheels into .gpu/
# There:          bash tools/gpu_check.sh [PKG ...]       # installs .gpu/*.whl over the machine's torch, runs checks
#
# The GPU image brings its own torch/triton/transformers; our packages are pure-Python wheels
# installed with --no-deps on top. Each check writes $OUT/<pkg>.gpu.json and $OUT/<pkg>.log.
set -uo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--prepare" ]]; then
    rm -rf .gpu && mkdir -p .gpu
    for p in packages/*/; do
        n=$(basename "$p")
        uv build -q --package "$n" --wheel --no-sources --out-dir .gpu >/dev/null 2>&1 || echo "build failed: $n"
    done
    ls .gpu
    exit 0
fi
shift_pkgs=("$@")
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-deps --no-index --no-compile --target /tmp/site .gpu/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c "import torch, triton, sys; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"
for f in packages/*/gpu_check.py; do
    pkg=$(basename "$(dirname "$f")")
    if (( ${#shift_pkgs[@]} )) && [[ ! " ${shift_pkgs[*]} " =~ " $pkg " ]]; then continue; fi
    echo "=== $pkg ==="
    ( cd "$(dirname "$f")" && timeout "${PER_PACKAGE_S:-240}" python3 gpu_check.py --json "$OUT/$pkg.gpu.json" ${GPU_CHECK_ARGS:-} ) 2>&1 | tee "$OUT/$pkg.log" | tail -60
    echo "=== $pkg exit ${PIPESTATUS[0]} ==="
done
