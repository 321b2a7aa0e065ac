"""`orientctl calibrate` finds the mount matrix of a faked accelerometer
mounted per every distinct matrix in systemd's hwdb, and orientd, given the
hwdb entry it prints, classifies every orientation right.

One daemon serves every matrix in turn: for each matrix M the fake sensor's
raw readings in each pose are what a sensor mounted per M reports (M⁻¹ times
the panel's reading), the wizard reads them live from the daemon's samples
while a script answers its prompts, and the entry it prints is handed back to
the daemon as the udev property ACCEL_MOUNT_MATRIX with a `change` uevent, as
`udevadm trigger` does after `systemd-hwdb update`. The refusals (moving,
noisy, contradicting, ambiguous poses, no accelerometer, a file the user may
not write) run from recorded traces or against a daemon without a sensor.
"""

import json
import os
import signal
import subprocess
from pathlib import Path

from calibration_support import (
    ORIENTATIONS, PANEL, POSES, Wizard, as_daemon_reads, entry_in, equivalent, hwdb_matrices, parse_matrix,
    rotation_about_z, sensor_reading, write_trace)
from harness import ORIENTCTL, ROTATE_S, START_S, Child, DaemonTestCase, wait_until

KIOX000A = "i2c-kiox000a.umockdev"
SCALE = 0.009582  # in_accel_scale of the description: g/1024
DMI = ("dmi:bvnAmericanMegatrendsInc.:bvr5.12:bd07/17/2019:br5.12:svnLENOVO:pn81H3:pvrLenovoideapadD330-10IGM:"
       "rvnLENOVO:rnLNVNB161216:rvrSDK0J40709WIN:cvnLENOVO:ct32:cvrLenovoideapadD330-10IGM:")
KEY = "sensor:modalias:acpi:KIOX000A*:dmi:*svnLENOVO:pn81H3:*"
#: How long each pose is held in these tests (the wizard's --rest; 1 s by default).
REST = "0.2"


class CalibrationTestCase(DaemonTestCase):
    """A daemon with the fake KIOX000A sensor and a DMI identity, and the
    wizard driven through its prompts."""

    #: The machine's DMI modalias in the testbed.
    dmi = DMI

    def setUp(self):
        super().setUp()
        self.sysfs.testbed.add_from_string(f"P: /devices/virtual/dmi/id\nE: SUBSYSTEM=dmi\nA: modalias={self.dmi}\\n\n")
        self.device = self.sysfs.add(KIOX000A)
        Path(self.workdir, "orientd.conf").write_text("[orientation]\nnatural = portrait\n")
        self.start_daemon()
        self.hwdb = os.path.join(self.workdir, "61-sensor-local.hwdb")
        self.watcher = self.connect()
        self.watcher.subscribe()

    def hold(self, rows, panel):
        """Puts the fake sensor, mounted per `rows`, where the panel reads `panel`."""
        raw = sensor_reading(rows, panel)
        self.sysfs.set_raw(self.device, x=round(raw[0] / SCALE), y=round(raw[1] / SCALE), z=round(raw[2] / SCALE))

    def calibrate(self, rows, key_answer=None):
        """Runs the wizard through the three poses of a sensor mounted per `rows`,
        answering `key_answer` when it asks for a key and yes to writing the
        entry; its output."""
        wizard = Wizard([str(ORIENTCTL), "--socket", self.daemon.socket, "calibrate", "--rest", REST,
                         "--hwdb-file", self.hwdb], self.sysfs.environment())
        try:
            for pose in POSES:
                wizard.expect(r"Press Enter when it is in place")
                self.hold(rows, PANEL[pose])
                wizard.send("\n")
                wizard.expect(r"got it: ")
            if key_answer is not None:
                wizard.expect(r"Which key\? \[1-3, Enter for 1\] ")
                wizard.send(key_answer + "\n")
            match = wizard.expect(r"Write it to .*\? \[y/N\] |nothing to change")
            if match.group(0).startswith("Write"):
                wizard.send("y\n")
            status, output, errors = wizard.finish()
        finally:
            wizard.kill()
        self.assertEqual(status, 0, f"{output}\n{errors}")
        return output

    def classify_with(self, printed, rows):
        """Gives the daemon `printed` as ACCEL_MOUNT_MATRIX and checks every
        orientation, and lying face up, of a sensor mounted per `rows`."""
        self.sysfs.testbed.set_property(self.device, "ACCEL_MOUNT_MATRIX", printed)
        self.sysfs.testbed.uevent(self.device, "change")
        status_client = self.connect()
        last = {}

        def applied():
            last["status"] = status_client.request("status")
            matrix = last["status"]["mount_matrix"]
            return matrix["source"] == "ACCEL_MOUNT_MATRIX" and parse_matrix(matrix["matrix"]) == parse_matrix(printed)

        wait_until(applied, START_S, f"orientd to apply ACCEL_MOUNT_MATRIX={printed}",
                   detail=lambda: json.dumps(last.get("status")))
        status_client.close()
        self.clients.remove(status_client)
        # Start from an orientation other than the one shown now, so every check is a change.
        shown = self.watcher.get()["physical"]
        order = list(ORIENTATIONS)
        while order[0] == shown:
            order = order[1:] + order[:1]
        for orientation in order:
            self.hold(rows, PANEL[orientation])
            state = self.watcher.wait_state(
                lambda s, o=orientation: s["physical"] == o and s["tilt"] == "vertical", ROTATE_S,
                f"physical {orientation}, vertical, under {printed}")
        self.hold(rows, PANEL["face-up"])
        state = self.watcher.wait_state(lambda s: s["tilt"] == "face-up", ROTATE_S, f"face-up under {printed}")
        self.assertEqual(state["physical"], order[-1], "lying face up keeps the orientation")



