"""Shared machinery for the `orientctl follow` tests.

The real orientd replays a mock trace on a private socket; `orientctl follow`
runs against it with its log (standard error) in a file; the orientation is
moved by the rotation lock and by constraints, as users and apps move it.
Compositor tools are either the real thing (headless sway, test_sway.py) or
fakes on PATH that record their arguments (test_backends.py).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, ".build", "debug")
ORIENTD = os.environ.get("ORIENTD", os.path.join(BIN, "orientd"))
ORIENTCTL = os.environ.get("ORIENTCTL", os.path.join(BIN, "orientctl"))
#: normal, then left-up from 100 ms on, steady: the orientation the tests start from.
LEFT_UP = os.path.join(ROOT, "traces", "cardinal-left-up.trace")
RIGHT_UP = os.path.join(ROOT, "traces", "cardinal-right-up.trace")
HERE = os.path.dirname(os.path.abspath(__file__))


def wait_for(condition, timeout=10.0, what="condition"):
    """Polls `condition` until it returns something true, or fails naming `what`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Daemon:
    """orientd replaying `trace` on `directory`/orientd.sock, its lock in `directory`/state."""

    def __init__(self, directory, trace=LEFT_UP):
        self.socket = os.path.join(directory, "orientd.sock")
        self.state = os.path.join(directory, "state")
        self.log = os.path.join(directory, "orientd.log")
        os.makedirs(self.state, exist_ok=True)
        self.process = None
        self.start(trace)

    def start(self, trace=LEFT_UP):
        with open(self.log, "a") as log:
            self.process = subprocess.Popen(
                [ORIENTD, "--mock", trace, "--socket", self.socket, "--state-dir", self.state],
                stdout=subprocess.DEVNULL, stderr=log)
        wait_for(lambda: self.get() is not None, what="orientd's socket")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=10)

    def get(self):
        """The daemon's state, or None while it is not answering."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(2)
                s.connect(self.socket)
                s.sendall(b'{"op":"get"}\n')
                return reply(s.makefile())
        except (OSError, ValueError):
            return None

    def orientctl(self, *args):
        result = subprocess.run([ORIENTCTL, "--socket", self.socket, *args], capture_output=True, text=True, timeout=10)
        if result.returncode != 0:
            raise AssertionError(f"orientctl {' '.join(args)} exited {result.returncode}: {result.stderr}")

    def effective(self, orientation):
        """Waits until the daemon's effective orientation is `orientation`."""
        wait_for(lambda: (self.get() or {}).get("orientation") == orientation, what=f"orientd to publish {orientation}")


def reply(lines):
    """The first message after the daemon's hello."""
    for line in lines:
        message = json.loads(line)
        if message.get("type") != "hello":
            return message
    raise OSError("orientd closed the connection")


class Constraint:
    """An app's constraint, held as long as its connection stays open."""

    def __init__(self, daemon, allow):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(5)
        self.sock.connect(daemon.socket)
        self.sock.sendall(json.dumps({"op": "constrain", "id": "follow-test", "allow": allow}).encode() + b"\n")
        answer = reply(self.sock.makefile())
        if answer.get("type") != "ok":
            raise AssertionError(f"constraint refused: {answer}")

    def release(self):
        self.sock.close()


class Follow:
    """`orientctl follow ARGS` against `daemon`, its standard error in a file."""

    def __init__(self, daemon, args, env, directory):
        self.log_path = os.path.join(directory, "follow.log")
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [ORIENTCTL, "--socket", daemon.socket, "follow", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log_file, env=env)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def wait_log(self, text, timeout=10.0):
        wait_for(lambda: text in self.log(), timeout, what=f"'{text}' in follow's log:\n{self.log()}")

    def stop(self):
        """SIGTERM; returns the exit status."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=10)
        finally:
            self.log_file.close()
        return status


def run_follow(daemon, args, env, timeout=10):
    """Runs `orientctl follow ARGS` expecting it to exit by itself (an error)."""
    return subprocess.run(
        [ORIENTCTL, "--socket", daemon.socket, "follow", *args], env=env, capture_output=True, text=True,
        timeout=timeout, stdin=subprocess.DEVNULL)


class FakeTools:
    """hyprctl, niri, wlr-randr, xrandr and xinput on PATH that append their
    argv (JSON, one line) to `calls`, print the reply given for their argv, and
    hang (`hang-NAME` exists) or fail with exit 3 (`fail-NAME` exists) on demand."""

    NAMES = ["hyprctl", "niri", "wlr-randr", "xrandr", "xinput", "swaymsg"]

    def __init__(self, directory, replies):
        self.directory = directory
        self.bin = os.path.join(directory, "bin")
        os.makedirs(self.bin)
        with open(os.path.join(directory, "replies.json"), "w") as f:
            json.dump(replies, f)
        for name in self.NAMES:
            os.symlink(os.path.join(HERE, "fake_tool.py"), os.path.join(self.bin, name))

    def env(self, **variables):
        env = {"PATH": self.bin + ":/usr/bin:/bin", "FAKE_DIR": self.directory}
        env.update(variables)
        return env

    def calls(self):
        try:
            with open(os.path.join(self.directory, "calls")) as f:
                return [json.loads(line) for line in f if line.strip()]
        except FileNotFoundError:
            return []

    def wait_calls(self, count, timeout=10.0):
        return wait_for(lambda: len(self.calls()) >= count and self.calls(), timeout, what=f"{count} calls, got {self.calls()}")

    def hang(self, name, on=True):
        self._flag(f"hang-{name}", on)

    def fail(self, name, on=True):
        self._flag(f"fail-{name}", on)

    def _flag(self, name, on):
        path = os.path.join(self.directory, name)
        if on:
            open(path, "w").close()
        elif os.path.exists(path):
            os.unlink(path)


class TempDirTest(unittest.TestCase):
    """A test with its own directory, removed afterwards (processes stopped first by the test)."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="orientd-follow-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
