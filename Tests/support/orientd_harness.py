"""The one support module of the Python test suites: orientd started on a
private socket and state directory and stopped cleanly, waits with deadlines,
a protocol client, `orientctl status`, and a private D-Bus system bus.

How a suite finds it: its first module puts this directory on sys.path,

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness

because `python3 -m unittest discover -s Tests/SUITE` puts only the suite's
own directory there. (A `Tests` package would need `-t .` on every command
line that runs a suite: the Makefile's, CI's, check-sanitize.sh's, the
READMEs'.)

Binaries: `.build/debug/orientd` and `orientctl`, or those under
$ORIENTD_BUILD_DIR, or $ORIENTD and $ORIENTCTL themselves.

Nothing here sleeps in place of a condition: every wait polls for what it
waits for (or blocks on it) and gives up at a deadline with a message naming
what it waited for.
"""

import collections
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
import threading
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
TRACES = REPO / "traces"
DEMO = TRACES / "demo.trace"
BUILD = Path(os.environ.get("ORIENTD_BUILD_DIR", REPO / ".build" / "debug"))
ORIENTD = Path(os.environ.get("ORIENTD", BUILD / "orientd"))
ORIENTCTL = Path(os.environ.get("ORIENTCTL", BUILD / "orientctl"))
TRACEGEN = BUILD / "tracegen"

#: How long the daemon may take to start listening, or to follow a uevent.
START_S = 5.0
#: How long a rotation may take to be published after the readings change:
#: the classifier commits in a few hundred ms; this only bounds a failure.
ROTATE_S = 3.0
#: How long a child may take to exit after SIGTERM before it is killed.
STOP_S = 10.0


def wait_until(condition, timeout, what, interval=0.02, detail=lambda: ""):
    """Polls `condition()` every `interval` s until it returns a truthy value
    (returned) or `timeout` s pass (AssertionError naming `what`, then `detail()`)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            extra = detail()
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}" + (f"\n{extra}" if extra else ""))
        time.sleep(interval)


def stop_process(process, signal_number=signal.SIGTERM, timeout=STOP_S, group=False):
    """Sends `signal_number` to a running `process`, waits up to `timeout` s,
    then SIGKILLs it (its whole process group with `group`); its exit status."""
    if process.poll() is None:
        process.send_signal(signal_number)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
            process.wait()
    return process.returncode


# MARK: Children and their output

#: One line of a child's output and the monotonic time it arrived.
LogLine = collections.namedtuple("LogLine", "time text")


class Log:
    """What a child writes to a pipe, line by line, each line with the time it
    arrived. One thread reads it, so the child never blocks on a full pipe and
    a wait wakes on the line it waits for."""

    def __init__(self, stream, name):
        self.name = name
        self._stream = stream
        self._lines = []
        self._cond = threading.Condition()
        self._ended = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        for raw in iter(self._stream.readline, b""):
            with self._cond:
                self._lines.append(LogLine(time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
                self._cond.notify_all()
        with self._cond:
            self._ended = True
            self._cond.notify_all()

    def lines(self):
        with self._cond:
            return [line.text for line in self._lines]

    def text(self):
        return "".join(line + "\n" for line in self.lines())

    def tail(self, count=40):
        return f"{self.name} (last lines):\n" + "\n".join(self.lines()[-count:])

    def wait_for(self, pattern, timeout, count=1):
        """The `count`th line matching the regex `pattern` once it has arrived
        (a LogLine); AssertionError at the deadline, or when the output ends first."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [line for line in self._lines if regex.search(line.text)]
                if len(found) >= count:
                    return found[count - 1]
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._ended:
                    why = "it ended" if self._ended else f"{timeout:g} s"
                    what = f"/{pattern}/" + (f" {count} times (seen {len(found)})" if count > 1 else "")
                    raise AssertionError(f"no {what} in {self.name} after {why}\n{self.tail()}")
                self._cond.wait(remaining)

    def close(self, timeout=5.0):
        """Reads to the end (the writer has exited), then closes the pipe; left
        open if something the writer started still holds it after `timeout` s."""
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self._stream.close()


