"""The real orientd under systemd's conventions, without systemd running:
socket activation through systemd-socket-activate, sd_notify to a test
NOTIFY_SOCKET (READY=1, STATUS=, WATCHDOG=1, STOPPING=1), and `<N>` priority
prefixes when JOURNAL_STREAM names stderr.

Run: /usr/bin/python3 -m unittest discover -s Tests/activation -v
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness
from orientd_harness import DEMO, ORIENTD, START_S, OrientdTestCase, stop_process, wait_until  # noqa: E402


class NotifySocket:
    """A datagram socket standing in for systemd's NOTIFY_SOCKET."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.messages = []

    def collect(self, until, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except socket.timeout:
                break
            if until(self.assignments()):
                return True
        return until(self.assignments())

    def assignments(self):
        return [line for message in self.messages for line in message.split("\n") if line]

    def close(self):
        self.sock.close()


class ActivationTests(OrientdTestCase):
    def setUp(self):
        super().setUp()
        self.notify = NotifySocket(os.path.join(self.workdir, "notify.sock"))
        self.addCleanup(self.notify.close)

    def start(self, *arguments, watchdog_usec=None):
        """orientd behind systemd-socket-activate, passed NOTIFY_SOCKET (and WATCHDOG_USEC)."""
        env = dict(self.environment(), NOTIFY_SOCKET=self.notify.path)
        passed = ["NOTIFY_SOCKET"]
        if watchdog_usec:
            env["WATCHDOG_USEC"] = str(watchdog_usec)
            passed.append("WATCHDOG_USEC")
        self.start_daemon(*arguments, env=env, activate=passed)

    def test_serves_clients_on_the_socket_systemd_passed(self):
        """the daemon serves clients on the passed socket and leaves the socket file alone on exit"""
        self.start("--mock", DEMO, "--loop", "--speed", "5")
        client = self.connect()
        client.send({"op": "get", "seq": 7})
        state = client.next_message(START_S)
        self.assertEqual((state["type"], state["seq"], state["sensor"]), ("state", 7, "mock"))
        client.close()
        self.assertEqual(self.daemon.stop(timeout=5), 0)
        self.assertIn("socket activation", self.daemon.log())
        # systemd owns the socket file; the daemon must not unlink it.
        self.assertTrue(os.path.exists(self.daemon.socket))

    def test_notifies_ready_status_watchdog_and_stopping(self):
        """READY=1 and STATUS= arrive once listening, WATCHDOG=1 repeats, STOPPING=1 on SIGTERM"""
        self.start("--mock", DEMO, "--loop", "--speed", "5", watchdog_usec=200_000)
        self.connect().close()  # systemd-socket-activate starts the daemon on the first connection
        self.assertTrue(self.notify.collect(lambda lines: "READY=1" in lines), self.notify.messages)
        self.assertTrue(any(line.startswith("STATUS=") for line in self.notify.assignments()))
        # Pings at half the interval: several within a second.
        self.assertTrue(
            self.notify.collect(lambda lines: lines.count("WATCHDOG=1") >= 3, timeout=2.0), self.notify.messages)
        self.assertEqual(self.daemon.stop(timeout=5), 0)
        self.assertTrue(self.notify.collect(lambda lines: "STOPPING=1" in lines, timeout=2.0), self.notify.messages)

    def test_status_names_the_subscribers(self):
        """STATUS= follows the number of subscribers"""
        self.start("--mock", DEMO, "--loop", "--speed", "5")
        client = self.connect()
        client.send({"op": "subscribe"})
        self.assertTrue(
            self.notify.collect(lambda lines: any("1 subscriber;" in line for line in lines)), self.notify.messages)

    def test_no_watchdog_pings_unless_asked(self):
        """without WATCHDOG_USEC the daemon sends no WATCHDOG=1 (an idle daemon makes no wakeups)"""
        self.start("--mock", DEMO, "--loop", "--speed", "5")
        self.connect().close()
        self.assertTrue(self.notify.collect(lambda lines: "READY=1" in lines), self.notify.messages)
        self.notify.collect(lambda lines: False, timeout=0.5)
        self.assertNotIn("WATCHDOG=1", self.notify.assignments())


class JournalPrefixTests(unittest.TestCase):
    def run_orientd(self, journal):
        # A raw Popen: JOURNAL_STREAM must name the very pipe that is stderr,
        # which the harness's Orientd makes only as it starts the daemon.
        directory = tempfile.mkdtemp(prefix="orientd-journal-")
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        read_end, write_end = os.pipe()
        env = dict(os.environ)
        env.pop("ORIENTD_SOCKET", None)
        if journal:
            info = os.fstat(write_end)
            env["JOURNAL_STREAM"] = f"{info.st_dev}:{info.st_ino}"
        else:
            env.pop("JOURNAL_STREAM", None)
        process = subprocess.Popen(
            [ORIENTD, "--socket", os.path.join(directory, "s.sock"), "--state-dir", os.path.join(directory, "st"),
             "--mock", DEMO, "--loop", "--speed", "5"],
            env=env, stdout=subprocess.DEVNULL, stderr=write_end)
        os.close(write_end)
        wait_until(lambda: os.path.exists(os.path.join(directory, "s.sock")), START_S, "the socket")
        stop_process(process, timeout=5)
        with os.fdopen(read_end) as stderr:
            return stderr.read().splitlines()

    def test_priority_prefixes_when_stderr_is_the_journal(self):
        """log lines carry <N> syslog priorities when JOURNAL_STREAM names stderr"""
        lines = self.run_orientd(journal=True)
        self.assertTrue(lines)
        self.assertTrue(all(line.startswith("<") and line[2] == ">" for line in lines), lines)
        self.assertTrue(any(line.startswith("<5>listening on") for line in lines), lines)

    def test_plain_lines_otherwise(self):
        """log lines are plain `orientd: level: message` when stderr is not the journal"""
        lines = self.run_orientd(journal=False)
        self.assertTrue(lines)
        self.assertTrue(all(line.startswith("orientd: ") for line in lines), lines)


if __name__ == "__main__":
    unittest.main()
