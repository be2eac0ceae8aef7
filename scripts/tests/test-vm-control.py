#!/usr/bin/python3 -B
# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/test-vm-control.py: scripts/vm-control's relay against a
# fake QEMU over pipes, as vm-run connects them: the guest's requests in,
# answers out, QMP commands to the fake and its greeting, replies and
# events back. Unplugs answered ok, with DEVICE_DELETED before or after
# device_del's reply and another device's event ignored; QEMU's refusal
# with its description, and a retry that is not answered by the refusal;
# bad requests and addresses refused without a QMP command; QMP that is
# not JSON skipped; no greeting, no reply and no event each an error
# (the relay's limits shortened: the fake never sends them); stop-node on
# a stand-in QEMU process, and its refusals. Host only; prints TAP.

import contextlib
import io
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import threading
import unittest

from tap_unittest import load_script, run_tap

vm_control = load_script("vm-control")

GPUS = {
    "0000:00:10.0": ("cumc-gpu0", True),
    "0000:00:11.0": ("cumc-gpu1", True),
    "0000:00:12.0": ("cumc-gpu2", False),
}
# Bounds a wait for the relay, so that a broken relay fails the test
# rather than hanging it; a working one answers at once.
HANG_SECS = 30
GREETING = {"QMP": {"version": {"qemu": {"major": 7, "minor": 2, "micro": 0}},
                    "capabilities": ["oob"]}}


def deleted_event(device):
    return {"event": "DEVICE_DELETED", "timestamp": {"seconds": 1, "microseconds": 2},
            "data": {"device": device, "path": "/machine/peripheral/" + device}}


def answer_normally(command):
    """QEMU's answers to a command that works: a device_del's reply, then
    the event of the device's child (no "device") and the device's."""
    reply = {"return": {}, "id": command["id"]}
    if command["execute"] != "device_del":
        return [reply]
    device = command["arguments"]["id"]
    return [reply, {"event": "DEVICE_DELETED", "timestamp": {"seconds": 1, "microseconds": 1},
                    "data": {"path": "/machine/peripheral/%s/virtio-backend" % device}},
            deleted_event(device)]


class FakeQemu(threading.Thread):
    """QMP's end: greets (unless told not to), then answers each command
    with what respond(command) returns (objects, or raw lines)."""

    def __init__(self, command_fd, reply_fd, respond, greet=True, before_greeting=()):
        super().__init__(daemon=True)
        self.command_fd = command_fd
        self.reply_fd = reply_fd
        self.respond = respond
        self.greet = greet
        self.before_greeting = before_greeting
        self.commands = []
        self.sent = b""

    def send(self, message):
        line = message if isinstance(message, bytes) else json.dumps(message).encode()
        line += b"\r\n"
        self.sent += line
        os.write(self.reply_fd, line)

    def run(self):
        for line in self.before_greeting:
            self.send(line)
        if self.greet:
            self.send(GREETING)
        with os.fdopen(self.command_fd, "rb", closefd=False) as commands:
            for line in commands:
                command = json.loads(line)
                self.commands.append(command)
                for message in self.respond(command):
                    self.send(message)


