"""Mount matrix, scale and sampling frequency come from sysfs and udev (SPEC §6)."""

import unittest

from harness import DaemonTestCase

MXC4005 = "i2c-mxc4005.umockdev"
BMC150_HWDB_MATRIX = "i2c-bmc150-hwdb-matrix.umockdev"
CROS_EC_DISPLAY = "cros-ec-accel-display.umockdev"


def parse_numbers(text):
    return [float(word) for word in text.split()]


class MountMatrixTests(DaemonTestCase):
    def test_the_mount_matrix_from_in_accel_mount_matrix_is_applied(self):
        """the mount matrix from in_accel_mount_matrix is applied"""
        # mxc4005: in_accel_mount_matrix "0, 1, 0; -1, 0, 0; 0, 0, 1", so the
        # panel reads (y, -x, z) of the sensor. Raw x = +g is left-up in the
        # sensor frame and normal on the panel.
        device = self.sysfs.add(MXC4005)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        state = client.wait_physical("normal")
        self.assertEqual(state["orientation"], "normal")

        # Upright in the sensor frame (y = -g) is right edge up on the panel.
        self.sysfs.set_raw(device, x=0, y=-1024)
        client.wait_physical("right-up")

        samples = self.connect()
        reply = samples.request("samples")
        self.assertEqual(reply["type"], "ok", reply)
        self.assertEqual(reply["mount_matrix"], "0, 1, 0; -1, 0, 0; 0, 0, 1", reply)

    def test_udev_accel_mount_matrix_beats_sysfs(self):
        """udev ACCEL_MOUNT_MATRIX beats the sysfs in_mount_matrix"""
        # bmc150: sysfs in_mount_matrix is the identity, the hwdb quirk says the
        # chip is upside down ("-1, 0, 0; 0, -1, 0; 0, 0, 1"). The raw values
        # read bottom-up with the sysfs matrix and normal with udev's.
        device = self.sysfs.add(BMC150_HWDB_MATRIX)
        daemon = self.start_daemon()
        client = self.connect()
        client.subscribe()
        state = client.wait_physical("normal")
        self.assertEqual(state["orientation"], "normal")
        self.sysfs.set_raw(device, x=1024, y=0)  # +g on the chip's x: its left edge up
        client.wait_physical("right-up")

        reply = self.connect().request("samples")
        self.assertEqual(reply["mount_matrix"], "-1, 0, 0; 0, -1, 0; 0, 0, 1", reply)
        daemon.wait_for_log(r"iio:device2: mount matrix .* from udev ACCEL_MOUNT_MATRIX")


class ScaleTests(DaemonTestCase):
    def test_per_axis_scales_are_used(self):
        """per-axis in_accel_{x,y,z}_scale are applied axis by axis"""
        # mxc4005 description: x scale 0.038307 (g/256), y scale 0.009577 (g/1024)
        # and the mount matrix panel = (y, -x, z). Raw x = -222, y = 512 is
        # sensor (-8.50, 4.90) m/s^2, panel (4.90, 8.50): 30 degrees off
        # bottom-up. One scale for both axes gives either panel (4.90, 2.13)
        # (left-up side, 5.3 m/s^2) or (19.6, 8.50) (21 m/s^2, over 2 g): never
        # bottom-up.
        device = self.sysfs.add(MXC4005)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        self.sysfs.set_raw(device, x=-222, y=512)
        state = client.wait_physical("bottom-up")
        self.assertEqual(state["orientation"], "bottom-up")

        # And the samples themselves are in m/s^2 per axis.
        samples = self.connect()
        self.assertEqual(samples.request("samples")["type"], "ok")
        sample = samples.wait_message("sample", 2.0)
        self.assertAlmostEqual(sample["x"], -222 * 0.038307, places=2)
        self.assertAlmostEqual(sample["y"], 512 * 0.009577, places=2)

    def test_sampling_frequency_is_set_to_an_available_value_of_at_least_10_hz(self):
        """sampling_frequency is written to an available value of at least 10 Hz"""
        device = self.sysfs.add(MXC4005)
        self.assertEqual(self.sysfs.read_attribute(device, "sampling_frequency").strip(), "6.250000")
        available = parse_numbers(self.sysfs.read_attribute(device, "sampling_frequency_available"))
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        # A writer may include the C string's NUL (libiio's
        # iio_device_attr_write() writes strlen + 1 bytes; orientd writes the
        # digits alone); sysfs parsers stop at it, so it is dropped here too.
        written = self.sysfs.read_attribute(device, "sampling_frequency").rstrip("\0\n")
        self.assertGreaterEqual(float(written), 10.0, written)
        self.assertIn(float(written), available, f"{written} is not one of {available}")

    # SPEC §6 names only in_accel_{x,y,z}_scale and in_accel_scale; cros-ec-accel
    # (Chromebook convertibles) names its shared scale plainly `scale`, which
    # iio-sensor-proxy reads too.
    def test_a_shared_by_all_scale_attribute_is_used(self):
        """a cros-ec sensor's shared-by-all `scale` attribute is used"""
        # cros-ec-accel declares its scale IIO_SHARED_BY_ALL, so sysfs names it
        # plain `scale` (no in_accel_ prefix). iio-sensor-proxy reads it since
        # PR #284. Raw y = -16384 x 0.000598 = -9.80 m/s^2: upright.
        self.sysfs.add(CROS_EC_DISPLAY)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