class Child:
    """A child process whose stderr (`output="both"`: stdout and stderr) is a
    Log; stdin and the other stream are /dev/null."""

    def __init__(self, argv, env=None, name=None, output="stderr", umask=-1, new_session=False):
        argv = [str(arg) for arg in argv]
        self.name = name or os.path.basename(argv[0])
        both = output == "both"
        self.process = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE if both else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if both else subprocess.PIPE, umask=umask, start_new_session=new_session)
        self.pid = self.process.pid
        self.output = Log(self.process.stdout if both else self.process.stderr,
                          f"{self.name}'s {'output' if both else 'stderr'}")
        self._group = new_session
        #: Whether a caller has seen the exit (stop, wait_exit): an exit nobody saw is a crash.
        self.exit_seen = False

    def log(self):
        """Everything it wrote so far."""
        return self.output.text()

    def log_tail(self, lines=40):
        return self.output.tail(lines)

    def wait_for_log(self, pattern, timeout=START_S, count=1):
        """Waits for the `count`th line matching the regex `pattern`; returns it (a LogLine)."""
        return self.output.wait_for(pattern, timeout, count)

    def alive(self):
        return self.process.poll() is None

    def wait_exit(self, timeout=STOP_S):
        """Waits for it to exit by itself; its exit status."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name} still runs after {timeout:g} s\n{self.log_tail()}") from None
        return self._ended()

    def stop(self, signal_number=signal.SIGTERM, timeout=STOP_S):
        """`signal_number` (SIGTERM), then SIGKILL after `timeout` s; its exit status."""
        stop_process(self.process, signal_number, timeout, self._group)
        return self._ended()

    def _ended(self):
        if not self.exit_seen:
            self.exit_seen = True
            self.output.close()
        return self.process.returncode


# MARK: The daemon


class Orientd(Child):
    """orientd with its own socket and state directory (by default in
    `workdir`), started and listening: `args` follow `--socket` and `--state-dir`.

    `wrapper` is an argv that runs orientd (umockdev-run … --), `activate`
    the environment variables systemd-socket-activate passes it (the socket
    then comes from systemd-socket-activate). With `wait=False` it is not
    waited for (a start that must fail).
    """

    def __init__(self, workdir, *args, env=None, binary=ORIENTD, socket=None, state_dir=None, wrapper=(),
                 activate=None, wait=True, timeout=START_S, umask=-1, new_session=False):
        self.workdir = Path(workdir)
        self.socket = str(socket or self.workdir / "orientd.sock")
        self.state_dir = Path(state_dir or self.workdir / "state")
        if activate is not None:
            wrapper = ["systemd-socket-activate", "-l", self.socket, *(arg for name in activate for arg in ("-E", name))]
            where = []
        else:
            where = ["--socket", self.socket]
        super().__init__([*wrapper, binary, *where, "--state-dir", self.state_dir, *args], env=env, name="orientd",
                         umask=umask, new_session=new_session)
        if wait:
            try:
                wait_until(self._listening, timeout, f"orientd to listen on {self.socket}", detail=self.log_tail)
            except BaseException:
                self.stop()
                raise

    def _listening(self):
        if self.process.poll() is not None:
            self.stop()
            raise AssertionError(f"orientd exited with {self.process.returncode} while starting\n{self.log_tail()}")
        return os.path.exists(self.socket)

    def orientctl(self, *args, env=None, timeout=10, check=True):
        """`orientctl --socket SOCKET ARGS`, run to its end (with `check`, it must exit 0)."""
        run = subprocess.run([str(ORIENTCTL), "--socket", self.socket, *map(str, args)], env=env,
                             capture_output=True, text=True, timeout=timeout)
        if check and run.returncode != 0:
            raise AssertionError(f"orientctl {' '.join(map(str, args))} exited {run.returncode}: {run.stderr}")
        return run

    def status(self, *args, env=None):
        """`orientctl status ARGS` with an empty fake root (ORIENTCTL_SYSROOT: no
        iio-sensor-proxy to report); its output, after checking it exited 0."""
        root = self.workdir / "root"
        (root / "proc").mkdir(parents=True, exist_ok=True)
        env = dict(os.environ if env is None else env, ORIENTCTL_SYSROOT=str(root))
        return self.orientctl("status", *args, env=env).stdout

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

    def _note(self, message):
        if message.get("type") == "state":
            self.state = message
            self.states.append(message)
        return message

    def next_message(self, timeout):
        """The next message (dict), or None when none comes within `timeout` s."""
        if self.unread:
            return self.unread.pop(0)
        line = self._read_line(time.monotonic() + timeout)
        return None if line is None else self._note(json.loads(line))

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
                message = self._note(json.loads(line))
                if message.get("seq") == seq:
                    return message
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


# MARK: A private system bus

#: The policy `make install` installs for orientd's D-Bus side.
DBUS_POLICY = REPO / "systemd" / "orientd-dbus.conf"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <!-- The system bus's defaults (Debian's /usr/share/dbus-1/system.conf). -->
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <!-- The fake polkit (python-dbusmock) and its control interface. -->
  <policy user="root">
    <allow own="org.freedesktop.PolicyKit1"/>
    <allow send_destination="org.freedesktop.PolicyKit1"/>
  </policy>
  <include>{policy}</include>
{extra}
</busconfig>
"""


