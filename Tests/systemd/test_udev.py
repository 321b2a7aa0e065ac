"""61-orientd.rules: it parses, it picks accelerometers, and it grants only what buffered capture writes.

systemd 252 has no `udevadm verify`. The rule is checked twice instead:
 - a syntax check written here from udev(7), which always runs;
 - `udevadm test` on the umockdev fixtures of Tests/umockdev. This is udev's
   own parser and rule engine. It runs in a private mount namespace where the
   rule is the only one loaded.
"""

import grp
import os
import re
import shutil
import stat
import tempfile
import unittest
from pathlib import Path

from support import RULES, UMOCKDEV_FIXTURES, UdevSandbox, fixture_iio_device, rule_lines, run

# ---------------------------------------------------------------------------
# udev(7) syntax, systemd 252

MATCH_ONLY = {"ACTION", "DEVPATH", "KERNEL", "KERNELS", "SUBSYSTEMS", "DRIVERS", "ATTRS", "CONST", "TAGS", "TEST",
              "PROGRAM", "RESULT", "SUBSYSTEM", "DRIVER"}
ASSIGN_ONLY = {"OWNER", "GROUP", "MODE", "SECLABEL", "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS"}
BOTH = {"NAME", "SYMLINK", "ATTR", "SYSCTL", "ENV", "TAG"}
TAKES_ATTRIBUTE = {"ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "TEST", "SECLABEL", "RUN", "IMPORT"}
NEEDS_ATTRIBUTE = {"ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "SECLABEL", "IMPORT"}
MATCH_OPS = {"==", "!="}
ASSIGN_OPS = {"=", "+=", "-=", ":="}
PAIR = re.compile(r'\s*([A-Z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')


def syntax_problems(path):
    """Every udev(7) syntax problem in a rules file, as 'line N: message'; empty when it parses."""
    problems, labels, gotos = [], set(), []
    for number, text in rule_lines(path):
        position = 0
        while position < len(text):
            match = PAIR.match(text, position)
            if not match:
                problems.append(f"line {number}: cannot parse from '{text[position:position + 40]}'")
                break
            key, attribute, op, value, _ = match.groups()
            if key not in MATCH_ONLY | ASSIGN_ONLY | BOTH:
                problems.append(f"line {number}: unknown key {key}")
            elif op in MATCH_OPS and key in ASSIGN_ONLY:
                problems.append(f"line {number}: {key} cannot be matched")
            elif op in ASSIGN_OPS and key in MATCH_ONLY:
                problems.append(f"line {number}: {key} cannot be assigned")
            if attribute is not None and key not in TAKES_ATTRIBUTE:
                problems.append(f"line {number}: {key} takes no {{attribute}}")
            if attribute is None and key in NEEDS_ATTRIBUTE:
                problems.append(f"line {number}: {key} needs an {{attribute}}")
            if key in ("LABEL", "GOTO") and op != "=":
                problems.append(f"line {number}: {key} takes '='")
            if key == "LABEL":
                labels.add(value)
            if key == "GOTO":
                gotos.append((number, value))
            if key == "MODE" and not re.fullmatch(r"0?[0-7]{3,4}", value):
                problems.append(f"line {number}: MODE '{value}' is not octal")
            position = match.end()
    problems += [f"line {number}: GOTO '{label}' has no LABEL" for number, label in gotos if label not in labels]
    return problems


class RuleSyntaxTests(unittest.TestCase):
    """The rule file is well-formed udev(7)."""

    def test_the_rule_file_parses(self):
        """Every line is KEY[{attr}] OP "value" pairs with known keys and fitting operators; every GOTO lands."""
        self.assertEqual(syntax_problems(RULES), [])

    def test_the_syntax_check_catches_mistakes(self):
        """The check is not vacuous: an unknown key, a matched assignment and a dangling GOTO are reported."""
        with tempfile.NamedTemporaryFile("w", suffix=".rules") as bad:
            bad.write('SUBSYSTEM=="iio", BOGUS=="1"\nRUN=="/bin/true"\nGOTO="nowhere"\nTAG+="systemd\n')
            bad.flush()
            problems = syntax_problems(bad.name)
        self.assertEqual(len(problems), 4, problems)

    def test_it_never_matches_remove_and_always_runs_after_60_sensor_rules(self):
        """Removal skips the rule; the file sorts after 60-sensor.rules, whose hwdb properties it may use."""
        self.assertIn('ACTION=="remove", GOTO="orientd_end"', RULES.read_text())
        self.assertGreater(RULES.name, "60-sensor.rules")

    def test_the_run_script_is_plain_sh(self):
        """The RUN program, with udev's $$ and %S%p substituted, is accepted by sh -n."""
        for script in run_scripts("/sys/devices/x/iio:device0"):
            result = run(["sh", "-n", "-c", script])
            self.assertEqual(result.returncode, 0, result.stderr)


def run_scripts(syspath):
    """The shell scripts of the rule's RUN+="/bin/sh -c '…'" entries, as udev would substitute them."""
    scripts = []
    for _, text in rule_lines(RULES):
        for match in re.finditer(r'RUN\+="/bin/sh -c \'([^\']*)\'"', text):
            scripts.append(match.group(1).replace("%S%p", syspath).replace("$$", "$"))
    return scripts


# ---------------------------------------------------------------------------
# udev's own engine


class UdevEngineTests(unittest.TestCase):
    """udevadm test runs the rule on fake devices: accelerometers pull in orientd, others do not."""

    @classmethod
    def setUpClass(cls):
        cls.sandbox = UdevSandbox(RULES)
        cls.unavailable = cls.sandbox.available()

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.close()

    def setUp(self):
        if self.unavailable:
            self.skipTest(self.unavailable)

    def udev(self, fixture, action="add"):
        devpath, _ = fixture_iio_device(fixture)
        properties, runs, output = self.sandbox.test(fixture, devpath, action)
        return devpath, properties, runs, output

    def test_udev_loads_the_rule_without_a_diagnostic(self):
        """Reading 61-orientd.rules logs nothing but the trace of applied keys: no invalid key, no unknown group."""
        _, _, _, output = self.udev(UMOCKDEV_FIXTURES["buffered bma255"])
        self.assertIn("Reading rules file: /etc/udev/rules.d/61-orientd.rules", output)
        diagnostics = [line for line in output.splitlines() if re.match(r"^/etc/udev/rules\.d/61-orientd\.rules:\d+", line)]
        self.assertEqual(diagnostics, [])

    def test_every_accelerometer_fixture_pulls_in_the_service(self):
        """Buffered, polled, HID and cros-ec accelerometers get TAG systemd and SYSTEMD_WANTS=orientd.service."""
        for name, fixture in UMOCKDEV_FIXTURES.items():
            with self.subTest(name):
                _, properties, _, output = self.udev(fixture)
                self.assertIn(":systemd:", properties.get("TAGS", ""), output)
                self.assertEqual(properties.get("SYSTEMD_WANTS"), "orientd.service", output)

    def test_the_device_node_goes_to_group_orientd(self):
        """The accelerometer's /dev/iio:deviceN is set to group orientd, mode 0660, and the RUN script is queued."""
        devpath, _, runs, output = self.udev(UMOCKDEV_FIXTURES["buffered bma255"])
        self.assertRegex(output, r"61-orientd\.rules:\d+ GROUP 990")
        self.assertRegex(output, r"61-orientd\.rules:\d+ MODE 0660")
        self.assertEqual(runs, [f"/bin/sh -c '{script}'" for script in run_scripts(f"/sys{devpath}")])

    def test_a_change_event_keeps_tag_and_permissions(self):
        """`udevadm trigger` sends "change": the device keeps its systemd tag, its wants and its group."""
        _, properties, _, output = self.udev(UMOCKDEV_FIXTURES["polled mxc4005"], action="change")
        self.assertIn(":systemd:", properties.get("TAGS", ""))
        self.assertEqual(properties.get("SYSTEMD_WANTS"), "orientd.service")
        self.assertRegex(output, r"61-orientd\.rules:\d+ GROUP 990")

    def test_a_remove_event_is_left_alone(self):
        """On "remove" the rule does nothing: no wants, no RUN."""
        _, properties, runs, _ = self.udev(UMOCKDEV_FIXTURES["buffered bma255"], action="remove")
        self.assertNotIn("SYSTEMD_WANTS", properties)
        self.assertEqual(runs, [])

    def iio_fixture(self, directory, name, *attributes):
        fixture = Path(directory, f"{name}.umockdev")
        fixture.write_text(
            f"P: /devices/platform/{name}/iio:device1\nN: iio:device1\nE: DEVNAME=/dev/iio:device1\n"
            "E: DEVTYPE=iio_device\nE: MAJOR=241\nE: MINOR=1\nE: SUBSYSTEM=iio\nA: dev=241:1\\n\n"
            f"A: name={name}\\n\n" + "".join(f"A: {a}\\n\n" for a in attributes) + "\n"
        )
        return fixture

    def test_light_proximity_and_compass_sensors_pull_in_the_service(self):
        """orientd serves them on the D-Bus side: each spelling gets the service, the group and the RUN script."""
        cases = {
            "acpi-als": ["in_illuminance_raw=120"], "isl29018": ["in_illuminance0_input=50"],
            "tcs3472": ["in_intensity_clear_raw=7"], "als": ["scan_elements/in_intensity_both_en=0"],
            "stk3310": ["in_proximity_raw=3"], "vcnl4000": ["in_proximity0_raw=3"],
            "magn_3d": ["scan_elements/in_rot_from_north_magnetic_tilt_comp_en=0"],
        }
        for name, attributes in cases.items():
            with self.subTest(name), tempfile.TemporaryDirectory() as directory:
                _, properties, runs, output = self.udev(self.iio_fixture(directory, name, *attributes))
                self.assertEqual(properties.get("SYSTEMD_WANTS"), "orientd.service", output)
                self.assertRegex(output, r"61-orientd\.rules:\d+ GROUP 990")
                self.assertEqual(len(runs), 1, output)

    def misc_fixture(self, directory, name, minor):
        fixture = Path(directory, f"{name}.umockdev")
        fixture.write_text(
            f"P: /devices/virtual/misc/{name}\nN: {name}\nE: DEVNAME=/dev/{name}\nE: MAJOR=10\nE: MINOR={minor}\n"
            f"E: SUBSYSTEM=misc\nA: dev=10:{minor}\\n\n\n"
        )
        return fixture

    def test_a_qualcomm_dsp_gets_the_sensor_cores_light_and_compass_and_the_service(self):
        """/dev/fastrpc-adsp* and fastrpc-sdsp* (the DSP behind a Qualcomm phone's Sensor Core) get
        IIO_SENSOR_PROXY_TYPE "ssc-light ssc-compass", as iio-sensor-proxy 3.9's rule gives them (no
        accelerometer, no proximity), and pull in the service; another misc device gets nothing."""
        for name in ("fastrpc-adsp", "fastrpc-sdsp", "fastrpc-adsp-secure"):
            with self.subTest(name), tempfile.TemporaryDirectory() as directory:
                _, properties, runs, output = self.udev(self.misc_fixture(directory, name, 120))
                self.assertEqual(properties.get("IIO_SENSOR_PROXY_TYPE"), "ssc-light ssc-compass", output)
                self.assertEqual(properties.get("SYSTEMD_WANTS"), "orientd.service", output)
                self.assertIn(":systemd:", properties.get("TAGS", ""), output)
                self.assertEqual(runs, [])
        with tempfile.TemporaryDirectory() as directory:
            _, properties, runs, output = self.udev(self.misc_fixture(directory, "uinput", 223))
        self.assertNotIn("IIO_SENSOR_PROXY_TYPE", properties)
        self.assertNotIn("SYSTEMD_WANTS", properties)
        self.assertEqual(runs, [])

    def test_an_iio_device_orientd_does_not_read_is_ignored(self):
        """A temperature sensor on the same bus gets neither the service, nor the group, nor a RUN."""
        with tempfile.TemporaryDirectory() as directory:
            _, properties, runs, output = self.udev(self.iio_fixture(directory, "tmp006", "in_temp_raw=120"))
        self.assertNotIn("SYSTEMD_WANTS", properties)
        self.assertNotIn("systemd", properties.get("TAGS", ""))
        self.assertEqual(runs, [])
        self.assertNotRegex(output, r"61-orientd\.rules:\d+ (GROUP|MODE|RUN)")


# ---------------------------------------------------------------------------
# What the RUN script changes


#: The attributes buffered capture writes, relative to the device's sysfs directory.
WRITTEN = {
    "sampling_frequency", "in_accel_sampling_frequency", "in_accel_hysteresis", "trigger/current_trigger",
    "buffer/enable", "buffer/length", "buffer/watermark",
    "buffer0/enable", "buffer0/length", "buffer0/watermark",
}


def granted(relative):
    """Whether the rule should give the group write access to this attribute."""
    return relative in WRITTEN or re.fullmatch(r"(scan_elements|buffer0)/in_[a-z0-9_]+_en", relative) is not None


class RunScriptTests(unittest.TestCase):
    """The RUN script gives the group exactly the attributes orientd writes, and no more."""

    def setUp(self):
        if os.geteuid() != 0:
            self.skipTest("chgrp to another group needs root")
        try:
            self.group = grp.getgrnam("nogroup")
        except KeyError:
            self.skipTest("no group 'nogroup' to stand in for orientd")

    def build_tree(self, fixture, extra=(), read_only=()):
        """The fixture's sysfs directory as files: root:root, 0644 (0444 for `read_only`)."""
        root = Path(tempfile.mkdtemp(prefix="orientd-sysfs."))
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        _, attributes = fixture_iio_device(fixture)
        for name in list(attributes) + list(extra):
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(attributes.get(name, "0\\n").replace("\\n", "\n"))
            os.chown(path, 0, 0)
            path.chmod(0o444 if name in read_only else 0o644)
        return root

    def apply(self, root):
        for script in run_scripts(str(root)):
            result = run(["/bin/sh", "-c", script.replace(" orientd ", " nogroup ")])
            self.assertEqual(result.returncode, 0, result.stderr)

    def check(self, root, read_only=()):
        changed = []
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            relative = str(path.relative_to(root))
            info = path.stat()
            mode = stat.S_IMODE(info.st_mode)
            if granted(relative):
                changed.append(relative)
                self.assertEqual(info.st_gid, self.group.gr_gid, relative)
                self.assertEqual(oct(mode), oct(0o444 if relative in read_only else 0o664), relative)
            else:
                self.assertEqual((info.st_gid, oct(mode)), (0, oct(0o444 if relative in read_only else 0o644)), relative)
        return changed

    def test_a_buffered_accelerometer_gets_rate_buffer_and_scan_element_enables(self):
        """bma255: in_accel_sampling_frequency, buffer/*, the three _en files; raw, scale, index and type untouched."""
        root = self.build_tree(UMOCKDEV_FIXTURES["buffered bma255"], extra=["trigger/current_trigger"])
        self.apply(root)
        self.assertEqual(
            self.check(root),
            ["buffer/enable", "buffer/length", "buffer/watermark", "in_accel_sampling_frequency",
             "scan_elements/in_accel_x_en", "scan_elements/in_accel_y_en", "scan_elements/in_accel_z_en",
             "trigger/current_trigger"],
        )

    def test_linux_5_11_buffer0_directory_is_covered(self):
        """A kernel with buffer0/ gets its enable, length, watermark and _en files granted as well."""
        extra = ["buffer0/enable", "buffer0/length", "buffer0/watermark", "buffer0/in_accel_x_en", "buffer0/in_accel_x_index"]
        root = self.build_tree(UMOCKDEV_FIXTURES["buffered mpu6050"], extra=extra)
        self.apply(root)
        changed = self.check(root)
        self.assertIn("buffer0/in_accel_x_en", changed)
        self.assertNotIn("buffer0/in_accel_x_index", changed)

    def test_an_attribute_the_driver_made_read_only_stays_read_only(self):
        """chmod g=u copies root's bits: a 0444 sampling_frequency becomes group orientd, still 0444."""
        root = self.build_tree(UMOCKDEV_FIXTURES["HID sensor hub"], extra=["sampling_frequency"], read_only=["sampling_frequency"])
        self.apply(root)
        changed = self.check(root, read_only=["sampling_frequency"])
        self.assertIn("in_accel_hysteresis", changed)
        self.assertIn("sampling_frequency", changed)

    def test_a_polled_accelerometer_without_a_buffer_is_fine(self):
        """mxc4005 has no buffer: the script grants what exists and succeeds."""
        root = self.build_tree(UMOCKDEV_FIXTURES["polled mxc4005"])
        self.apply(root)
        self.check(root)


if __name__ == "__main__":
    unittest.main()
