"""The peer, iio-sensor-proxy, for `make bench`: where it is installed, its
version, whether it asks polkit for a claim (and so whether orientd should
too, to do the same work), and `Peer`: the peer started on a private system
bus, reading the same fake devices as orientd.
"""

import os
import shutil
import subprocess
from pathlib import Path

from bus import CLAIM_ACTION, MockPolkit
from common import clean_env, stop_process, wait_until

PEER_CANDIDATES = ("/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy")


def asks_polkit(binary):
    """Whether this iio-sensor-proxy authorises claims with polkit: 3.7
    (Debian 13) asks polkit for every claim (action CLAIM_ACTION; no polkit on
    the bus refuses), 3.0 (Debian 12) asks nothing."""
    return b"polkit_authority_check_authorization" in Path(binary).read_bytes()


class Peer:
    def __init__(self, binary, env, bus_address, workdir):
        self.log_path = Path(workdir) / "iio-sensor-proxy.log"
        self.polkit = self.process = self._log = None
        try:
            self._start(binary, env, bus_address)
        except Exception:
            self.stop()
            raise

    def _start(self, binary, env, bus_address):
        # 3.7 refuses every claim without polkit's yes: a fake polkit on its bus gives it.
        self.polkit = MockPolkit(bus_address) if asks_polkit(binary) else None
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen([binary], stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                        env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=bus_address))
        self.pid = self.process.pid
        from gi.repository import Gio, GLib
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        connection = Gio.DBusConnection.new_for_address_sync(bus_address, flags, None, None)

        def owned():
            if self.process.poll() is not None:
                raise RuntimeError(f"iio-sensor-proxy exited with {self.process.returncode}: "
                                   f"{self.log_path.read_text(errors='replace')[-2000:]}")
            reply = connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "NameHasOwner", GLib.Variant("(s)", ("net.hadess.SensorProxy",)), None,
                                         Gio.DBusCallFlags.NONE, 2000, None)
            return reply.unpack()[0]

        wait_until(owned, 10, "iio-sensor-proxy to own net.hadess.SensorProxy")
        reply = connection.call_sync("net.hadess.SensorProxy", "/net/hadess/SensorProxy",
                                     "org.freedesktop.DBus.Properties", "Get",
                                     GLib.Variant("(ss)", ("net.hadess.SensorProxy", "HasAccelerometer")), None,
                                     Gio.DBusCallFlags.NONE, 2000, None)
        if not reply.unpack()[0]:
            raise RuntimeError("iio-sensor-proxy runs but reports HasAccelerometer = false")
        connection.close_sync(None)

    def stop(self):
        if self.process is not None:
            stop_process(self.process)
        if self._log is not None:
            self._log.close()
        if self.polkit is not None:
            self.polkit.stop()


def find_peer():
    if "BENCH_PEER" in os.environ:  # another build of the peer (or a missing one, to test the null path)
        return os.environ["BENCH_PEER"] if os.access(os.environ["BENCH_PEER"], os.X_OK) else None
    for candidate in (shutil.which("iio-sensor-proxy"), *PEER_CANDIDATES):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def peer_version():
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "iio-sensor-proxy"], capture_output=True,
                             text=True, env=clean_env()).stdout.strip()
        return out or None
    except OSError:
        return None


def orientd_polkit(binary, address, polkits, setting):
    """orientd's [dbus] polkit against the peer `binary`: asking polkit for
    every claim when the peer does (iio-sensor-proxy 3.7), against a fake
    polkit on orientd's bus (appended to `polkits`, stopped by the caller)
    giving the same answer as the peer's; never when the peer does not
    (3.0), or with `setting` "off" (--orientd-polkit off). (the setting, a
    note for details)"""
    if not asks_polkit(binary):
        return "off", "neither asks polkit: the peer has no polkit check, orientd [dbus] polkit = off"
    if setting == "off":
        return "off", (f"the peer asks polkit ({CLAIM_ACTION}, python-dbusmock's polkitd on its bus allowing it); "
                       "orientd [dbus] polkit = off (--orientd-polkit off): orientd asks nothing")
    polkits.append(MockPolkit(address))
    return "required", (f"both ask polkit for every claim ({CLAIM_ACTION}), each against python-dbusmock's "
                        "polkitd on its own bus allowing it; orientd [dbus] polkit = required")
