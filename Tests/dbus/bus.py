"""A private D-Bus system bus and clients for the D-Bus side's tests.

The bus is a real dbus-daemon with `<type>system</type>`, the system bus's
default-deny policy and the policy file `make install` installs
(systemd/orientd-dbus.conf); clients reach it through DBUS_SYSTEM_BUS_ADDRESS,
so `monitor-sensor`, `gdbus --system` and `busctl --system` talk to it as they
would to the machine's. The fake accelerometer is the umockdev harness's.
"""

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "umockdev"))  # harness: the testbed, and through it the shared harness

from harness import REPO, DaemonTestCase, wait_until  # noqa: E402,F401
from orientd_harness import Child, PrivateSystemBus  # noqa: E402

from gi.repository import Gio, GLib  # noqa: E402

NAME = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy"
IFACE = "net.hadess.SensorProxy"
HID = "hid-sensor-hub-accel_3d.umockdev"
LEFT_UP_RAW = {"x": 256, "y": 0, "z": 0}
NORMAL_RAW = {"x": 0, "y": -256, "z": 0}


class BusClient:
    """One connection to the bus (its own unique name), recording the
    PropertiesChanged signals it receives from the daemon's object."""

    def __init__(self, address):
        self.context = GLib.MainContext.new()
        self.context.push_thread_default()
        try:
            flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
            self.connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
            self.signals = []
            self.connection.signal_subscribe(None, "org.freedesktop.DBus.Properties", "PropertiesChanged", PATH,
                                             None, Gio.DBusSignalFlags.NONE, self._changed)
        finally:
            self.context.pop_thread_default()
        self.name = self.connection.get_unique_name()

    def _changed(self, _connection, _sender, _path, _interface, _signal, parameters):
        interface, changed, _ = parameters.unpack()
        self.signals.append((interface, changed))

    def pump(self):
        while self.context.iteration(False):
            pass

    def call(self, member, args=None, interface=IFACE, path=PATH, timeout_ms=5000, destination=NAME):
        """Calls and returns the unpacked reply; a D-Bus error raises GLib.Error."""
        self.context.push_thread_default()
        try:
            reply = self.connection.call_sync(destination, path, interface, member, args, None,
                                              Gio.DBusCallFlags.NO_AUTO_START, timeout_ms, None)
        finally:
            self.context.pop_thread_default()
        self.pump()
        return reply.unpack()

    def get(self, prop, interface=IFACE):
        return self.call("Get", GLib.Variant("(ss)", (interface, prop)), interface="org.freedesktop.DBus.Properties")[0]

    def claim(self):
        return self.call("ClaimAccelerometer")

    def release(self):
        return self.call("ReleaseAccelerometer")

    def wait_signal(self, prop, value, timeout=5.0):
        """Waits for a PropertiesChanged carrying prop = value."""
        def seen():
            self.pump()
            return any(changed.get(prop) == value for _, changed in self.signals)
        wait_until(seen, timeout, f"PropertiesChanged {prop} = {value!r} on {self.name}",
                   detail=lambda: f"signals so far: {self.signals}")

    def close(self):
        self.connection.close_sync(None)
        self.pump()


def dbus_error_name(error):
    """The D-Bus error name of a GLib.Error from a call."""
    return Gio.DBusError.get_remote_error(error)


class SensorProxyTestCase(DaemonTestCase):
    """A private system bus per test, and orientd serving its D-Bus side on it."""

    #: Extra [dbus] lines for the daemon's config.
    dbus_config = "polkit = off\n"

    def setUp(self):
        super().setUp()
        self.bus = PrivateSystemBus(self.workdir, extra=getattr(self, "bus_extra", ""))
        self.addCleanup(self.bus.stop)
        self.bus_clients = []
        self.addCleanup(self._close_bus_clients)

    def _close_bus_clients(self):
        for client in self.bus_clients:
            try:
                client.close()
            except GLib.Error:
                pass

    def environment(self):
        return dict(super().environment(), DBUS_SYSTEM_BUS_ADDRESS=self.bus.address)

    def start_proxy(self, *extra_args, config=None):
        (Path(self.workdir) / "orientd.conf").write_text(
            "[orientation]\nnatural = portrait\n[dbus]\nenable = true\n" + (config if config is not None else self.dbus_config))
        self.start_daemon(*extra_args)
        self.daemon.wait_for_log(r"D-Bus: (serving|net.hadess.SensorProxy is owned)")
        return self.daemon

    def client(self):
        client = BusClient(self.bus.address)
        self.bus_clients.append(client)
        return client

    def client_environment(self):
        """The environment of a bus client: the private bus, without umockdev's preload."""
        env = self.environment()
        env.pop("LD_PRELOAD", None)
        return env

    def monitor_sensor(self):
        """iio-sensor-proxy's `monitor-sensor`, started on the private bus and stopped with the test."""
        monitor = MonitorSensor(self.client_environment())
        self.addCleanup(monitor.stop)
        return monitor

    def run_client(self, args, timeout=10):
        return subprocess.run(args, env=self.client_environment(), capture_output=True, text=True, timeout=timeout)

    def claimers(self):
        """The claimer count the daemon last logged (0 before any claim)."""
        counts = re.findall(r"the accelerometer \((\d+) claimers?\)", self.daemon.log())
        return int(counts[-1]) if counts else 0

    def wait_claimers(self, count, timeout=5.0):
        wait_until(lambda: self.claimers() == count, timeout, f"{count} claimers", detail=self.daemon.log_tail)


class MonitorSensor(Child):
    """iio-sensor-proxy's `monitor-sensor` as a client: its output, line by line."""

    def __init__(self, env):
        super().__init__(["monitor-sensor"], env=env, output="both")

    @property
    def lines(self):
        return self.output.lines()

    def printed(self, pattern, timeout=5, count=1):
        """Waits for the `count`th line matching `pattern` (AssertionError at the deadline, with the output so far)."""
        self.wait_for_log(pattern, timeout, count)
