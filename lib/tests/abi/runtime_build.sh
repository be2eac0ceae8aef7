#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make check's host lane: the CUDA runtime programs of runtime.sh built
# here (runtime.sh --build), before its VMs boot, where nvcc is ten times
# faster than under TCG; runtime.sh in the VM then runs them. Prints TAP.
exec "$(dirname "$0")/runtime.sh" --build
