"""The real orientd under systemd's conventions, without systemd running:
socket activation through systemd-socket-activate, sd_notify to a test
NOTIFY_SOCKET (READY=1, STATUS=, WATCHDOG=1, STOPPING=1), and `<N>` priority
prefixes when JOURNAL_STREAM names stderr.

Run: /usr/bin/python3 -m unittest discover -s Tests/activation -v
"""
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORIENTD = os.environ.get("ORIENTD", os.path.join(ROOT, ".build", "debug", "orientd"))
DEMO = os.path.join(ROOT, "traces", "demo.trace")


def wait_for(condition, timeout=5.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


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


def read_line(sock, timeout=5.0):
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n"):
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(1)
        if not chunk:
            break
        data += chunk
    return data.decode()


class ActivationTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="orientd-activation-")
        self.socket_path = os.path.join(self.dir, "orientd.sock")
        self.notify = NotifySocket(os.path.join(self.dir, "notify.sock"))
        self.process = None
        self.clients = []

    def tearDown(self):
        if self.process:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process.stderr.close()
        for client in self.clients:
            client.close()
        self.notify.close()

    def start(self, *arguments, watchdog_usec=None):
        env = dict(os.environ, NOTIFY_SOCKET=self.notify.path)
        env.pop("ORIENTD_SOCKET", None)
        passed = ["-E", "NOTIFY_SOCKET"]
        if watchdog_usec:
            env["WATCHDOG_USEC"] = str(watchdog_usec)
            passed += ["-E", "WATCHDOG_USEC"]
        self.process = subprocess.Popen(
            ["systemd-socket-activate", "-l", self.socket_path, *passed, ORIENTD,
             "--state-dir", os.path.join(self.dir, "state"), *arguments],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(lambda: os.path.exists(self.socket_path), what="the activation socket")

    def connect(self):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(self.socket_path)
        self.clients.append(client)
        hello = json.loads(read_line(client))
        self.assertEqual(hello["type"], "hello")
        return client

    def test_serves_clients_on_the_socket_systemd_passed(self):
        """the daemon serves clients on the passed socket and leaves the socket file alone on exit"""
        self.start("--mock", DEMO, "--loop", "--speed", "5")
        client = self.connect()
        client.sendall(b'{"op":"get","seq":7}\n')
        state = json.loads(read_line(client))
        self.assertEqual((state["type"], state["seq"], state["sensor"]), ("state", 7, "mock"))
        client.close()
        self.process.send_signal(signal.SIGTERM)
        self.assertEqual(self.process.wait(timeout=5), 0)
        stderr = self.process.stderr.read().decode()
        self.assertIn("socket activation", stderr)
        # systemd owns the socket file; the daemon must not unlink it.
        self.assertTrue(os.path.exists(self.socket_path))

    def test_notifies_ready_status_watchdog_and_stopping(self):
        """READY=1 and STATUS= arrive once listening, WATCHDOG=1 repeats, STOPPING=1 on SIGTERM"""
        self.start("--mock", DEMO, "--loop", "--speed", "5", watchdog_usec=200_000)
        self.connect().close()  # systemd-socket-activate starts the daemon on the first connection
        self.assertTrue(self.notify.collect(lambda lines: "READY=1" in lines), self.notify.messages)
        self.assertTrue(any(line.startswith("STATUS=") for line in self.notify.assignments()))
        # Pings at half the interval: several within a second.
        self.assertTrue(
            self.notify.collect(lambda lines: lines.count("WATCHDOG=1") >= 3, timeout=2.0), self.notify.messages)
        self.process.send_signal(signal.SIGTERM)
        self.assertEqual(self.process.wait(timeout=5), 0)
        self.assertTrue(self.notify.collect(lambda lines: "STOPPING=1" in lines, timeout=2.0), self.notify.messages)

    def test_status_names_the_subscribers(self):
        """STATUS= follows the number of subscribers"""
        self.start("--mock", DEMO, "--loop", "--speed", "5")
        client = self.connect()
        client.sendall(b'{"op":"subscribe"}\n')
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
        directory = tempfile.mkdtemp(prefix="orientd-journal-")
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
        wait_for(lambda: os.path.exists(os.path.join(directory, "s.sock")), what="the socket")
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=5)
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