class CalibrationRoundTripTests(CalibrationTestCase):
    def test_every_hwdb_matrix_is_recovered_and_then_classified_right(self):
        """every distinct matrix in systemd's hwdb is recovered by the wizard, and orientd given the printed entry classifies all four orientations and face up right"""
        matrices = hwdb_matrices()
        self.assertGreaterEqual(len(matrices), 20, "systemd's 60-sensor.hwdb should hold 20-odd distinct matrices")
        # And a sensor mounted at 30°: the exact rotation, not a permutation.
        turned = rotation_about_z(30)
        cases = matrices + [("30° about z", turned)]
        for text, rows in cases:
            with self.subTest(matrix=text):
                output = self.calibrate(rows)
                if "nothing to change" in output:
                    # Only when the matrix in use (the last case's) already gives these poses right.
                    self.assertRegex(output, r"matrix +(.*?) {3}\1\n", output)
                    continue
                key, printed = entry_in(output)
                self.assertEqual(key, KEY, output)
                self.assertTrue(equivalent(parse_matrix(printed), rows),
                                f"printed {printed} is not equivalent to {text}:\n{output}")
                if rows is turned:
                    self.assertIn("mounted at an angle: 30°", output)
                else:
                    # The matrix itself; for the two whose z row is a stray copy of another, the one orientd uses.
                    self.assertEqual(parse_matrix(printed), as_daemon_reads(rows), output)
                with open(self.hwdb) as f:
                    written = f.read()
                self.assertIn(f"{KEY}\n ACCEL_MOUNT_MATRIX={printed}\n", written)
                self.assertEqual(written.count(KEY), 1, "one entry per key: the same key again replaces it")
                self.assertIn("systemd-hwdb update", output)
                self.assertIn("udevadm trigger -v -p DEVNAME=/dev/iio:device0", output)
                self.assertIn(f"mount-matrix = {printed}", output)
                self.classify_with(printed, rows)

    def test_poses_recorded_off_the_device_in_one_trace_give_the_matrix(self):
        """orientctl record of the three poses in one trace, then calibrate --non-interactive on it, gives the matrix and the device's key"""
        rows = parse_matrix("0, 1, 0; 1, 0, 0; 0, 0, 1")
        samples = self.connect()
        self.assertEqual(samples.request("samples")["type"], "ok")
        trace = os.path.join(self.workdir, "poses.trace")
        recorder = Child([ORIENTCTL, "--socket", self.daemon.socket, "record", trace], env=self.environment())
        self.addCleanup(recorder.stop)
        for pose in POSES:
            self.hold(rows, PANEL[pose])
            expected = [round(v / SCALE) * SCALE for v in sensor_reading(rows, PANEL[pose])]
            # Held until 40 readings of the pose went by (0.8 s at 50 Hz): a rest the wizard can see.
            seen = 0
            while seen < 40:
                sample = samples.wait_message("sample", 2.0)
                close = all(abs(sample[axis] - value) < 0.01 for axis, value in zip("xyz", expected))
                seen = seen + 1 if close else 0
        self.assertEqual(recorder.stop(signal.SIGINT), 0, recorder.log())
        result = self.orientctl("calibrate", "--non-interactive", "--rest", "0.5", trace, check=False, timeout=20)
        self.assertEqual(result.returncode, 0, f"{result.stdout}\n{result.stderr}")
        self.assertEqual(entry_in(result.stdout), (KEY, "0, 1, 0; 1, 0, 0; 0, 0, 1"), result.stdout)
        self.assertNotIn("Write it", result.stdout, "--non-interactive never asks")


