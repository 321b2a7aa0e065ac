"""Accelerometers located in the base are skipped (docs/behaviour.md, Sensors)."""

from harness import DaemonTestCase

BASE_BY_LABEL = "i2c-bmc150-base-label.umockdev"  # iio:device0, label accel-base, reads left-up
BASE_BY_HWDB = "i2c-bmc150-base-hwdb.umockdev"  # iio:device1, udev ACCEL_LOCATION=base, reads right-up
DISPLAY = "hid-sensor-hub-accel_3d.umockdev"  # iio:device3, no location (the display), reads normal


class SensorChoiceTests(DaemonTestCase):
    def test_base_located_sensors_are_skipped_for_the_display_one(self):
        """the base-located sensors are skipped and the display one is followed"""
        # The base sensors have the lower device numbers and say where they are,
        # so only the base rule keeps the daemon off them.
        base_label = self.sysfs.add(BASE_BY_LABEL)
        base_hwdb = self.sysfs.add(BASE_BY_HWDB)
        display = self.sysfs.add(DISPLAY)
        daemon = self.start_daemon()
        daemon.wait_for_log(r"accelerometer: iio:device3 \(accel_3d\)")
        log = daemon.log()
        self.assertRegex(log, r"skipping iio:device0: .*base.*label=accel-base")
        self.assertRegex(log, r"skipping iio:device1: .*base.*ACCEL_LOCATION=base")

        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        self.sysfs.set_raw(display, x=-256, y=0)
        client.wait_physical("right-up")
        # Turning the base sensors changes nothing.
        self.sysfs.set_raw(base_label, x=0, y=1024)
        self.sysfs.set_raw(base_hwdb, x=0, y=1024)
        self.sysfs.set_raw(display, x=0, y=-256)
        state = client.wait_physical("normal")
        self.assertEqual(state["orientation"], "normal")
        self.assertNotRegex(daemon.log(), r"(?<!base )accelerometer: iio:device[01]\b")
