"""Input-subsystem sensors read through libevdev: an accelerometer
(`ID_INPUT_ACCELEROMETER`, ABS_X/Y/Z; iio-sensor-proxy's input-accel) rotates
the screen as an IIO one does (docs/behaviour.md, Input accelerometers).

The fake evdev nodes are evdev_support.py's (a pty with an ioctl record);
`input-accelerometer.umockdev` models a lis3lv02d at 1024 units per g.
"""

import json

import evdev_support as ev
from harness import DaemonTestCase

G = ev.ACCEL_RESOLUTION  # units per g


class InputAccelerometerTests(DaemonTestCase):
    def test_an_input_accelerometer_rotates_through_all_four_orientations(self):
        """ABS_X/Y/Z events, scaled by each axis's resolution: normal, left-up, bottom-up, right-up; status names input-accel"""
        node = ev.EvdevNode(self.sysfs.testbed, "input-accelerometer")
        self.start_daemon("--log-level", "info")
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        for (x, y), orientation in (((G, 0), "left-up"), ((0, G), "bottom-up"), ((-G, 0), "right-up"), ((0, -G), "normal")):
            node.send(ev.abs_frame(x=x, y=y))
            client.wait_physical(orientation)
        status = json.loads(self.status("--json"))["daemon"]
        accelerometer = [entry for entry in status["sensors"] if entry["kind"] == "accelerometer"]
        self.assertEqual([(e["driver"], e["device"], e["state"]) for e in accelerometer], [("input-accel", "event6", "in-use")], status)
        self.assertIn("ST LIS3LV02DL Accelerometer through evdev", self.daemon.log())

    def test_a_removed_input_accelerometer_makes_the_sensor_absent(self):
        """the node hangs up and udev says remove: the sensor goes absent, the daemon keeps serving"""
        node = ev.EvdevNode(self.sysfs.testbed, "input-accelerometer")
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        node.remove()
        client.wait_sensor("absent")
        self.assertTrue(self.daemon.alive())
        self.assertEqual(client.get()["sensor"], "absent")

    def test_an_iio_accelerometer_is_preferred_to_an_input_one(self):
        """with both, the IIO device is read (iio-sensor-proxy's driver order)"""
        ev.EvdevNode(self.sysfs.testbed, "input-accelerometer")
        self.sysfs.add("hid-sensor-hub-accel_3d.umockdev")
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_sensor("active")
        entries = json.loads(self.status("--json"))["daemon"]["sensors"]
        self.assertEqual(entries[0]["driver"], "iio-poll-accel", entries)