class CalibrationKeyChoiceTests(CalibrationTestCase):
    """A machine whose firmware left its DMI names as placeholders: the wizard
    cannot tell which key is right, lists narrower ones and asks."""

    dmi = ("dmi:bvnAmericanMegatrendsInc.:bvr5.6.5:bd07/25/2014:svnTobefilledbyO.E.M.:pnTobefilledbyO.E.M.:"
           "pvrTobefilledbyO.E.M.:rvnAMICorporation:rnAptioCRB:rvrTobefilledbyO.E.M.:cvnToBeFilledByO.E.M.:ct3:")

    def test_placeholder_dmi_names_make_the_wizard_ask_which_key(self):
        """with placeholder DMI names the wizard explains, lists narrower keys, and writes the one chosen"""
        rows = parse_matrix("-1, 0, 0; 0, -1, 0; 0, 0, 1")
        output = self.calibrate(rows, key_answer="2")
        self.assertIn("placeholder", output)
        self.assertIn("1. sensor:modalias:acpi:KIOX000A*:dmi:*rvnAMICorporation:rnAptioCRB:*", output)
        chosen = "sensor:modalias:acpi:KIOX000A*:dmi:bvnAmericanMegatrendsInc.:bvr5.6.5:bd07/25/2014:*"
        self.assertIn(f"2. {chosen}", output)
        self.assertEqual(entry_in(output), (chosen, "-1, 0, 0; 0, -1, 0; 0, 0, 1"))
        with open(self.hwdb) as f:
            self.assertIn(f"{chosen}\n ACCEL_MOUNT_MATRIX=-1, 0, 0; 0, -1, 0; 0, 0, 1\n", f.read())



def pose_segment(vector, count=75, noise=0.0, turn_degrees=0.0, seed=1):
    """`count` readings of `vector`, with Gaussian `noise` (m/s^2 per axis), or
    turning steadily about the sensor's z by `turn_degrees` in all."""
    import math
    import random
    rng = random.Random(seed)
    out = []
    for i in range(count):
        a = math.radians(turn_degrees * i / max(1, count - 1))
        x, y, z = vector
        x, y = x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)
        out.append((x + rng.gauss(0, noise), y + rng.gauss(0, noise), z + rng.gauss(0, noise)))
    return out


