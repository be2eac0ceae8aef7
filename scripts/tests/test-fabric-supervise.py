#!/usr/bin/python3 -B
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-fabric-supervise.py: scripts/fabric-run's supervision
# with stand-ins for the nodes' vm-runs (sh scripts) and QEMU (a process
# named qemu-system-x86), no VM: each node's output printed with its
# prefix and kept in its log, a last line without a newline; the summary
# and the exit status (the first failing node's, 128 + N for a signal,
# a node stopped on request, 120 for vm-run's kernel-log line); SIGINT
# ignored by a vm-run; at exit, a node's QEMU sent SIGTERM and its
# vm-run then ending, and a vm-run that never ends killed once the
# (shortened) limit passes; the options' refusals. scripts/tests/
# test-fabric-run.sh runs the real thing. Host only; prints TAP.

import contextlib
import io
import os
import shutil
import signal
import sys
import unittest

from tap_unittest import load_script, run_tap

fabric_run = load_script("fabric-run")

# A stand-in QEMU: it names itself as QEMU does, then waits for a signal.
QEMU = ("exec python3 -c 'import signal; open(\"/proc/self/comm\", \"w\")"
        ".write(\"qemu-system-x86\"); signal.pause()'")


@contextlib.contextmanager
def captured_stdout():
    """fabric-run's standard output, as bytes in the BytesIO yielded."""
    data = io.BytesIO()
    out = io.TextIOWrapper(data)
    with contextlib.redirect_stdout(out):
        yield data
    out.detach()


class Supervision(unittest.TestCase):
    def setUp(self):
        options = fabric_run.Options(["--nodes", "3", "--no-imex", "--", "true"])
        self.fabric = fabric_run.Fabric(options)
        self.addCleanup(shutil.rmtree, self.fabric.dir, True)
        self.addCleanup(self.end_nodes)

    def end_nodes(self):
        """What a failed test left running: stand-ins for QEMU (whose
        vm-run's end would orphan them), then for vm-run."""
        for node in self.fabric.nodes:
            with contextlib.suppress(OSError, ValueError):
                with open(node.pid_file) as f:
                    os.kill(int(f.read()), signal.SIGKILL)
            if node.running():
                node.process.kill()
                node.process.wait()
            node.close_output()

    def start(self, *scripts):
        """A stand-in vm-run per node: sh -c SCRIPT, with FABRIC (the
        fabric directory) and K (the node) in its environment."""
        for k, script in enumerate(scripts):
            env = dict(os.environ, FABRIC=self.fabric.dir, K=str(k))
            with fabric_run.stop_signals_held():
                self.fabric.nodes.append(
                    fabric_run.Node(k, self.fabric.dir, ["sh", "-c", script], env))

    def log(self, k):
        with open(self.fabric.path("node%d.log" % k), "rb") as f:
            return f.read()

    def test_output_and_status(self):
        """each node's output prefixed and logged; the summary; the first failing status"""
        self.start("echo a; echo b >&2; printf c", "echo x; exit 3", "exit 5")
        with captured_stdout() as out:
            status = self.fabric.wait()
        lines = out.getvalue().splitlines()
        self.assertEqual(status, 3)
        self.assertEqual([line for line in lines if line.startswith(b"node 0: ")][:3],
                         [b"node 0: a", b"node 0: b", b"node 0: c"])
        self.assertIn(b"node 1: x", lines)
        self.assertEqual(lines[-3:], [b"node 0: status 0", b"node 1: status 3",
                                      b"node 2: status 5"])
        self.assertEqual(self.log(0), b"a\nb\nc")

    def test_stopped_signal_problem(self):
        """stopped on request; 128 + N for signal N; vm-run's kernel-log line makes it 120"""
        self.start(": >$FABRIC/node$K.stopped; exit 137", "kill -9 $$",
                   "echo 'vm-run: the kernel log shows a problem:'")
        with captured_stdout() as out:
            status = self.fabric.wait()
        self.assertEqual(out.getvalue().splitlines()[-3:],
                         [b"node 0: stopped on request", b"node 1: status 137",
                          b"node 2: status 0"])
        self.assertEqual(status, 120)

    def test_stop(self):
        """at exit: SIGINT ignored by vm-run, its QEMU sent SIGTERM, vm-run then ends"""
        self.start("%s & echo $! >$FABRIC/node$K.pid; wait; echo qemu gone" % QEMU)
        with open("/proc/%d/status" % self.fabric.nodes[0].process.pid) as f:
            ignored = next(int(line.split()[1], 16) for line in f if line.startswith("SigIgn:"))
        self.assertTrue(ignored & (1 << (2 - 1)), "SIGINT not ignored")
        with captured_stdout() as out:
            self.fabric.stop_nodes()
            self.fabric.drain()
        self.assertEqual(self.fabric.nodes[0].status, 0)
        self.assertIn(b"node 0: qemu gone", out.getvalue().splitlines())

    def test_kill(self):
        """at exit: a vm-run that never ends is killed once the limit passes"""
        self.start("trap '' TERM; while :; do sleep 1; done")
        stderr = io.StringIO()
        limit = fabric_run.STOP_SECS
        fabric_run.STOP_SECS = 0.3
        try:
            with captured_stdout(), contextlib.redirect_stderr(stderr):
                self.fabric.stop_nodes()
        finally:
            fabric_run.STOP_SECS = limit
        self.assertEqual(self.fabric.nodes[0].status, 137)
        self.assertEqual(stderr.getvalue(), "fabric-run: node 0's vm-run still runs: killed\n")


class Usage(unittest.TestCase):
    def test_refusals(self):
        """the options' refusals, each with its message"""
        cases = [
            (["--nodes", "19", "--", "x"], "--nodes takes 1 to 18, not '19'"),
            (["--nodes", "18", "--gpus-per-node", "8", "--", "x"],
             "18 nodes of 8 GPUs: more than 128 GPUs, the most a VM of scripts/vm-run has"),
            (["--node-cmd", "2", "x", "--", "x"], "--node-cmd 2: there are 2 nodes"),
            (["--node-cmd", "0", "x"],
             "no command given (after --), and not every node has a --node-cmd"),
            (["--gpus-per-node", "0", "--", "x"],
             "--procs-per-node takes 1 to 128 or gpu (one per GPU of a node), not '0'"),
            (["--user", "0", "--", "x"], "--user 0 is root: leave --user out"),
            (["--env", "RANK=1", "--", "x"], "--env RANK: fabric-run sets it"),
            (["--domain", "0,1", "--domain", "1", "--", "x"], "node 1 is in two domains"),
            (["--partition", "1", "--", "x"], "node 0 is in no --partition"),
            (["--mem"], "--mem takes a value"),
        ]
        for argv, message in cases:
            with self.assertRaises(fabric_run.UsageError, msg=argv) as refusal:
                fabric_run.Options(argv)
            self.assertEqual(str(refusal.exception), message)


if __name__ == "__main__":
    sys.exit(run_tap(__name__))
