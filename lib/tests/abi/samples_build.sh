#!/bin/bash
# SPDX-License-Identifier: MIT
#
# make check's host lane: the sample programs of samples.sh and their
# kernels built here (samples.sh --build), before its VMs boot, where nvcc
# is ten times faster than under TCG; samples.sh in the VM then runs them.
# Prints TAP.
exec "$(dirname "$0")/samples.sh" --build
