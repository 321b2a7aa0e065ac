"""Shared machinery for the umockdev integration tests.

The real `orientd` (no `--mock`) runs under umockdev's preload library, sees
the fake IIO accelerometers of a `UMockdev.Testbed`, and is driven over its
socket by a small client. Nothing here sleeps in place of a condition: every
wait polls for what it waits for and gives up at a deadline.

Run the suite under `umockdev-wrapper` (see README.md); the testbed's uevents
only reach the daemon that way.
"""

import errno
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

try:
    import gi

    gi.require_version("UMockdev", "1.0")
    from gi.repository import UMockdev
except (ImportError, ValueError) as error:  # pragma: no cover - environment check
    raise RuntimeError(
        f"the umockdev tests need python3-gi and gir1.2-umockdev-1.0 ({error}); "
        "install them (apt-get install -y umockdev gir1.2-umockdev-1.0 python3-gi) "
        "and run the suite with the system python: "
        "umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -v"
    ) from error

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEVICES = HERE / "devices"
BUILD = Path(os.environ.get("ORIENTD_BUILD_DIR", REPO / ".build" / "debug"))
ORIENTD = Path(os.environ.get("ORIENTD", BUILD / "orientd"))  # the name test_buffered.py honours too
ORIENTCTL = Path(os.environ.get("ORIENTCTL", BUILD / "orientctl"))

#: How long a rotation may take to be published after the raw values change:
#: the classifier commits in a few hundred ms; this only bounds a failure.
ROTATE_S = 3.0
#: How long the daemon may take to start listening, or to follow a uevent.
START_S = 5.0

NORMAL_RAW = {"x": 0, "y": -256, "z": 0}  # accel_3d: 0.038307 x 256 = 9.807 m/s^2


def require_preload():
    """Fails loudly when not run under umockdev-wrapper (no fake /sys, no uevents)."""
    if "umockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
        raise RuntimeError(
            "run this suite under umockdev-wrapper: "
            "umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -v"
        )
    for binary in (ORIENTD, ORIENTCTL):
        if not os.access(binary, os.X_OK):
            raise RuntimeError(f"{binary} is missing: run `swift build` first (or set ORIENTD_BUILD_DIR)")


