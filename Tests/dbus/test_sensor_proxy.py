"""orientd's D-Bus side (docs/dbus.md) with real clients on a private system bus.

orientd runs the hardware path under umockdev with [dbus] enable = true;
iio-sensor-proxy's own `monitor-sensor`, `gdbus`, `busctl` and GDBus
connections talk to it; python-dbusmock plays polkit.
"""

import os
import re
import shutil
import time
import unittest

from bus import (HID, REPO, IFACE, LEFT_UP_RAW, NAME, NORMAL_RAW, PATH, Child, GLib, SensorProxyTestCase,
                 dbus_error_name, wait_until)

COMPASS_PATH = PATH + "/Compass"
COMPASS_IFACE = IFACE + ".Compass"
# The installed policy lets the geoclue user alone claim the compass; the
# tests' clients (root) stand in for GeoClue with the same rule.
AS_GEOCLUE = f"""  <policy user="root">
    <allow send_destination="{NAME}" send_interface="{COMPASS_IFACE}" send_path="{COMPASS_PATH}"/>
  </policy>
"""


class MonitorSensorTests(SensorProxyTestCase):
    def test_monitor_sensor_sees_the_accelerometer_and_each_orientation_change(self):
        """iio-sensor-proxy's monitor-sensor sees "Has accelerometer" and every turn"""
        device = self.sysfs.add(HID)
        self.start_proxy()
        monitor = self.monitor_sensor()
        printed = monitor.printed

        printed(r"=== Has accelerometer")
        printed(r"orientation changed: normal")
        self.sysfs.set_raw(device, **LEFT_UP_RAW)
        printed(r"orientation changed: left-up")
        self.sysfs.set_raw(device, **NORMAL_RAW)
        del monitor.lines[:]
        printed(r"orientation changed: normal")
        if os.environ.get("ORIENTD_DBUS_VERBOSE"):
            print("\n    monitor-sensor printed:", *monitor.lines, sep="\n      ")


class IntrospectionTests(SensorProxyTestCase):
    def test_gdbus_introspect_shows_iio_sensor_proxys_interface(self):
        """gdbus introspect lists the interface's members with their types, and the Compass child"""
        self.start_proxy()
        result = self.run_client(["gdbus", "introspect", "--system", "--dest", NAME, "--object-path", PATH])
        self.assertEqual(result.returncode, 0, result.stderr)
        ours = result.stdout
        for line in ["ClaimAccelerometer();", "ReleaseAccelerometer();", "ClaimLight();", "ReleaseLight();",
                     "ClaimProximity();", "ReleaseProximity();", "readonly b HasAccelerometer",
                     "readonly s AccelerometerOrientation", "readonly s AccelerometerTilt",
                     "readonly b HasAmbientLight", "readonly s LightLevelUnit", "readonly d LightLevel",
                     "readonly b HasProximity", "readonly b ProximityNear", "node Compass"]:
            self.assertIn(line, ours)

    def test_introspection_matches_the_installed_iio_sensor_proxy_member_for_member(self):
        """the interface is iio-sensor-proxy's (Debian's 3.0 build, which predates AccelerometerTilt)"""
        peer = shutil.which("iio-sensor-proxy") or "/usr/sbin/iio-sensor-proxy"
        if not os.access(peer, os.X_OK):
            self.skipTest("iio-sensor-proxy is not installed (Debian: apt-get install iio-sensor-proxy)")
        # iio-sensor-proxy finds sensors by udev's IIO_SENSOR_PROXY_TYPE: the
        # bench's description of the same accelerometer carries it.
        self.sysfs.testbed.add_from_string((REPO / "scripts" / "bench" / "accel_3d.umockdev").read_text())
        self.start_proxy()
        ours = self.introspect_members()
        self.daemon.stop()
        peer = Child([peer, "-v"], env=self.environment(), output="both")
        self.addCleanup(peer.stop)
        probe = self.client()

        def owned():
            return probe.call("NameHasOwner", GLib.Variant("(s)", (NAME,)), interface="org.freedesktop.DBus",
                              path="/org/freedesktop/DBus", destination="org.freedesktop.DBus")[0]
        wait_until(owned, 10, "iio-sensor-proxy to own the name", detail=peer.log_tail)
        theirs = self.introspect_members()
        self.assertEqual([m for m in ours if "AccelerometerTilt" not in m], theirs)

    def introspect_members(self):
        result = self.run_client(["gdbus", "introspect", "--system", "--dest", NAME, "--object-path", PATH])
        self.assertEqual(result.returncode, 0, result.stderr)
        # Members with their types, values left out (they differ from run to run).
        return [re.sub(r" = .*;", ";", line.strip()) for line in result.stdout.splitlines() if line.strip()]


