#!/usr/bin/env bash
# Install paperchat into a virtual environment (default .venv), CPU build of torch unless a GPU is present.
#   ./install.sh          product + local LLM engine (llama-cpp-python builds from source, ~6 min on 2 cores)
#   ./install.sh --test   the same plus the test tools
# Environment: PYTHON (default python3), PAPERCHAT_VENV (default .venv), PAPERCHAT_TORCH (override the torch spec).
set -euo pipefail
cd "$(dirname "$0")"
PYTHON=${PYTHON:-python3}
VENV=${PAPERCHAT_VENV:-.venv}
EXTRAS="local"
[ "${1:-}" = "--test" ] && EXTRAS="local,test"

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
PIP="$VENV/bin/python -m pip"

# torch: sentence-transformers would otherwise pull the multi-GB CUDA build.
if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  if [ -n "${PAPERCHAT_TORCH:-}" ]; then
    $PIP install "$PAPERCHAT_TORCH"
  elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
    $PIP install torch                                   # GPU machine: the default (CUDA) build
  else
    $PIP install "torch==2.13.0+cpu" 2>/dev/null \
      || $PIP install "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu
  fi
fi

# llama-cpp-python compiles with the machine's compiler; GGML_NATIVE=OFF keeps the wheel portable.
CMAKE_ARGS=${CMAKE_ARGS:-"-DGGML_NATIVE=OFF"} $PIP install -e ".[$EXTRAS]"
echo "installed: $VENV/bin/paperchat"
