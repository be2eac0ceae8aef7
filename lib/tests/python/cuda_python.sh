#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cuda-python on cumc: test_cuda_bindings.py (and test_pynvml.py: pynvml
# on cumc's NVML), run with the virtual
# environment of scripts/python-env (pinned cuda-bindings from PyPI) on
# libcumc as libcuda.so.1. Needs /dev/cumc, so it runs in the VM, which
# has no network: make check makes the environment on the host first
# (make python-env). A missing environment is a failure, not a skip.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)

# shellcheck source=scripts/tap.sh
. "$top/scripts/tap.sh"
tap_need_vm_root

if ! venv=$("$top/scripts/python-env" --check 2>&1); then
	tap_plan 1
	tap_not_ok "the environment of scripts/python-env exists"
	echo "# $venv"
	exit 1
fi

# What test_cuda_bindings.py checks it is given: the pin, and the library
# that libcuda.so.1 must be.
CUMC_PINNED_CUDA_BINDINGS=$(sed -n 's/^cuda-bindings==//p' "$top/scripts/python-requirements.txt")
CUMC_PINNED_CUDA_CORE=$(sed -n 's/^cuda-core==//p' "$top/scripts/python-requirements.txt")
CUMC_LIBCUMC=$(readlink -f "$top/build/cuda/libcuda.so.1")
# And nvidia-ml-py, on cumc's libnvidia-ml.so.1 (test_pynvml.py).
CUMC_PINNED_NVML_PY=$(sed -n 's/^nvidia-ml-py==//p' "$top/scripts/python-requirements.txt")
CUMC_NVML=$(readlink -f "$top/build/cuda/libnvidia-ml.so.1")
export CUMC_PINNED_CUDA_BINDINGS CUMC_PINNED_CUDA_CORE CUMC_LIBCUMC
export CUMC_PINNED_NVML_PY CUMC_NVML
export PYTHONDONTWRITEBYTECODE=1
# cuda.bindings.nvrtc loads the toolkit's NVRTC through CUDA_HOME
# (cuda-pathfinder); without a toolkit its check skips.
toolkit_include=$(cuda_toolkit_include)
if [ -z "${CUDA_HOME:-}" ] && [ -n "$toolkit_include" ]; then
	CUDA_HOME=$(dirname "$toolkit_include")
	export CUDA_HOME
fi
exec "$venv/bin/python" "$here/test_cuda_bindings.py"