class CalibrationRefusalTests(DaemonTestCase):
    """Bad poses are refused with a message saying what went wrong, and exit 65;
    no sensor exits 69; a file the user may not write exits 77."""

    IDENTITY = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]

    def run_traces(self, segments, *extra):
        """calibrate --non-interactive on three pose traces built from `segments`."""
        paths = []
        for pose, segment in zip(POSES, segments):
            path = os.path.join(self.workdir, f"{pose}.trace")
            write_trace(path, [segment])
            paths.append(path)
        return subprocess.run(
            [str(ORIENTCTL), "--socket", os.path.join(self.workdir, "none.sock"), "calibrate", "--non-interactive",
             *extra, *paths], capture_output=True, text=True, timeout=20)

    def good(self, pose):
        return pose_segment(sensor_reading(self.IDENTITY, PANEL[pose]), noise=0.03)

    def assertRefused(self, result, status, *phrases):
        self.assertEqual(result.returncode, status, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        for phrase in phrases:
            self.assertIn(phrase, result.stderr)
        self.assertNotIn("ACCEL_MOUNT_MATRIX=", result.stdout)

    def test_good_traces_without_a_daemon_give_the_matrix_and_a_key_to_fill_in(self):
        """recorded poses without a daemon give the matrix, and the entry with its key to fill in"""
        rows = parse_matrix("0, 1, 0; -1, 0, 0; 0, 0, 1")
        segments = [pose_segment(sensor_reading(rows, PANEL[pose]), noise=0.05) for pose in POSES]
        result = self.run_traces(segments)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(" ACCEL_MOUNT_MATRIX=0, 1, 0; -1, 0, 0; 0, 0, 1\n", result.stdout)
        self.assertIn("sensor:modalias:<parent modalias", result.stdout)
        self.assertIn("mount-matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1", result.stdout)

    def test_a_moving_device_is_refused(self):
        """a device that keeps turning during a pose is refused: the device moved"""
        segments = [pose_segment(PANEL["upright"], turn_degrees=40), self.good("left-up"), self.good("face-up")]
        self.assertRefused(self.run_traces(segments), 65, "pose upright (upright): the device moved")

    def test_a_noisy_device_is_refused(self):
        """readings scattered around a steady direction are refused as too noisy"""
        segments = [self.good("upright"), pose_segment(PANEL["left-up"], count=150, noise=1.5), self.good("face-up")]
        self.assertRefused(self.run_traces(segments), 65, "pose left-up (left edge up)", "too noisy")

    def test_contradicting_poses_are_refused(self):
        """a left-up pose that reads like the upright one contradicts it and is refused"""
        segments = [self.good("upright"), self.good("upright"), self.good("face-up")]
        self.assertRefused(self.run_traces(segments), 65, "the poses contradict each other",
                           "left-up (left edge up) reads the same direction as upright")

    def test_an_ambiguous_pose_is_refused(self):
        """a left-up pose held diagonally is ambiguous and refused"""
        diagonal = (PANEL["left-up"][0] * 0.7071, PANEL["upright"][1] * 0.7071, 0.0)
        segments = [self.good("upright"), pose_segment(diagonal, noise=0.03), self.good("face-up")]
        self.assertRefused(self.run_traces(segments), 65, "pose left-up (left edge up) is ambiguous", "45°")

    def test_a_wrong_number_of_traces_is_a_usage_error(self):
        """two traces (neither one sequence nor one per pose) is a usage error"""
        result = self.run_traces([self.good("upright"), self.good("left-up")])
        self.assertEqual(result.returncode, 64, result.stderr)
        self.assertIn("three traces (upright, left-up, face-up)", result.stderr)

    def test_a_malformed_trace_is_refused_naming_file_line_and_column(self):
        """a malformed trace is refused with its file, line and column"""
        path = os.path.join(self.workdir, "bad.trace")
        Path(path).write_text("# orientd-trace: 1\nt_ms,x,y,z\n0,1,2\n")
        result = subprocess.run([str(ORIENTCTL), "calibrate", "--non-interactive", path],
                                capture_output=True, text=True, timeout=20)
        self.assertRefused(result, 65, f"{path}:3:")

    def test_no_accelerometer_is_refused(self):
        """with no accelerometer the wizard says there is nothing to calibrate and exits 69"""
        self.start_daemon()
        result = self.orientctl("calibrate", check=False)
        self.assertRefused(result, 69, "orientd has no accelerometer")

    def test_a_user_who_may_not_write_the_hwdb_file_is_told_so(self):
        """--write into a directory the user may not write exits 77 and says to run as root"""
        shared = Path(self.workdir, "shared")
        shared.mkdir()
        locked = shared / "hwdb.d"
        locked.mkdir()
        os.chmod(self.workdir, 0o755)
        os.chmod(shared, 0o755)
        os.chmod(locked, 0o755)  # root's: nobody may create files in it
        rows = parse_matrix("0, 1, 0; -1, 0, 0; 0, 0, 1")
        segments = [pose_segment(sensor_reading(rows, PANEL[pose]), noise=0.03) for pose in POSES]
        traces = []
        for pose, segment in zip(POSES, segments):
            path = shared / f"{pose}.trace"
            write_trace(str(path), [segment])
            traces.append(str(path))
        result = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(ORIENTCTL), "--socket",
             str(shared / "none.sock"), "calibrate", "--non-interactive", "--write", "--match-key", KEY,
             "--hwdb-file", str(locked / "61-sensor-local.hwdb"), *traces],
            capture_output=True, text=True, timeout=20)
        self.assertEqual(result.returncode, 77, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        self.assertIn("you may not write", result.stderr)
        self.assertIn("as root", result.stderr)
        self.assertFalse((locked / "61-sensor-local.hwdb").exists())