class PropertyTests(SensorProxyTestCase):
    def test_properties_read_before_any_claim(self):
        """before any claim: HasAccelerometer true, orientation and tilt undefined, no light or proximity (unit lux)"""
        self.sysfs.add(HID)
        self.start_proxy()
        reader = self.client()
        self.assertEqual(reader.get("HasAccelerometer"), True)
        self.assertEqual(reader.get("AccelerometerOrientation"), "undefined")
        self.assertEqual(reader.get("AccelerometerTilt"), "undefined")
        everything = reader.call("GetAll", GLib.Variant("(s)", (IFACE,)), interface="org.freedesktop.DBus.Properties")[0]
        self.assertEqual(everything, {
            "HasAccelerometer": True, "AccelerometerOrientation": "undefined", "AccelerometerTilt": "undefined",
            "HasAmbientLight": False, "LightLevelUnit": "lux", "LightLevel": 0.0,
            "HasProximity": False, "ProximityNear": False})

    def test_busctl_reads_a_property(self):
        """busctl get-property reads HasAccelerometer"""
        self.sysfs.add(HID)
        self.start_proxy()
        result = self.run_client(["busctl", "--system", "get-property", NAME, PATH, IFACE, "HasAccelerometer"])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "b true")

    def test_light_and_proximity_without_such_sensors(self):
        """Claim/Release of light and proximity succeed at once on a machine without them, and change nothing"""
        self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        for method in ("ClaimLight", "ClaimProximity", "ReleaseLight", "ReleaseProximity"):
            started = time.monotonic()
            self.assertEqual(client.call(method), ())
            self.assertLess(time.monotonic() - started, 1.0, f"{method} answered at once")
        self.assertEqual(client.get("HasAmbientLight"), False)
        self.assertEqual(client.get("LightLevelUnit"), "lux")
        self.assertEqual(client.get("HasProximity"), False)
        self.assertEqual(client.get("ProximityNear"), False)
        self.assertEqual(self.claimers(), 0)
        self.daemon.wait_for_log(rf"{re.escape(client.name)} released the proximity sensor \(0 claimers\)")

    def test_only_geoclue_claims_the_compass_and_anyone_reads_has_compass(self):
        """the bus policy keeps everyone but the geoclue user from ClaimCompass, as iio-sensor-proxy's does; anyone may
        read the compass object's properties and introspect it (iio-sensor-proxy 3.7's monitor-sensor reads HasCompass)"""
        self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        for member in ("ClaimCompass", "ReleaseCompass"):
            with self.subTest(member=member):
                with self.assertRaises(GLib.Error) as raised:
                    client.call(member, interface=COMPASS_IFACE, path=COMPASS_PATH)
                self.assertEqual(dbus_error_name(raised.exception), "org.freedesktop.DBus.Error.AccessDenied")
                self.assertIn("Rejected send message", str(raised.exception))
        everything = client.call("GetAll", GLib.Variant("(s)", (COMPASS_IFACE,)), interface="org.freedesktop.DBus.Properties",
                                 path=COMPASS_PATH)[0]
        self.assertEqual(everything, {"HasCompass": False, "CompassHeading": -1.0})
        xml = client.call("Introspect", interface="org.freedesktop.DBus.Introspectable", path=COMPASS_PATH)[0]
        self.assertIn('<method name="ClaimCompass"/>', xml)
        self.assertEqual(client.get("HasAccelerometer"), True)


