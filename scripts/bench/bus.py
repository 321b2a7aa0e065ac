"""The D-Bus around both daemons in `make bench`: a private system bus for
each daemon (`PrivateBus`), python-dbusmock's polkitd on it when the daemon
asks polkit (`MockPolkit`), and the clients of net.hadess.SensorProxy, the
same for orientd's D-Bus side and for the peer: `PeerWatcher` claims the
accelerometer and times every AccelerometerOrientation it is sent,
`SensorClaimant` claims sensors and reads their properties.
"""

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from common import clean_env, stop_process, wait_until

CLAIM_ACTION = "net.hadess.SensorProxy.claim-sensor"

DBUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"""


class PrivateBus:
    """A private D-Bus *system* bus (dbus-daemon with a permissive policy)."""

    def __init__(self, workdir):
        binary = shutil.which("dbus-daemon") or "/usr/bin/dbus-daemon"
        if not os.access(binary, os.X_OK):
            raise RuntimeError("dbus-daemon is not installed (Debian: apt-get install dbus-daemon)")
        config = Path(workdir) / "bus.conf"
        config.write_text(DBUS_CONFIG.format(socket=Path(workdir) / "bus.sock"))
        self.process = subprocess.Popen([binary, "--config-file", str(config), "--nofork", "--print-address"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=clean_env())
        self.address = self.process.stdout.readline().decode().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon printed no address")

    def stop(self):
        self.process.terminate()
        self.process.wait()


class SensorClaimant:
    """One D-Bus client of net.hadess.SensorProxy that claims sensors and reads
    their properties (no signal handling: nothing in the bench waits for one)."""

    COMPASS_PATH = "/net/hadess/SensorProxy/Compass"
    COMPASS_INTERFACE = "net.hadess.SensorProxy.Compass"

    def __init__(self, address, what):
        from gi.repository import Gio
        self.what = what
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        self.connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)

    def _call(self, path, interface, method, parameters=None):
        from gi.repository import Gio
        return self.connection.call_sync("net.hadess.SensorProxy", path, interface, method, parameters, None,
                                         Gio.DBusCallFlags.NONE, 5000, None)

    def claim(self, sensor):
        """ClaimLight, ClaimProximity, ClaimAccelerometer or ClaimCompass (`sensor`:
        Light, Proximity, Accelerometer, Compass); RuntimeError naming the daemon."""
        compass = sensor == "Compass"
        try:
            self._call(self.COMPASS_PATH if compass else "/net/hadess/SensorProxy",
                       self.COMPASS_INTERFACE if compass else "net.hadess.SensorProxy", f"Claim{sensor}")
        except Exception as error:
            raise RuntimeError(f"Claim{sensor} on {self.what} failed: {error}") from None

    def properties(self):
        """Every property of both interfaces, as one dict."""
        from gi.repository import GLib
        values = {}
        for path, interface in (("/net/hadess/SensorProxy", "net.hadess.SensorProxy"),
                                (self.COMPASS_PATH, self.COMPASS_INTERFACE)):
            reply = self._call(path, "org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", (interface,)))
            values.update(reply.unpack()[0])
        return values

    def close(self):
        self.connection.close_sync(None)


class PeerWatcher(threading.Thread):
    """A claimant of iio-sensor-proxy's accelerometer on its own GLib main
    context and thread: records (monotonic time, orientation) for every
    PropertiesChanged carrying AccelerometerOrientation."""

    def __init__(self, address):
        super().__init__(daemon=True)
        self.address = address
        self.events = []
        self.current = None
        self.ready = threading.Event()
        self.error = None
        self.loop = None

    def run(self):
        from gi.repository import Gio, GLib
        context = GLib.MainContext.new()
        context.push_thread_default()
        try:
            flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
            self.connection = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)

            def changed(_connection, _sender, _path, _interface, _signal, parameters):
                at = time.monotonic()
                _, properties, _ = parameters.unpack()
                if "AccelerometerOrientation" in properties:
                    self.current = properties["AccelerometerOrientation"]
                    self.events.append((at, self.current))

            self.connection.signal_subscribe("net.hadess.SensorProxy", "org.freedesktop.DBus.Properties",
                                             "PropertiesChanged", "/net/hadess/SensorProxy", None,
                                             Gio.DBusSignalFlags.NONE, changed)
            self.connection.call_sync("net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                      "ClaimAccelerometer", None, None, Gio.DBusCallFlags.NONE, 5000, None)
            reply = self.connection.call_sync(
                "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "org.freedesktop.DBus.Properties", "Get",
                GLib.Variant("(ss)", ("net.hadess.SensorProxy", "AccelerometerOrientation")), None,
                Gio.DBusCallFlags.NONE, 5000, None)
            if self.current is None:
                self.current = reply.unpack()[0]
            self.loop = GLib.MainLoop.new(context, False)
        except Exception as error:  # reported by the main thread
            self.error = error
            self.ready.set()
            return
        self.ready.set()
        self.loop.run()

    def stop(self):
        if self.loop is not None:
            self.loop.quit()

    @classmethod
    def claim(cls, address, what="the daemon", timeout=10):
        """A started watcher whose ClaimAccelerometer on `address` was answered
        (RuntimeError naming `what` when the claim failed)."""
        watcher = cls(address)
        watcher.start()
        watcher.ready.wait(timeout)
        if watcher.error is not None:
            raise RuntimeError(f"ClaimAccelerometer on {what} failed: {watcher.error}")
        return watcher


class MockPolkit:
    """python-dbusmock's polkitd template on a private bus (the tests' fake
    polkit, Tests/dbus), allowing CLAIM_ACTION and nothing else: what a seat
    user's claim gets from Debian's polkit (allow_active)."""

    def __init__(self, address):
        from gi.repository import Gio, GLib
        self._log = tempfile.TemporaryFile()  # stderr, for the error below; never a pipe left unread
        self.process = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template", "polkitd", "--system"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
                                        env=clean_env(DBUS_SYSTEM_BUS_ADDRESS=address))
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)

        def owned():
            if self.process.poll() is not None:
                self._log.seek(0)
                raise RuntimeError(f"python-dbusmock's polkitd exited with {self.process.returncode} (Debian: "
                                   f"apt-get install python3-dbusmock): {self._log.read().decode(errors='replace')[-500:]}")
            reply = connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "NameHasOwner", GLib.Variant("(s)", ("org.freedesktop.PolicyKit1",)), None,
                                         Gio.DBusCallFlags.NONE, 2000, None)
            return reply.unpack()[0]

        try:
            wait_until(owned, 15, "python-dbusmock's polkitd to own org.freedesktop.PolicyKit1")
            connection.call_sync("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                                 "org.freedesktop.DBus.Mock", "SetAllowed", GLib.Variant("(as)", ([CLAIM_ACTION],)),
                                 None, Gio.DBusCallFlags.NONE, 5000, None)
        except Exception:
            self.stop()
            raise
        finally:
            connection.close_sync(None)

    def stop(self):
        stop_process(self.process)
        self._log.close()