class PrivateSystemBus:
    """A real dbus-daemon with `<type>system</type>`, the system bus's
    default-deny policy and orientd's installed policy (plus `extra` policy
    lines), listening in `workdir`. Clients reach it through
    DBUS_SYSTEM_BUS_ADDRESS = `address`."""

    def __init__(self, workdir, extra=""):
        config = Path(workdir) / "bus.conf"
        config.write_text(BUS_CONFIG.format(socket=Path(workdir) / "bus.sock", policy=DBUS_POLICY, extra=extra))
        self.process = subprocess.Popen(["dbus-daemon", "--config-file", str(config), "--nofork", "--print-address"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.address = self.process.stdout.readline().decode().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon printed no address")

    def stop(self):
        stop_process(self.process)
        self.process.stdout.close()


# MARK: The test case


class OrientdTestCase(unittest.TestCase):
    """A work directory per test, and (once started) one orientd and its
    clients, closed and stopped after it. A daemon that exited during the test
    without the test seeing it (`stop`, `wait_exit`), or that exits non-zero on
    SIGTERM, fails the test."""

    #: Print each daemon's stderr, and each `status` output, after its test.
    verbose = False

    def setUp(self):
        # Cleanups run even when a subclass's setUp fails after starting the
        # daemon (tearDown would not), so no orientd outlives its test.
        self.workdir = tempfile.mkdtemp(prefix=f"orientd-{type(self).__name__}-")
        self.addCleanup(shutil.rmtree, self.workdir, ignore_errors=True)
        self.daemon = None
        self.clients = []
        self.addCleanup(self._clean_up)

    def _clean_up(self):
        for client in self.clients:
            client.close()
        failure = self._retire_daemon()
        if failure:
            self.fail(failure)

    def _retire_daemon(self):
        """Stops the daemon; what went wrong with it, if anything."""
        daemon, self.daemon = self.daemon, None
        if daemon is None:
            return None
        failure = None
        if not daemon.exit_seen:
            running = daemon.alive()
            status = daemon.stop()
            if not running:
                failure = f"orientd exited with {status} during the test\n{daemon.log_tail()}"
            elif status != 0:
                failure = f"orientd exited with {status} on SIGTERM\n{daemon.log_tail()}"
        if self.verbose:
            print(f"\n--- {self.id()} ---\n{daemon.log()}")
        return failure

    def environment(self):
        """The environment orientd and the tools run with here (a suite may add to it)."""
        env = dict(os.environ)
        env.pop("ORIENTD_SOCKET", None)
        return env

    def start_daemon(self, *args, **options):
        """Stops the daemon started before, if any, and starts `Orientd(workdir, *args, **options)`."""
        failure = self._retire_daemon()
        if failure:
            self.fail(failure)
        options.setdefault("env", self.environment())
        self.daemon = Orientd(self.workdir, *args, **options)
        return self.daemon

    def connect(self):
        client = Client(self.daemon.socket)
        self.clients.append(client)
        return client

    def orientctl(self, *args, check=True, timeout=10):
        """`orientctl ARGS` against this test's daemon (with `check`, it must exit 0)."""
        return self.daemon.orientctl(*args, env=self.environment(), check=check, timeout=timeout)

    def status(self, *args):
        """`orientctl status ARGS` against this test's daemon (see `Orientd.status`)."""
        output = self.daemon.status(*args, env=self.environment())
        if self.verbose:
            print(f"\n--- orientctl status {' '.join(args)} ---\n{output}")
        return output

    def run_tool(self, args, timeout=10):
        """Runs orientctl or orientd (a second one) in this test's environment."""
        return subprocess.run([str(arg) for arg in args], env=self.environment(), capture_output=True, text=True,
                              timeout=timeout)