def wait_until(condition, timeout, what, interval=0.02, detail=lambda: ""):
    """Polls `condition()` every `interval` s until it returns a truthy value
    (returned) or `timeout` s pass (AssertionError naming `what`)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            extra = detail()
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}" + (f"\n{extra}" if extra else ""))
        time.sleep(interval)


# MARK: Fake sysfs


class FakeSysfs:
    """A umockdev testbed holding the fake accelerometers.

    Device descriptions live in `devices/*.umockdev` (umockdev-record's format;
    the first record of a file is the IIO device, the others its parents).
    """

    def __init__(self):
        self.testbed = UMockdev.Testbed.new()
        self.root = self.testbed.get_root_dir()

    def close(self):
        # Dropping the testbed removes its directory and unsets UMOCKDEV_DIR.
        self.testbed = None

    def environment(self):
        """The environment a child needs to see this testbed (LD_PRELOAD comes
        from umockdev-wrapper; UMOCKDEV_DIR names this testbed)."""
        env = dict(os.environ)
        env["UMOCKDEV_DIR"] = self.root
        env.pop("ORIENTD_SOCKET", None)
        env["LC_ALL"] = "C.UTF-8"
        return env

    @staticmethod
    def description(name):
        return (DEVICES / name).read_text()

    @staticmethod
    def syspath_of(name):
        """The /sys path of the IIO device a description file declares."""
        first = FakeSysfs.description(name).split("\n", 1)[0]
        assert first.startswith("P: "), first
        return "/sys" + first[3:]

    def add(self, name, parents=True, node=True):
        """Adds the devices of `devices/<name>` (a uevent `add` each); returns
        the IIO device's /sys path.

        `parents=False` adds only the IIO device (its parents are still there
        after `remove`). `node=False` leaves out the `N:` line: umockdev 0.17
        asserts when a device node of the same name is created twice in one
        testbed (`remove_device` does not forget the pty behind /dev/iio:deviceN),
        so a re-added device comes back without its /dev node, which the polled
        path never opens.
        """
        text = self.description(name)
        if not parents:
            text = text.split("\n\n", 1)[0] + "\n"
        if not node:
            text = "\n".join(line for line in text.split("\n") if not line.startswith("N: "))
        self.testbed.add_from_string(text)
        return self.syspath_of(name)

    def remove(self, syspath):
        """Removes the device as the kernel's device_del() does: off the bus and
        class lists first, then the `remove` uevent, then the sysfs directory.

        (umockdev's remove_device() alone sends no uevent, and its uevent()
        needs the directory, so the order is made explicit here; it also means
        a daemon rescanning on the uevent no longer enumerates the device.)
        """
        name = os.path.basename(syspath)
        subsystem = os.path.basename(os.readlink(self.path(syspath, "subsystem")))
        for link in (f"sys/bus/{subsystem}/devices/{name}", f"sys/class/{subsystem}/{name}"):
            try:
                os.unlink(os.path.join(self.root, link))
            except FileNotFoundError:
                pass
        self.testbed.uevent(syspath, "remove")
        self.testbed.remove_device(syspath)

    def set_attribute(self, syspath, attribute, value):
        """Writes a sysfs attribute the way the kernel shows it: with a trailing newline."""
        text = str(value)
        if not text.endswith("\n"):
            text += "\n"
        self.testbed.set_attribute(syspath, attribute, text)

    def set_raw(self, syspath, **axes):
        """Writes `in_accel_<axis>_raw` for each of x=, y=, z= given."""
        for axis, value in axes.items():
            self.set_attribute(syspath, f"in_accel_{axis}_raw", value)

    def path(self, syspath, attribute):
        """Where the attribute file really is (not redirected)."""
        return os.path.join(self.root, syspath.lstrip("/"), attribute)

    def read_attribute(self, syspath, attribute):
        with open(self.path(syspath, attribute)) as f:
            return f.read()


# MARK: The daemon


class Orientd:
    """The real orientd on a private socket, state directory and config."""

    def __init__(self, workdir, env, extra_args=()):
        self.workdir = Path(workdir)
        self.socket = str(self.workdir / "s.sock")
        self.state_dir = self.workdir / "state"
        self.state_dir.mkdir(exist_ok=True)
        self.config = self.workdir / "orientd.conf"
        if not self.config.exists():
            self.config.write_text("[orientation]\nnatural = portrait\n")
        self.log_path = self.workdir / "orientd.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(ORIENTD), "--socket", self.socket, "--state-dir", str(self.state_dir),
             "--config", str(self.config), "--log-level", "info", *extra_args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, env=env)
        self.pid = self.process.pid
        try:
            wait_until(self._listening, START_S, "orientd to listen", detail=self.log_tail)
        except BaseException:
            self.stop()
            raise

    def _listening(self):
        if self.process.poll() is not None:
            raise AssertionError(f"orientd exited with {self.process.returncode} while starting\n{self.log_tail()}")
        return os.path.exists(self.socket)

    def log(self):
        """Everything orientd wrote to stderr so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def log_tail(self, lines=40):
        return "orientd stderr (last lines):\n" + "\n".join(self.log().splitlines()[-lines:])

    def wait_for_log(self, pattern, timeout=START_S):
        """Waits for a stderr line matching the regex `pattern`; returns the match."""
        regex = re.compile(pattern)
        return wait_until(lambda: regex.search(self.log()), timeout, f"orientd to log /{pattern}/",
                          detail=self.log_tail)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        """SIGTERM, then the exit status (SIGKILL after 5 s)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        return self.process.returncode

    def context_switches(self):
        """Voluntary + non-voluntary context switches of every thread, summed,
        and per thread (tid -> (name, count))."""
        per_thread = {}
        task_dir = f"/proc/{self.pid}/task"
        for tid in os.listdir(task_dir):
            try:
                with open(f"{task_dir}/{tid}/status") as f:
                    fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
            except (FileNotFoundError, ProcessLookupError):
                continue  # the thread ended between listdir and open
            count = int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"])
            per_thread[int(tid)] = (fields["Name"].strip(), count)
        return sum(c for _, c in per_thread.values()), per_thread


# MARK: The client


class Client:
    """A protocol client on a plain socket, reading lines with its own buffer
    (no buffered file object, so select() never misses a line)."""

    def __init__(self, path, timeout=START_S, connected=None):
        self.sock = connected or socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + timeout
        while connected is None:
            try:
                self.sock.connect(path)
                break
            except OSError as error:
                if error.errno not in (errno.ENOENT, errno.ECONNREFUSED) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)
        self.buffer = bytearray()
        self.seq = 0
        self.state = None  # the latest state message seen
        self.states = []  # every state message seen, in order
        self.unread = []  # messages read while looking for something else
        self.hello = self.next_message(timeout)
        assert self.hello and self.hello.get("type") == "hello", self.hello

    def close(self):
        self.sock.close()

    def send(self, message):
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def _read_line(self, deadline):
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([self.sock], [], [], remaining)
            if not ready:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("orientd closed the connection")
            self.buffer += chunk
        line, _, rest = self.buffer.partition(b"\n")
        self.buffer = bytearray(rest)
        return line

    def next_message(self, timeout):
        """The next message (dict), or None when none comes within `timeout` s."""
        if self.unread:
            return self.unread.pop(0)
        line = self._read_line(time.monotonic() + timeout)
        if line is None:
            return None
        message = json.loads(line)
        if message.get("type") == "state":
            self.state = message
            self.states.append(message)
        return message

    def request(self, op, timeout=2.0, **fields):
        """Sends `op` with a fresh seq; returns its reply. Pushed messages read
        meanwhile stay queued for `next_message`/`wait_state`."""
        self.seq += 1
        seq = self.seq
        self.send({"op": op, "seq": seq, **fields})
        deadline = time.monotonic() + timeout
        skipped = []
        try:
            while True:
                line = self._read_line(deadline)
                if line is None:
                    raise AssertionError(f"no reply to {op} within {timeout:g} s")
                message = json.loads(line)
                if message.get("seq") == seq:
                    if message.get("type") == "state":
                        self.state = message
                        self.states.append(message)
                    return message
                if message.get("type") == "state":
                    self.state = message
                    self.states.append(message)
                skipped.append(message)
        finally:
            self.unread.extend(skipped)

    def get(self, timeout=2.0):
        reply = self.request("get", timeout=timeout)
        assert reply["type"] == "state", reply
        return reply

    def subscribe(self):
        reply = self.request("subscribe")
        assert reply["type"] == "state", reply
        return reply

    def wait_state(self, predicate, timeout, what):
        """Waits for a state (the latest seen, or a pushed one) satisfying
        `predicate`; returns it."""
        if self.state is not None and predicate(self.state):
            return self.state
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                seen = [(s.get("orientation"), s.get("physical"), s.get("sensor")) for s in self.states[-8:]]
                raise AssertionError(
                    f"timed out after {timeout:g} s waiting for {what}; last states "
                    f"(orientation, physical, sensor): {seen}")
            message = self.next_message(remaining)
            if message is not None and message.get("type") == "state" and predicate(message):
                return message

    def wait_message(self, kind, timeout):
        """Waits for the next message of `type` `kind`; returns it."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no {kind} message within {timeout:g} s")
            message = self.next_message(remaining)
            if message is not None and message.get("type") == kind:
                return message

    def wait_physical(self, orientation, timeout=ROTATE_S):
        return self.wait_state(lambda s: s["physical"] == orientation, timeout, f"physical {orientation}")

    def wait_sensor(self, sensor, timeout=START_S):
        return self.wait_state(lambda s: s["sensor"] == sensor, timeout, f'sensor "{sensor}"')


