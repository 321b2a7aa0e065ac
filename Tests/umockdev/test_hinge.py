"""Tablet mode from the hinge angle (docs/behaviour.md, Tablet mode): a
2-in-1 with a display accelerometer (the HID sensor hub's) and one in the
base (bmc150, sysfs label accel-base) and no SW_TABLET_MODE switch. The base
is read only while the display's is, under auto-rotate = tablet-mode.

The base's readings are given as the display would read them opened flat at
180° (its mount matrix is the identity), so flat on the desk it reads the
HID sensor's face up: -g on z.
"""

import json
import os
import signal

from harness import DaemonTestCase

DISPLAY = "hid-sensor-hub-accel_3d.umockdev"  # iio:device3, 256 counts per g
BASE = "i2c-bmc150-base-label.umockdev"  # iio:device0, label accel-base, 1024 counts per g


class HingeTests(DaemonTestCase):
    def status(self):
        return json.loads(super().status("--json"))["daemon"]

    def test_the_hinge_angle_decides_laptop_and_tablet(self):
        """90°: laptop, the screen natural while the lid turns; 270°: tablet, turned at once; back to 90°: laptop"""
        base = self.sysfs.add(BASE)
        display = self.sysfs.add(DISPLAY)
        self.sysfs.set_raw(base, x=0, y=0, z=-1024)  # flat on the desk
        self.start_daemon()
        idle = self.status()["tablet_mode"]
        self.assertEqual((idle["source"], idle["device"], idle["auto_rotate"]), ("hinge", "iio:device0", "tablet-mode"), idle)
        client = self.connect()
        client.subscribe()
        state = client.wait_state(lambda s: s["tablet_mode"] == "laptop", 5, "laptop from the hinge")
        self.assertEqual(state["orientation"], "normal", state)
        tablet = self.status()["tablet_mode"]
        self.assertAlmostEqual(tablet["hinge_angle"], 90, delta=1)
        self.assertIn("iio:device3", tablet["reason"])
        entries = {e["device"]: e for e in self.status()["sensors"] if e["kind"] == "accelerometer"}
        self.assertEqual(entries["iio:device0"]["state"], "in-use", entries)
        self.assertIn("hinge angle", entries["iio:device0"]["reason"])

        # The lid turned to its side: the hinge is vertical for the display, the mode holds.
        self.sysfs.set_raw(display, x=256, y=0)
        state = client.wait_physical("left-up")
        self.assertEqual((state["orientation"], state["tablet_mode"]), ("normal", "laptop"), state)

        # Folded to 270° (the display upside down over the base): tablet, and the screen turns at once.
        self.sysfs.set_raw(display, x=0, y=256)
        state = client.wait_state(lambda s: s["tablet_mode"] == "tablet", 5, "tablet from the hinge")
        self.assertEqual(state["orientation"], state["physical"], state)
        client.wait_state(lambda s: s["orientation"] == "bottom-up", 5, "the screen turned")
        self.assertAlmostEqual(self.status()["tablet_mode"]["hinge_angle"], 270, delta=1)

        # Back to a laptop at 90°.
        self.sysfs.set_raw(display, x=0, y=-256)
        state = client.wait_state(lambda s: s["tablet_mode"] == "laptop", 5, "laptop again")
        self.assertEqual(state["orientation"], "normal", state)

    def test_the_base_is_read_only_while_the_display_is(self):
        """no subscriber: neither accelerometer is open; a subscriber opens both; leaving closes both"""
        self.sysfs.add(BASE)
        self.sysfs.add(DISPLAY)
        self.start_daemon()
        self.assertEqual({e["device"]: e["state"] for e in self.status()["sensors"] if e["kind"] == "accelerometer"},
                         {"iio:device3": "idle", "iio:device0": "idle"})
        client = self.connect()
        client.subscribe()
        client.wait_sensor("active")
        states = {e["device"]: e["state"] for e in self.status()["sensors"] if e["kind"] == "accelerometer"}
        self.assertEqual(states, {"iio:device3": "in-use", "iio:device0": "in-use"})
        client.close()
        self.clients.remove(client)
        self.settle()
        self.assertEqual({e["device"]: e["state"] for e in self.status()["sensors"] if e["kind"] == "accelerometer"},
                         {"iio:device3": "idle", "iio:device0": "idle"})

    def test_uinput_unavailable_is_a_warning_in_status_and_nothing_else(self):
        """no /dev/uinput to open: status names the switch's problem and its fix, no accelerometer is read for
        it, and the hinge still decides for a subscriber; tablet-mode-switch = off is no problem"""
        base = self.sysfs.add(BASE)
        self.sysfs.add(DISPLAY)
        self.sysfs.set_raw(base, x=0, y=0, z=-1024)
        daemon = self.start_daemon()
        status = self.status()
        tablet = status["tablet_mode"]
        self.assertIsNone(tablet.get("uinput_switch"), tablet)
        self.assertEqual(tablet["uinput_switch_reason"], "cannot open /dev/uinput: Is a directory", tablet)
        problems = [p for p in status["problems"] if "SW_TABLET_MODE" in p["problem"]]
        self.assertEqual(len(problems), 1, status["problems"])
        self.assertIn("tablet-mode-switch = off", problems[0]["fix"])
        self.assertEqual({e["device"]: e["state"] for e in status["sensors"] if e["kind"] == "accelerometer"},
                         {"iio:device3": "idle", "iio:device0": "idle"})
        self.assertIn("cannot open /dev/uinput: Is a directory", daemon.log())
        client = self.connect()
        client.subscribe()
        client.wait_state(lambda s: s["tablet_mode"] == "laptop", 5, "laptop from the hinge")

        with open(f"{self.workdir}/orientd.conf", "w") as f:
            f.write("[orientation]\nnatural = portrait\n[daemon]\ntablet-mode-switch = off\n")
        os.kill(daemon.pid, signal.SIGHUP)
        daemon.wait_for_log(r"configuration reloaded")
        status = self.status()
        self.assertEqual(status["tablet_mode"]["uinput_switch_reason"], "[daemon] tablet-mode-switch = off")
        self.assertEqual([p for p in status["problems"] if "SW_TABLET_MODE" in p["problem"]], [])

    def test_auto_rotate_always_leaves_the_base_closed(self):
        """auto-rotate = always needs no mode: the base stays closed while the display is read"""
        with open(f"{self.workdir}/orientd.conf", "w") as f:
            f.write("[orientation]\nnatural = portrait\n[daemon]\nauto-rotate = always\n")
        self.sysfs.add(BASE)
        display = self.sysfs.add(DISPLAY)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_sensor("active")
        self.sysfs.set_raw(display, x=256, y=0)
        self.assertEqual(client.wait_physical("left-up")["orientation"], "left-up")
        entries = {e["device"]: e["state"] for e in self.status()["sensors"] if e["kind"] == "accelerometer"}
        self.assertEqual(entries["iio:device0"], "idle", entries)
