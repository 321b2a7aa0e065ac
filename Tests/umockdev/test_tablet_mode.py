"""Tablet mode from the kernel's SW_TABLET_MODE switch (docs/behaviour.md,
Tablet mode): outside tablet mode the effective orientation stays natural
while the physical one is still reported; folding rotates at once.

The switch is `devices/input-tablet-switch.*`, intel-vbtn's "Intel Virtual
Switches" (evdev_support.py); the accelerometer is the HID sensor hub's.
"""

import json
import os

import evdev_support as ev
from harness import DaemonTestCase

HID = "hid-sensor-hub-accel_3d.umockdev"
LEFT_UP = {"x": 256, "y": 0}


class TabletModeSwitchTests(DaemonTestCase):
    def configure(self, text):
        with open(os.path.join(self.workdir, "orientd.conf"), "w") as f:
            f.write("[orientation]\nnatural = portrait\n" + text)

    def start(self, fixture_ioctl=None, switch=True):
        device = self.sysfs.add(HID)
        node = ev.EvdevNode(self.sysfs.testbed, "input-tablet-switch", ioctl=fixture_ioctl) if switch else None
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        return device, node, client

    def status(self):
        return json.loads(super().status("--json"))["daemon"]

    def test_laptop_mode_holds_the_natural_orientation_and_folding_rotates_at_once(self):
        """laptop: physical left-up, orientation normal; switch on: left-up in the same state; off: normal again"""
        device, node, client = self.start()
        state = client.wait_state(lambda s: s.get("tablet_mode") == "laptop", 5, "laptop mode from the kernel's state")
        self.assertEqual(state["auto_rotate"], "tablet-mode", state)
        self.sysfs.set_raw(device, **LEFT_UP)
        state = client.wait_physical("left-up")
        self.assertEqual((state["orientation"], state["rotation"]), ("normal", 0), state)
        node.send(ev.switch_frame(ev.SW_TABLET_MODE, 1))
        state = client.wait_state(lambda s: s["tablet_mode"] == "tablet", 5, "tablet mode")
        # No hold to wait out: the first tablet-mode state shows the physical orientation.
        self.assertEqual((state["orientation"], state["physical"], state["rotation"]), ("left-up", "left-up", 90), state)
        node.send(ev.switch_frame(ev.SW_TABLET_MODE, 0))
        state = client.wait_state(lambda s: s["tablet_mode"] == "laptop", 5, "laptop mode again")
        self.assertEqual((state["orientation"], state["physical"]), ("normal", "left-up"), state)

    def test_folded_at_start_rotates(self):
        """the kernel's state at start is tablet: the screen follows the sensor from the first reading"""
        device, node, client = self.start(fixture_ioctl="input-tablet-switch-folded")
        client.wait_state(lambda s: s.get("tablet_mode") == "tablet", 5, "tablet mode from the kernel's state")
        self.sysfs.set_raw(device, **LEFT_UP)
        state = client.wait_physical("left-up")
        self.assertEqual(state["orientation"], "left-up", state)

    def test_without_a_switch_the_screen_always_follows(self):
        """no source: mode unknown, auto-rotate always by default, and the screen turns"""
        device, _, client = self.start(switch=False)
        self.assertEqual((client.get()["tablet_mode"], client.get()["auto_rotate"]), ("unknown", "always"))
        self.sysfs.set_raw(device, **LEFT_UP)
        self.assertEqual(client.wait_physical("left-up")["orientation"], "left-up")
        tablet = self.status()["tablet_mode"]
        self.assertEqual((tablet["source"], tablet["auto_rotate"], tablet["device"]), ("none", "always", None), tablet)

    def test_auto_rotate_always_turns_in_laptop_mode(self):
        """[daemon] auto-rotate = always: laptop mode is reported, and the screen turns anyway"""
        self.configure("[daemon]\nauto-rotate = always\n")
        device, _, client = self.start()
        client.wait_state(lambda s: s.get("tablet_mode") == "laptop", 5, "laptop mode")
        self.sysfs.set_raw(device, **LEFT_UP)
        state = client.wait_physical("left-up")
        self.assertEqual((state["orientation"], state["auto_rotate"]), ("left-up", "always"), state)

    def test_auto_rotate_never_holds_natural_in_tablet_mode_but_the_lock_applies(self):
        """auto-rotate = never: tablet mode still shows natural; a lock on left-up still wins"""
        self.configure("[daemon]\nauto-rotate = never\n")
        device, node, client = self.start(fixture_ioctl="input-tablet-switch-folded")
        client.wait_state(lambda s: s.get("tablet_mode") == "tablet", 5, "tablet mode")
        self.sysfs.set_raw(device, **LEFT_UP)
        self.assertEqual(client.wait_physical("left-up")["orientation"], "normal")
        self.assertEqual(client.request("lock", orientation="left-up")["type"], "ok")
        state = client.wait_state(lambda s: s["locked"] == "left-up", 5, "locked")
        self.assertEqual(state["orientation"], "left-up", state)

    def test_status_names_the_switch_and_the_policy(self):
        """status: source switch, device event9, the switch's name; the text report has both rows"""
        self.start()
        tablet = self.status()["tablet_mode"]
        self.assertEqual((tablet["mode"], tablet["source"], tablet["device"]), ("laptop", "switch", "event9"), tablet)
        self.assertIn("Intel Virtual Switches", tablet["reason"])
        self.assertEqual((tablet["auto_rotate"], tablet["auto_rotate_reason"]),
                         ("tablet-mode", "default: the machine has a tablet-mode source"), tablet)
        text = super().status()
        self.assertIn("tablet mode:", text)
        self.assertIn("laptop (from the switch: SW_TABLET_MODE on /dev/input/event9 (Intel Virtual Switches))", text)
        self.assertIn("auto-rotate:", text)

    def test_a_removed_switch_makes_the_mode_unknown_and_the_screen_follow(self):
        """the switch goes away (udev remove): unknown, the default becomes always, the daemon keeps serving"""
        device, node, client = self.start()
        self.sysfs.set_raw(device, **LEFT_UP)
        self.assertEqual(client.wait_physical("left-up")["orientation"], "normal")
        node.remove()
        # The hang-up makes the mode unknown at once; udev's remove then leaves no source.
        state = client.wait_state(lambda s: s["auto_rotate"] == "always", 5, "no source: auto-rotate always")
        self.assertEqual((state["tablet_mode"], state["orientation"]), ("unknown", "left-up"), state)
        self.assertEqual(self.status()["tablet_mode"]["source"], "none")
        self.assertTrue(self.daemon.alive())
