"""Hotplug add, remove and re-add are followed live (docs/behaviour.md, Sensors)."""

import time

from harness import DaemonTestCase, START_S, wait_until

HID = "hid-sensor-hub-accel_3d.umockdev"


class HotplugTests(DaemonTestCase):
    def test_hotplug_add_remove_and_re_add_are_followed(self):
        """with no device the sensor is absent; add, remove and re-add are followed and the daemon keeps answering"""
        daemon = self.start_daemon()
        asker = self.connect()
        first = asker.get()
        self.assertEqual(first["sensor"], "absent", first)
        self.assertEqual(first["physical"], "undefined", first)

        # Plugged in with nobody subscribed: found, idle, and a get reads it.
        device = self.sysfs.add(HID)
        daemon.wait_for_log(r"accelerometer: iio:device3")
        def seen_by_get():
            state = asker.get()
            return state if state["sensor"] != "absent" else None

        present = wait_until(seen_by_get, START_S, "get to see the new sensor")
        self.assertEqual(present["physical"], "normal", present)

        watcher = self.connect()
        self.assertIn(watcher.subscribe()["sensor"], ("idle", "active"))
        watcher.wait_state(lambda s: s["sensor"] == "active" and s["physical"] == "normal", 3, "active, normal")

        # Unplugged while sampled.
        self.sysfs.remove(device)
        gone = watcher.wait_sensor("absent")
        # What the lost device said is not kept as if it were still true; the
        # screen stays as it was (docs/behaviour.md, "Across a replug or a resume").
        self.assertEqual((gone["physical"], gone["orientation"]), ("undefined", "normal"), gone)
        self.assertTrue(daemon.alive())
        start = time.monotonic()
        answer = asker.get(timeout=1.0)
        self.assertLess(time.monotonic() - start, 1.0)
        self.assertEqual(answer["sensor"], "absent", answer)

        # Plugged in again: sampled again (the watcher is still subscribed), and
        # its readings are classified.
        device = self.sysfs.add(HID, parents=False, node=False)
        back = watcher.wait_sensor("active")
        self.assertEqual(back["physical"], "normal", "active only with the new device's orientation")
        self.sysfs.set_raw(device, x=256, y=0)
        watcher.wait_physical("left-up")

    def test_a_device_removed_while_idle_is_noticed_from_its_uevent(self):
        """a device removed while nobody samples it is noticed from its uevent alone"""
        device = self.sysfs.add(HID)
        daemon = self.start_daemon()
        asker = self.connect()
        self.assertEqual(asker.get()["physical"], "normal")
        self.sysfs.remove(device)
        daemon.wait_for_log(r"udev: remove iio:device3")
        wait_until(lambda: asker.get()["sensor"] == "absent", START_S, 'get to say "absent"')
        self.assertTrue(daemon.alive())