class CompassTests(SensorProxyTestCase):
    bus_extra = AS_GEOCLUE

    def test_claim_and_release_compass_without_a_compass(self):
        """ClaimCompass and ReleaseCompass succeed at once on a machine without a compass"""
        self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        for method in ("ClaimCompass", "ReleaseCompass"):
            started = time.monotonic()
            self.assertEqual(client.call(method, interface=COMPASS_IFACE, path=COMPASS_PATH), ())
            self.assertLess(time.monotonic() - started, 1.0, f"{method} answered at once")
        self.daemon.wait_for_log(rf"{re.escape(client.name)} released the compass \(0 claimers\)")

    def test_compass_heading_is_unknown_without_a_compass(self):
        """without a compass, HasCompass is false and CompassHeading -1 (unknown), not 0 (which GeoClue takes for north)"""
        self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        everything = client.call("GetAll", GLib.Variant("(s)", (COMPASS_IFACE,)), interface="org.freedesktop.DBus.Properties",
                                 path=COMPASS_PATH)[0]
        self.assertEqual(everything, {"HasCompass": False, "CompassHeading": -1.0})
        client.call("ClaimCompass", interface=COMPASS_IFACE, path=COMPASS_PATH)
        heading = client.call("Get", GLib.Variant("(ss)", (COMPASS_IFACE, "CompassHeading")),
                              interface="org.freedesktop.DBus.Properties", path=COMPASS_PATH)[0]
        self.assertEqual(heading, -1.0)
        result = self.run_client(["busctl", "--system", "get-property", NAME, COMPASS_PATH, COMPASS_IFACE, "CompassHeading"])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "d -1")

    def test_the_published_orientation_is_the_effective_one(self):
        """a rotation lock taken on the socket is what D-Bus claimers see"""
        device = self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        client.claim()
        self.assertEqual(client.get("AccelerometerOrientation"), "normal")
        socket_client = self.connect()
        self.assertEqual(socket_client.request("lock", orientation="right-up")["type"], "ok")
        client.wait_signal("AccelerometerOrientation", "right-up")
        self.sysfs.set_raw(device, **LEFT_UP_RAW)
        socket_client.subscribe()
        socket_client.wait_physical("left-up")
        client.pump()
        self.assertEqual(client.get("AccelerometerOrientation"), "right-up")
        socket_client.request("unlock")
        client.wait_signal("AccelerometerOrientation", "left-up")


class ClaimTests(SensorProxyTestCase):
    def test_a_claim_answers_after_the_first_reading(self):
        """the first claim's reply comes with a reading: the orientation is defined right after it"""
        self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        self.assertEqual(client.get("AccelerometerOrientation"), "undefined")
        client.claim()
        self.assertEqual(client.get("AccelerometerOrientation"), "normal")
        self.assertEqual(client.get("AccelerometerTilt"), "vertical")
        self.wait_claimers(1)

    def test_claim_release_and_disconnect_are_tracked_per_sender(self):
        """claims are per sender; a second claim is a no-op; release and leaving the bus both end a claim"""
        self.sysfs.add(HID)
        self.start_proxy()
        first, second = self.client(), self.client()
        first.claim()
        first.claim()
        self.wait_claimers(1)
        second.claim()
        self.wait_claimers(2)
        first.release()
        self.wait_claimers(1)
        first.release()  # releasing twice is harmless
        second.close()
        self.bus_clients.remove(second)
        self.wait_claimers(0)
        self.daemon.wait_for_log(rf"{re.escape(second.name)} left the bus")

    def test_a_claim_from_busctl_ends_when_busctl_exits(self):
        """busctl call ClaimAccelerometer claims, and the claim ends with busctl's connection"""
        self.sysfs.add(HID)
        self.start_proxy()
        result = self.run_client(["busctl", "--system", "call", NAME, PATH, IFACE, "ClaimAccelerometer"])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.wait_claimers(0)
        self.assertRegex(self.daemon.log(), r"claims the accelerometer \(1 claimer\)")

    def test_non_claimers_get_no_properties_changed(self):
        """PropertiesChanged goes to the claimer only, never to a listener that did not claim"""
        device = self.sysfs.add(HID)
        self.start_proxy()
        claimer, bystander = self.client(), self.client()
        claimer.claim()
        self.sysfs.set_raw(device, **LEFT_UP_RAW)
        claimer.wait_signal("AccelerometerOrientation", "left-up")
        self.sysfs.set_raw(device, **NORMAL_RAW)
        def turned_back():
            claimer.pump()
            return [c.get("AccelerometerOrientation") for _, c in claimer.signals].count("normal") == 2
        wait_until(turned_back, 5, "the turn back to normal")
        bystander.pump()
        self.assertEqual(bystander.signals, [])
        changes = [changed for _, changed in claimer.signals]
        self.assertTrue(all(len(c) == 1 for c in changes), f"one property per signal: {changes}")
        orientations = [c["AccelerometerOrientation"] for c in changes if "AccelerometerOrientation" in c]
        self.assertEqual(orientations, ["normal", "left-up", "normal"], "one signal per change")

    def test_has_accelerometer_follows_hotplug(self):
        """a claim without a sensor answers at once; the claimer is told when one appears and goes"""
        self.start_proxy()
        client = self.client()
        self.assertEqual(client.get("HasAccelerometer"), False)
        started = time.monotonic()
        client.claim()
        self.assertLess(time.monotonic() - started, 1.0)
        device = self.sysfs.add(HID)
        client.wait_signal("HasAccelerometer", True)
        client.wait_signal("AccelerometerOrientation", "normal")
        self.sysfs.remove(device)
        client.wait_signal("HasAccelerometer", False)
        self.assertEqual(client.get("AccelerometerOrientation"), "undefined")


