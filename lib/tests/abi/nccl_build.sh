#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make check's host lane: nccl.sh's programs built here (nccl.sh --build),
# before its VMs boot, where nvcc is ten times faster than under TCG;
# nccl.sh in the VM then runs them. Prints TAP.
exec "$(dirname "$0")/nccl.sh" --build