class RelayTest(unittest.TestCase):
    """A relay serving in a thread, a fake QEMU, and the guest's end."""

    def start(self, respond=answer_normally, fabric=None, answer_secs=60,
              connect_secs=30, **fake):
        self.fds = []

        def pipe():
            ends = os.pipe()
            self.fds.extend(ends)
            return ends

        command_read, self.command_write = pipe()
        reply_read, reply_write = pipe()
        self.request_read, self.request_write = pipe()
        self.answer_read, answer_write = pipe()
        self.log = io.BytesIO()
        self.qemu = FakeQemu(command_read, reply_write, respond, **fake)
        self.qemu.start()
        qmp = vm_control.Qmp(self.command_write, reply_read, self.log)
        self.relay = vm_control.Relay(qmp, GPUS, fabric, answer_secs=answer_secs,
                                      connect_secs=connect_secs)
        self.serving = threading.Thread(target=self.relay.serve,
                                        args=(self.request_read, answer_write), daemon=True)
        self.serving.start()
        self.answers = b""
        self.addCleanup(self.stop)

    def stop(self):
        """The relay sees the guest's end of file, the fake QEMU the
        relay's: both threads end before their descriptors are closed,
        whose numbers the next test's pipes may reuse."""
        os.close(self.request_write)
        self.serving.join(HANG_SECS)
        os.close(self.command_write)
        self.qemu.join(HANG_SECS)
        for fd in self.fds:
            if fd not in (self.request_write, self.command_write):
                os.close(fd)

    def ask(self, *lines):
        """Send request lines, return the answers' lines (one each)."""
        os.write(self.request_write, "".join(lines).encode())
        answers = []
        while len(answers) < sum(1 for line in lines if line.strip()):
            while b"\n" not in self.answers:
                ready, _, _ = select.select([self.answer_read], [], [], HANG_SECS)
                self.assertTrue(ready, "no answer from the relay in %d s" % HANG_SECS)
                self.answers += os.read(self.answer_read, 4096)
            line, self.answers = self.answers.split(b"\n", 1)
            answers.append(line.decode())
        return answers

    def executed(self):
        return [(c["execute"], c.get("arguments")) for c in self.qemu.commands]


class Unplug(RelayTest):
    def test_ok(self):
        """unplug: capabilities negotiated, device_del of the GPU's id, ok at its event"""
        self.start()
        self.assertEqual(self.ask("unplug 0000:00:11.0\n"), ["ok"])
        self.assertEqual(self.executed(), [("qmp_capabilities", None),
                                           ("device_del", {"id": "cumc-gpu1"})])

    def test_event_first(self):
        """unplug: DEVICE_DELETED before device_del's reply is still seen"""
        self.start(respond=lambda c: list(reversed(answer_normally(c))))
        self.assertEqual(self.ask("unplug 0000:00:10.0\n"), ["ok"])

    def test_short_address_log(self):
        """unplug: the domain left out, upper case, CR LF; QMP kept in qmp.log"""
        self.start()
        self.assertEqual(self.ask("unplug 00:1A.0\r\n", "\n", "unplug 00:11.0\r\n"),
                         ["error 0000:00:1a.0 is not a GPU of vm-run", "ok"])
        self.assertEqual(self.log.getvalue(), self.qemu.sent)

    def test_twice(self):
        """unplug: the same GPU twice, refused the second time without QMP"""
        self.start()
        self.assertEqual(self.ask("unplug 0000:00:11.0\n", "unplug 0000:00:11.0\n"),
                         ["ok", "error cumc-gpu1 was unplugged already"])
        self.assertEqual(len(self.executed()), 2)

    def test_refused_then_retried(self):
        """unplug: QEMU's refusal with its description; a retry gets its own reply"""
        refusals = []

        def refuse_once(command):
            if command["execute"] == "device_del" and not refusals:
                refusals.append(command)
                return [{"error": {"class": "GenericError",
                                   "desc": "Device 'cumc-gpu0' is busy"},
                         "id": command["id"]}]
            return answer_normally(command)

        self.start(respond=refuse_once)
        self.assertEqual(self.ask("unplug 0000:00:10.0\n", "unplug 0000:00:10.0\n"),
                         ["error QEMU refused device_del of cumc-gpu0: Device 'cumc-gpu0' is busy",
                          "ok"])
        ids = [c["id"] for c in self.qemu.commands]
        self.assertEqual(len(set(ids)), len(ids), "command ids reused: %s" % ids)

    def test_bad_requests(self):
        """bad requests and addresses: refused with the reason, no QMP command"""
        self.start()
        self.assertEqual(
            self.ask("unplug\n", "unplug 0000:00:11.0 now\n", "reboot\n",
                     "unplug 0000:00:11\n", "unplug 0000:00:08.0\n", "unplug 0000:00:12.0\n"),
            ["error unknown request: unplug",
             "error unknown request: unplug 0000:00:11.0 now",
             "error unknown request: reboot",
             "error not a PCI address: 0000:00:11",
             "error 0000:00:08.0 is not a GPU of vm-run",
             "error cumc-gpu2 shares its slot with other GPUs (more than 16): "
             "it cannot be unplugged alone"])
        self.assertEqual(self.executed(), [])

    def test_not_json(self):
        """QMP that is not a JSON object: skipped with a warning, the rest read"""
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            self.start(before_greeting=[b"{\"QMP\": ", b"[1, 2]"])
            self.assertEqual(self.ask("unplug 0000:00:11.0\n"), ["ok"])
        self.assertEqual(stderr.getvalue().count("not a JSON object"), 2, stderr.getvalue())