class PolkitTests(SensorProxyTestCase):
    dbus_config = "polkit = auto\n"
    bus_extra = AS_GEOCLUE

    def start_polkit(self, allowed):
        polkit = Child(["/usr/bin/python3", "-m", "dbusmock", "--template", "polkitd", "--system"],
                       env=self.client_environment())
        self.addCleanup(polkit.stop)
        probe = self.client()

        def owned():
            return probe.call("NameHasOwner", GLib.Variant("(s)", ("org.freedesktop.PolicyKit1",)),
                              interface="org.freedesktop.DBus", path="/org/freedesktop/DBus",
                              destination="org.freedesktop.DBus")[0]
        wait_until(owned, 10, "the mock polkit to own its name")
        probe.call("SetAllowed", GLib.Variant("(as)", (allowed,)), interface="org.freedesktop.DBus.Mock",
                   path="/org/freedesktop/PolicyKit1/Authority", destination="org.freedesktop.PolicyKit1")

    def test_polkit_refusing_the_action_refuses_the_claim(self):
        """with polkit not allowing net.hadess.SensorProxy.claim-sensor, a claim is AccessDenied"""
        self.sysfs.add(HID)
        self.start_polkit([])
        self.start_proxy()
        client = self.client()
        with self.assertRaises(GLib.Error) as raised:
            client.claim()
        self.assertEqual(dbus_error_name(raised.exception), "org.freedesktop.DBus.Error.AccessDenied")
        self.assertEqual(self.claimers(), 0)
        self.assertEqual(client.get("AccelerometerOrientation"), "undefined")

    def test_polkit_allowing_the_action_allows_the_claim(self):
        """with polkit allowing net.hadess.SensorProxy.claim-sensor, the claim succeeds"""
        self.sysfs.add(HID)
        self.start_polkit(["net.hadess.SensorProxy.claim-sensor"])
        self.start_proxy()
        client = self.client()
        client.claim()
        self.wait_claimers(1)
        self.assertEqual(client.get("AccelerometerOrientation"), "normal")

    def test_polkit_refusing_the_action_refuses_claim_compass(self):
        """ClaimCompass is checked with polkit too (iio-sensor-proxy 3.7+): refused without polkit's yes, allowed with it"""
        self.sysfs.add(HID)
        self.start_polkit([])
        self.start_proxy()
        client = self.client()
        with self.assertRaises(GLib.Error) as raised:
            client.call("ClaimCompass", interface=COMPASS_IFACE, path=COMPASS_PATH)
        self.assertEqual(dbus_error_name(raised.exception), "org.freedesktop.DBus.Error.AccessDenied")
        self.assertNotRegex(self.daemon.log(), r"claims the compass")
        client.call("SetAllowed", GLib.Variant("(as)", (["net.hadess.SensorProxy.claim-sensor"],)),
                    interface="org.freedesktop.DBus.Mock", path="/org/freedesktop/PolicyKit1/Authority",
                    destination="org.freedesktop.PolicyKit1")
        self.assertEqual(client.call("ClaimCompass", interface=COMPASS_IFACE, path=COMPASS_PATH), ())
        self.daemon.wait_for_log(rf"{re.escape(client.name)} claims the compass \(1 claimer\)")

    def test_polkit_required_without_polkit_refuses(self):
        """polkit = required on a bus without polkit refuses claims, as iio-sensor-proxy does"""
        self.sysfs.add(HID)
        self.start_proxy(config="polkit = required\n")
        with self.assertRaises(GLib.Error) as raised:
            self.client().claim()
        self.assertEqual(dbus_error_name(raised.exception), "org.freedesktop.DBus.Error.AccessDenied")

    def test_polkit_auto_without_polkit_allows(self):
        """polkit = auto on a bus without polkit allows claims"""
        self.sysfs.add(HID)
        self.start_proxy()
        self.client().claim()
        self.wait_claimers(1)


