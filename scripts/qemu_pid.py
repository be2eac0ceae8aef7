# SPDX-License-Identifier: GPL-2.0
#
# scripts/qemu_pid.py: what scripts/vm-control and scripts/fabric-run ask
# of a node's QEMU, whose pid vm-run's --qemu-pidfile writes.

import re


def is_qemu(pid):
    """Whether pid is a live QEMU process: not a zombie, not a pid reused
    by another program."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            comm = f.read().rstrip("\n")
        with open("/proc/%d/status" % pid) as f:
            state = next((line.split()[1] for line in f
                          if line.startswith("State:")), "")
    except (OSError, IndexError):
        return False
    return comm.startswith("qemu-system") and state not in ("Z", "X")


def running_qemu(pid_file):
    """The pid in pid_file when it is a live QEMU's, else None."""
    try:
        with open(pid_file) as f:
            text = f.read().strip()
    except OSError:
        return None
    if re.fullmatch(r"[1-9][0-9]*", text) and is_qemu(int(text)):
        return int(text)
    return None