class Limits(RelayTest):
    """What QEMU never sends: each an error once the (shortened) limit passes."""

    def test_no_greeting(self):
        """no QMP greeting: no QMP connection, no command sent"""
        self.start(greet=False, connect_secs=0.2)
        self.assertEqual(self.ask("unplug 0000:00:11.0\n"),
                         ["error no QMP connection to QEMU (no QMP greeting from QEMU)"])
        self.assertEqual(self.executed(), [])

    def test_no_reply(self):
        """no reply to device_del: an error naming the command"""
        self.start(respond=lambda c: answer_normally(c) if c["execute"] != "device_del" else [],
                   answer_secs=0.2)
        self.assertEqual(self.ask("unplug 0000:00:11.0\n"),
                         ["error QEMU did not answer device_del of cumc-gpu1 in 0.2 s"])

    def test_no_event(self):
        """no DEVICE_DELETED: not ejected by the guest; unplugged already after"""
        self.start(respond=lambda c: answer_normally(c)[:2], answer_secs=0.2)
        self.assertEqual(self.ask("unplug 0000:00:11.0\n", "unplug 0000:00:11.0\n"),
                         ["error cumc-gpu1 not ejected by the guest in 0.2 s",
                          "error cumc-gpu1 was unplugged already"])


class StopNode(RelayTest):
    def setUp(self):
        self.fabric = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.fabric)

    def stand_in(self, comm):
        """A child process named comm, as node 1's QEMU."""
        pid = os.fork()
        if pid == 0:
            try:
                with open("/proc/self/comm", "w") as f:
                    f.write(comm)
                signal.pause()
            finally:
                os._exit(1)
        self.addCleanup(self.end_stand_in, pid)
        # Its name is set once /proc says so.
        for _ in range(HANG_SECS * 100):
            with open("/proc/%d/comm" % pid) as f:
                if f.read().rstrip("\n") == comm:
                    break
            select.select([], [], [], 0.01)
        with open(os.path.join(self.fabric, "node1.pid"), "w") as f:
            f.write("%d\n" % pid)
        return pid

    @staticmethod
    def end_stand_in(pid):
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG) == (0, 0):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)

    def test_stop(self):
        """stop-node: marked stopped, then killed with SIGKILL; a second time refused"""
        pid = self.stand_in("qemu-system-x86")
        self.start(fabric=self.fabric)
        self.assertEqual(self.ask("stop-node 1\n"), ["ok"])
        self.assertTrue(os.path.exists(os.path.join(self.fabric, "node1.stopped")))
        _, status = os.waitpid(pid, 0)
        self.assertTrue(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL)
        self.assertEqual(self.ask("stop-node 1\n"), ["error node 1 was stopped already"])
        self.assertEqual(self.executed(), [])

    def test_refusals(self):
        """stop-node: a number, a running QEMU, a fabric needed"""
        pid = self.stand_in("sleep")
        self.start(fabric=self.fabric)
        self.assertEqual(self.ask("stop-node 01\n", "stop-node 1\n", "stop-node 2\n"),
                         ["error not a node number: 01", "error node 1 is not running",
                          "error node 2 is not running"])
        self.assertEqual(os.waitpid(pid, os.WNOHANG), (0, 0), "a process not QEMU was killed")
        self.assertFalse(os.path.exists(os.path.join(self.fabric, "node1.stopped")))

    def test_no_fabric(self):
        """stop-node outside a fabric: refused"""
        self.start()
        self.assertEqual(self.ask("stop-node 1\n"), ["error not a node of scripts/fabric-run"])


if __name__ == "__main__":
    sys.exit(run_tap(__name__))
