"""The umockdev suites' layer over the shared harness (Tests/support/orientd_harness.py).

The real `orientd` (no `--mock`) runs under umockdev's preload library, sees
the fake IIO accelerometers of a `UMockdev.Testbed`, and is driven over its
socket by the shared harness's client. Nothing here sleeps in place of a
condition: every wait polls for what it waits for and gives up at a deadline.

Run the suite under `umockdev-wrapper` (see README.md); the testbed's uevents
only reach the daemon that way.
"""

import os
import socket
import sys
import time
from pathlib import Path

# The shared harness: this line is how the umockdev and D-Bus suites find it
# (see its docstring); the names the suites use from it are imported here.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from orientd_harness import (  # noqa: E402,F401
    ORIENTCTL, ORIENTD, REPO, ROTATE_S, START_S, Child, Client, OrientdTestCase, wait_until)

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
DEVICES = HERE / "devices"

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


# MARK: Fake sysfs


class FakeSysfs:
    """A umockdev testbed holding the fake accelerometers.

    Device descriptions live in `devices/*.umockdev` (umockdev-record's format;
    the first record of a file is the IIO device, the others its parents).
    """

    def __init__(self):
        self.testbed = UMockdev.Testbed.new()
        self.root = self.testbed.get_root_dir()
        # The daemon under test must never make a real tablet-mode switch on
        # the machine running the tests (it would turn off its keyboard):
        # the testbed's /dev/uinput, a directory, cannot be opened.
        os.makedirs(os.path.join(self.root, "dev", "uinput"))

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


# MARK: The test case


class DaemonTestCase(OrientdTestCase):
    """One testbed, one work directory and (once started) one orientd per test."""

    verbose = bool(os.environ.get("ORIENTD_UMOCKDEV_VERBOSE"))

    @classmethod
    def setUpClass(cls):
        require_preload()

    def setUp(self):
        # The testbed first, so that it goes after the daemon has stopped.
        self.sysfs = FakeSysfs()
        self.addCleanup(self.sysfs.close)
        super().setUp()

    def environment(self):
        """The environment orientd and the tools run with here (a suite may add to it)."""
        return self.sysfs.environment()

    def start_daemon(self, *extra_args):
        """orientd on the testbed with `orientd.conf` from the work directory
        (`natural = portrait` unless a test wrote its own) at log level info."""
        config = Path(self.workdir) / "orientd.conf"
        if not config.exists():
            config.write_text("[orientation]\nnatural = portrait\n")
        return super().start_daemon("--config", config, "--log-level", "info", *extra_args)

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