class NameTests(SensorProxyTestCase):
    def own_name(self, client, flags):
        return client.call("RequestName", GLib.Variant("(su)", (NAME, flags)), interface="org.freedesktop.DBus",
                           path="/org/freedesktop/DBus", destination="org.freedesktop.DBus")[0]

    def test_a_taken_name_is_logged_and_the_socket_keeps_serving(self):
        """another owner (allowing replacement, as iio-sensor-proxy): a clear log line, the socket works, the name follows when it leaves"""
        self.sysfs.add(HID)
        squatter = self.client()
        self.assertEqual(self.own_name(squatter, 1), 1)
        self.start_proxy()
        self.daemon.wait_for_log(r"net.hadess.SensorProxy is owned by another process.*socket keeps serving")
        self.assertEqual(self.connect().get()["physical"], "normal")
        squatter.close()
        self.bus_clients.remove(squatter)
        self.daemon.wait_for_log(r"now own net.hadess.SensorProxy")
        self.assertEqual(self.client().get("HasAccelerometer"), True)

    def test_replace_takes_the_name_over(self):
        """--replace takes the name from an owner that allows replacement"""
        self.sysfs.add(HID)
        squatter = self.client()
        self.assertEqual(self.own_name(squatter, 1), 1)
        self.start_proxy("--replace")
        self.daemon.wait_for_log(r"serving net.hadess.SensorProxy")
        self.assertEqual(self.client().get("HasAccelerometer"), True)


class HostileClientTests(SensorProxyTestCase):
    dbus_config = "polkit = off\nclaimers = 4\n"

    def test_malformed_calls_get_errors_and_the_daemon_goes_on(self):
        """wrong signatures, unknown members, interfaces and paths each get a D-Bus error"""
        self.sysfs.add(HID)
        self.start_proxy()
        client = self.client()
        cases = [
            ("ClaimAccelerometer", GLib.Variant("(s)", ("x",)), IFACE, PATH, "InvalidArgs"),
            ("Explode", None, IFACE, PATH, "UnknownMethod"),
            ("Get", GLib.Variant("(s)", (IFACE,)), "org.freedesktop.DBus.Properties", PATH, "InvalidArgs"),
            ("Get", GLib.Variant("(ss)", (IFACE, "Nope")), "org.freedesktop.DBus.Properties", PATH, "InvalidArgs"),
            ("Get", GLib.Variant("(ss)", ("x" * 60000, "y")), "org.freedesktop.DBus.Properties", PATH, "InvalidArgs"),
            ("GetAll", GLib.Variant("(u)", (3,)), "org.freedesktop.DBus.Properties", PATH, "InvalidArgs"),
            ("Set", GLib.Variant("(ssv)", (IFACE, "HasAccelerometer", GLib.Variant("b", False))),
             "org.freedesktop.DBus.Properties", PATH, "PropertyReadOnly"),
            # The bus policy lets no other interface through.
            ("ClaimAccelerometer", None, "net.hadess.Other", PATH, "AccessDenied"),
            ("ClaimAccelerometer", None, IFACE, "/net/hadess/SensorProxy/Nope", "UnknownObject"),
        ]
        for member, args, interface, path, expected in cases:
            with self.subTest(member=member, expected=expected):
                with self.assertRaises(GLib.Error) as raised:
                    client.call(member, args, interface=interface, path=path)
                self.assertEqual(dbus_error_name(raised.exception), f"org.freedesktop.DBus.Error.{expected}")
        self.assertEqual(client.get("HasAccelerometer"), True)
        self.assertEqual(self.connect().get()["sensor"] in ("idle", "active"), True)

    def test_a_flood_of_claims_is_answered_and_bounded(self):
        """2000 claims from one sender all answered; more senders than [dbus] claimers get LimitsExceeded"""
        self.sysfs.add(HID)
        self.start_proxy()
        flooder = self.client()
        pending = []
        flooder.context.push_thread_default()
        try:
            for _ in range(2000):
                pending.append(None)
                flooder.connection.call(NAME, PATH, IFACE, "ClaimAccelerometer", None, None,
                                        0, 10000, None, lambda c, r, _: pending.pop(), None)
        finally:
            flooder.context.pop_thread_default()
        wait_until(lambda: (flooder.pump(), not pending)[1], 20, "every flooded claim to be answered")
        self.wait_claimers(1)
        others = [self.client() for _ in range(5)]
        refused = 0
        for other in others:
            try:
                other.claim()
            except GLib.Error as error:
                self.assertEqual(dbus_error_name(error), "org.freedesktop.DBus.Error.LimitsExceeded")
                refused += 1
        self.assertEqual(refused, 2)
        self.assertEqual(self.connect().get()["physical"], "normal")
        self.assertTrue(self.daemon.alive())


if __name__ == "__main__":
    unittest.main()
