"""A Qualcomm phone's Sensor Core as the daemon finds it: through the DSP's misc
device (`/dev/fastrpc-adsp*`) and udev's `IIO_SENSOR_PROXY_TYPE` (`ssc-light
ssc-compass`, as 61-orientd.rules and iio-sensor-proxy's rule tag it), and
libssc loaded at run time (docs/behaviour.md, "A Qualcomm phone").

This machine has no libssc (Debian 12 cannot install it) and its kernel no
QRTR, so these tests see the gate and the reasons; make check-ssc reads the
sensors through libssc from libssc's mock Sensor Core on a real kernel.
"""

import ctypes.util
import json
import subprocess

from harness import DaemonTestCase, wait_until
from orientd_harness import ORIENTD

#: The DSP's misc device as udev describes it on a phone (minor numbers are dynamic).
FASTRPC = """P: /devices/platform/soc@0/soc@0:remoteproc-adsp/fastrpc-adsp
N: fastrpc-adsp
E: DEVNAME=/dev/fastrpc-adsp
E: MAJOR=10
E: MINOR=120
E: SUBSYSTEM=misc
{tag}A: dev=10:120\\n

"""
LIBSSC_FIX = "install libssc2 (Debian sid, postmarketOS: libssc), then restart orientd"


class SensorCoreTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        if ctypes.util.find_library("ssc"):
            self.skipTest("libssc is installed here: these tests are about a machine without it (make check-ssc reads it)")

    def add_dsp(self, types=None):
        tag = f"E: IIO_SENSOR_PROXY_TYPE={types}\n" if types else ""
        self.sysfs.testbed.add_from_string(FASTRPC.format(tag=tag))

    def daemon_status(self):
        return json.loads(self.status("--json"))["daemon"]

    def test_a_tagged_dsp_without_libssc_shows_light_and_compass_skipped_with_the_package_to_install(self):
        """fastrpc-adsp tagged ssc-light ssc-compass, no libssc: both are skipped with the reason (libssc cannot be
        loaded) and the fix naming the package, in sensors and problems; no accelerometer or proximity is claimed"""
        self.add_dsp("ssc-light ssc-compass")
        self.start_daemon()
        self.daemon.wait_for_log(r"Sensor Core: libssc\.so\.2 cannot be loaded")
        status = wait_until(lambda: (s := self.daemon_status()) and len([e for e in s["sensors"] if e["device"] == "fastrpc-adsp"]) == 2 and s,
                            5, "light and compass listed", detail=lambda: self.daemon.log_tail())
        entries = {e["kind"]: e for e in status["sensors"] if e["device"] == "fastrpc-adsp"}
        self.assertEqual(sorted(entries), ["compass", "light"])
        for kind, driver in (("light", "ssc-light"), ("compass", "ssc-compass")):
            self.assertEqual((entries[kind]["driver"], entries[kind]["state"]), (driver, "skipped"), entries)
            self.assertRegex(entries[kind]["reason"], r"^libssc cannot be loaded \(libssc\.so\.2: cannot open shared object file")
        problems = [p for p in status["problems"] if p["sensor"] == "fastrpc-adsp"]
        self.assertEqual(sorted(p["problem"].split(":")[0] for p in problems), ["compass sensor not offered", "light sensor not offered"])
        self.assertEqual({p["fix"] for p in problems}, {LIBSSC_FIX})
        self.assertEqual(status["sensor"], {"state": "absent"})
        text = self.status()
        self.assertIn("libssc cannot be loaded", text)
        self.assertIn(LIBSSC_FIX, text)

    def test_a_dsp_udev_did_not_tag_is_not_a_sensor_and_nothing_is_loaded(self):
        """fastrpc-adsp without IIO_SENSOR_PROXY_TYPE (a rule that tags nothing): not listed, libssc never looked for"""
        self.add_dsp()
        self.start_daemon()
        self.daemon.wait_for_log(r"no accelerometer found")
        status = self.daemon_status()
        self.assertEqual([e for e in status["sensors"] if e["device"] == "fastrpc-adsp"], [])
        self.assertNotIn("Sensor Core", self.daemon.log())

    def test_an_accelerometer_turned_on_by_a_distribution_rule_is_skipped_with_its_reason(self):
        """ssc-accel and ssc-proximity added (a distribution's rule for a phone where they work): without libssc
        the accelerometer is skipped with the reason and the fix, and the sensor stays absent; the daemon serves on"""
        self.add_dsp("ssc-light ssc-compass ssc-accel ssc-proximity")
        self.start_daemon()
        self.daemon.wait_for_log(r"Sensor Core: libssc\.so\.2 cannot be loaded")
        status = wait_until(lambda: (s := self.daemon_status()) and any(e["kind"] == "proximity" for e in s["sensors"]) and s,
                            5, "proximity listed", detail=lambda: self.daemon.log_tail())
        accelerometers = [e for e in status["sensors"] if e["kind"] == "accelerometer"]
        self.assertEqual([(e["device"], e["state"]) for e in accelerometers], [("fastrpc-adsp", "skipped")], status)
        self.assertIn("ssc-accel: libssc cannot be loaded", accelerometers[0]["reason"])
        self.assertIn(LIBSSC_FIX, accelerometers[0]["reason"])
        proximity = [e for e in status["sensors"] if e["kind"] == "proximity"]
        self.assertEqual([(e["driver"], e["state"]) for e in proximity], [("ssc-proximity", "skipped")])
        self.assertEqual(status["sensor"], {"state": "absent"})
        # A client is still served: the orientation of an absent sensor.
        client = self.connect()
        self.assertEqual(client.request("get")["type"], "state")

    def test_its_process_without_libssc_says_so_in_one_line_and_exits(self):
        """`orientd --sensor-core` (the daemon's own process for libssc): without libssc, one `nolibrary` line with
        dlopen's reason and exit 0, whatever it was sent"""
        result = subprocess.run([str(ORIENTD), "--sensor-core"], input=b"open 1 light\nclose 1\n\xff\xfe garbage\n",
                                capture_output=True, timeout=10)
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.decode().splitlines()
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(lines[0], r"^nolibrary libssc\.so\.2: cannot open shared object file")
