"""`orientctl status` and the `status` op against faked accelerometers: what a
first run needs to know (the sensor, its driver and modalias, the mount matrix
and its source), and the trace header of a recording from the live sensor."""

import json
import os

from harness import DaemonTestCase

MXC4005 = "i2c-mxc4005.umockdev"
BMC150_HWDB = "i2c-bmc150-hwdb-matrix.umockdev"


class StatusTests(DaemonTestCase):
    def test_status_names_the_sensor_its_driver_modalias_and_matrix_source(self):
        """orientctl status names the faked mxc4005, its driver, parent modalias and sysfs mount matrix"""
        device = self.sysfs.add(MXC4005)
        self.start_daemon()
        text = self.status()
        self.assertIn("sensor:           iio:device4 mxc4005 (driver mxc4005), idle (sampled only while a client needs readings)\n", text)
        self.assertIn(f"                  {device}\n", text)
        self.assertIn("                  modalias acpi:MXC4005:MXC4005:, machine ", text)
        self.assertIn("mount matrix:     0, 1, 0; -1, 0, 0; 0, 0, 1 (from sysfs in_accel_mount_matrix)\n", text)
        self.assertNotIn("no accelerometer found", text)

        # While someone subscribes, it is sampled (polled at the configured rate).
        watcher = self.connect()
        watcher.subscribe()
        watcher.wait_sensor("active")
        status = json.loads(self.status("--json"))["daemon"]
        sensor = status["sensor"]
        self.assertEqual(
            {k: sensor[k] for k in ("state", "device", "syspath", "name", "driver", "modalias", "capture", "rate_hz")},
            {"state": "active", "device": "iio:device4", "syspath": device, "name": "mxc4005", "driver": "mxc4005",
             "modalias": "acpi:MXC4005:MXC4005:", "capture": "polled", "rate_hz": 20})
        self.assertEqual(status["mount_matrix"], {"matrix": "0, 1, 0; -1, 0, 0; 0, 0, 1", "source": "in_accel_mount_matrix"})
        self.assertEqual(status["consumers"]["subscribers"], 1)

    def test_a_hwdb_matrix_is_reported_with_its_udev_source(self):
        """the udev ACCEL_MOUNT_MATRIX (a hwdb quirk) is reported as the matrix's source, and logged at notice level"""
        self.sysfs.add(BMC150_HWDB)
        self.start_daemon("--log-level", "notice")
        self.daemon.wait_for_log(r"notice: iio:device2: mount matrix -1, 0, 0; 0, -1, 0; 0, 0, 1 from udev ACCEL_MOUNT_MATRIX")
        self.assertIn("mount matrix:     -1, 0, 0; 0, -1, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX)\n", self.status())

    def test_no_accelerometer_is_reported_with_its_fix_and_logged_at_notice_level(self):
        """with no accelerometer, status says so with the fix, and the daemon logs it at the default level"""
        self.start_daemon("--log-level", "notice")
        self.daemon.wait_for_log(r"notice: no accelerometer found")
        text = self.status()
        self.assertIn("sensor:           none found\n", text)
        self.assertIn("  no accelerometer found\n    fix: check `ls /sys/bus/iio/devices`", text)

    def test_a_recorded_trace_header_names_the_device_driver_and_matrix_source(self):
        """orientctl record against the live sensor writes the IIO name, driver, version, rate and matrix source in the header"""
        self.sysfs.add(MXC4005)
        self.start_daemon()
        trace = os.path.join(self.workdir, "live.trace")
        self.orientctl("record", trace, "--duration", "0.5")
        with open(trace) as f:
            header = [line for line in f.read().splitlines() if line.startswith("#")]
        for expected in ("# mount_matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1", "# rate_hz: 20", "# orientd_version: 0.2.0",
                         "# mount_matrix_source: in_accel_mount_matrix", "# iio_device: iio:device4",
                         "# iio_name: mxc4005", "# driver: mxc4005", "# clock: CLOCK_MONOTONIC"):
            self.assertIn(expected, header)
        self.assertTrue(any(line.startswith("# clock_offset_ms: ") for line in header), header)
