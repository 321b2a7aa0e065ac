"""The z sign is decided per driver family, and the config overrides it (docs/classifier.md, "The z sign")."""

from pathlib import Path

from harness import DaemonTestCase

HID = "hid-sensor-hub-accel_3d.umockdev"  # accel_3d: HID sensor hub, the Windows convention
CROS_EC = "cros-ec-accel-display.umockdev"  # cros-ec-accel
MEMS = "i2c-mxc4005.umockdev"  # mxc4005: an I2C MEMS chip


class ZSignTests(DaemonTestCase):
    def test_a_hid_sensor_hub_is_assumed_to_read_minus_z_face_up(self):
        """a HID sensor hub gets z sign -1, assumed, and says why"""
        self.sysfs.add(HID)
        daemon = self.start_daemon()
        daemon.wait_for_log(r"z sign -1 \(face up reads -z\), assumed: hid-sensor-accel-3d")

    def test_a_chromeos_ec_sensor_is_assumed_to_read_minus_z_face_up(self):
        """a ChromeOS EC sensor gets z sign -1, assumed"""
        self.sysfs.add(CROS_EC)
        daemon = self.start_daemon()
        daemon.wait_for_log(r"z sign -1 \(face up reads -z\), assumed: cros-ec-accel")

    def test_other_drivers_get_plus_one(self):
        """an I2C MEMS chip gets +1, assumed"""
        self.sysfs.add(MEMS)
        daemon = self.start_daemon()
        daemon.wait_for_log(r"z sign \+1 \(face up reads \+z\), assumed: driver mxc4005")

    def test_the_config_overrides_the_driver_family(self):
        """z-sign in the config wins over the driver family and is used as known"""
        self.sysfs.add(HID)
        (Path(self.workdir) / "orientd.conf").write_text("[orientation]\nnatural = portrait\n[classifier]\nz-sign = 1\n")
        daemon = self.start_daemon()
        daemon.wait_for_log(r"z sign \+1 \(face up reads \+z\), configured: config z-sign")
        client = self.connect()
        client.subscribe()
        # Upright readings classify the same whatever the z sign.
        client.wait_physical("normal")
