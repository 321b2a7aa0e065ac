"""Shared machinery for the `orientctl follow` tests.

The real orientd replays a mock trace on a private socket; `orientctl follow`
runs against it, its log (standard error) read line by line; the orientation is
moved by the rotation lock and by constraints, as users and apps move it.
Compositor tools are either the real thing (headless sway, test_sway.py) or
fakes on PATH that record their arguments (test_backends.py).
"""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness
from orientd_harness import ORIENTCTL, TRACES, Child, Client, OrientdTestCase, stop_process, wait_until  # noqa: E402,F401

#: normal, then left-up from 100 ms on, steady: the orientation the tests start from.
LEFT_UP = TRACES / "cardinal-left-up.trace"
RIGHT_UP = TRACES / "cardinal-right-up.trace"
HERE = os.path.dirname(os.path.abspath(__file__))


class FollowTestCase(OrientdTestCase):
    """A test with its own directory and, once started, orientd replaying a trace."""

    def start_mock(self, trace=LEFT_UP):
        return self.start_daemon("--mock", trace)

    def effective(self, orientation):
        """Waits until the daemon's effective orientation is `orientation`."""
        asker = self.connect()
        wait_until(lambda: asker.get()["orientation"] == orientation, 10, f"orientd to publish {orientation}")
        asker.close()
        self.clients.remove(asker)


class Constraint:
    """An app's constraint, held as long as its connection stays open."""

    def __init__(self, daemon, allow):
        self.client = Client(daemon.socket)
        answer = self.client.request("constrain", id="follow-test", allow=allow)
        if answer.get("type") != "ok":
            raise AssertionError(f"constraint refused: {answer}")

    def release(self):
        self.client.close()


class Follow(Child):
    """`orientctl follow ARGS` against `daemon`, its standard error in a Log."""

    def __init__(self, daemon, args, env):
        super().__init__([ORIENTCTL, "--socket", daemon.socket, "follow", *args], env=env, name="orientctl follow")

    def wait_log(self, text, timeout=10.0):
        """Waits for a line of the log that contains `text`."""
        return self.wait_for_log(re.escape(text), timeout)


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
        return wait_until(lambda: len(self.calls()) >= count and self.calls(), timeout, f"{count} calls",
                          detail=lambda: f"calls so far: {self.calls()}")

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