# MARK: The test case


class DaemonTestCase(unittest.TestCase):
    """One testbed, one work directory and (once started) one orientd per test."""

    @classmethod
    def setUpClass(cls):
        require_preload()

    def setUp(self):
        # Cleanups run even when a subclass's setUp fails after starting the
        # daemon (tearDown would not), so no orientd outlives its test.
        self.workdir = tempfile.mkdtemp(prefix="orientd-umockdev-")
        self.sysfs = FakeSysfs()
        self.daemon = None
        self.clients = []
        self.addCleanup(self._clean_up)

    def _clean_up(self):
        for client in self.clients:
            client.close()
        crashed = None
        if self.daemon is not None:
            if not self.daemon.alive():
                crashed = f"orientd exited with {self.daemon.process.returncode} during the test\n{self.daemon.log_tail()}"
            status = self.daemon.stop()
            if crashed is None and status != 0:
                crashed = f"orientd exited with {status} on SIGTERM\n{self.daemon.log_tail()}"
            if os.environ.get("ORIENTD_UMOCKDEV_VERBOSE"):
                print(f"\n--- {self.id()} ---\n{self.daemon.log()}")
        self.sysfs.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        if crashed:
            self.fail(crashed)

    def environment(self):
        """The environment orientd and the tools run with here (a suite may add to it)."""
        return self.sysfs.environment()

    def start_daemon(self, *extra_args):
        self.daemon = Orientd(self.workdir, self.environment(), extra_args)
        return self.daemon

    def connect(self):
        client = Client(self.daemon.socket)
        self.clients.append(client)
        return client

    def connect_as(self, uid):
        """A client whose connection was opened by uid `uid` (the daemon reads the
        uid with SO_PEERCRED at connect): a forked child drops to `uid`, connects,
        and hands the socket back. Needs root."""
        os.chmod(self.workdir, 0o755)
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.connect(self.daemon.socket)
                socket.send_fds(child, [b"x"], [sock.fileno()])
            finally:
                os._exit(0)
        _, fds, _, _ = socket.recv_fds(parent, 1, 1)
        os.waitpid(pid, 0)
        parent.close()
        child.close()
        client = Client(self.daemon.socket, connected=socket.socket(fileno=fds[0]))
        self.clients.append(client)
        return client

    def settle(self, quiet_s=0.3, timeout=5.0):
        """Waits until the daemon is quiet: until the context-switch count holds still for `quiet_s`."""
        deadline = time.monotonic() + timeout
        last, _ = self.daemon.context_switches()
        while True:
            time.sleep(quiet_s)
            now, _ = self.daemon.context_switches()
            if now == last:
                return
            if time.monotonic() >= deadline:
                self.fail(f"orientd kept waking for {timeout:g} s ({last} -> {now})\n{self.daemon.log_tail()}")
            last = now

    def status(self, *args):
        """`orientctl status ARGS` against this test's daemon, with an empty fake
        root (no iio-sensor-proxy to report): its output, after checking it exited 0."""
        root = os.path.join(self.workdir, "root")
        os.makedirs(os.path.join(root, "proc"), exist_ok=True)
        env = dict(self.environment(), ORIENTCTL_SYSROOT=root)
        run = subprocess.run([str(ORIENTCTL), "--socket", self.daemon.socket, "status", *args],
                             env=env, capture_output=True, text=True, timeout=10)
        if os.environ.get("ORIENTD_UMOCKDEV_VERBOSE"):
            print(f"\n--- orientctl status {' '.join(args)} ---\n{run.stdout}{run.stderr}")
        self.assertEqual(run.returncode, 0, run.stderr)
        return run.stdout

    def run_tool(self, args, timeout=10):
        """Runs orientctl or orientd (a second one) in the testbed's environment."""
        return subprocess.run(args, env=self.environment(), capture_output=True, text=True, timeout=timeout)
