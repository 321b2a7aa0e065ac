"""Buffered capture, end to end: the real orientd reads IIO scans that umockdev
replays from a script, through its own sysfs and device-node code (no libiio),
and publishes what they show.

    python3 -m unittest discover -s Tests/umockdev -p 'test_buffered.py' -v

Each test launches `.build/debug/orientd` (or $ORIENTD) under `umockdev-run -d
DEVICE -s /dev/iio:device0=SCRIPT` with a private socket, state directory and
config, subscribes over the socket and waits, with deadlines, for the published
states. The device descriptions and scripts live in buffered/ and are written by
buffered/make_fixtures.py (its docstring says what each one models). The
script's clock starts when the daemon opens /dev/iio:device0, that is when the
first client subscribes.

The buffered fixtures' raw attributes hold a bottom-up reading that no script
delivers, so a daemon that polled instead of reading the buffer would publish
bottom-up and fail.
"""

import importlib.util
import os
import shutil
import signal
import time
import unittest
from pathlib import Path

from harness import ORIENTD, OrientdTestCase, wait_until

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "buffered"
UMOCKDEV_RUN = shutil.which("umockdev-run")
CONFIG = "[orientation]\nnatural = portrait\n"

spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_fixtures)
TURNS = make_fixtures.TURN_SEQUENCE  # what every *-turns.script shows: normal, left-up, right-up


@unittest.skipUnless(UMOCKDEV_RUN, "umockdev-run is not installed (Debian package umockdev)")
class BufferedTestCase(OrientdTestCase):
    """orientd under `umockdev-run -d DEVICE -s /dev/iio:device0=SCRIPT`: the
    testbed is umockdev-run's own (a script is replayed from the moment the
    daemon opens the node, which the harness's testbed in this process cannot
    do), so umockdev-run wraps orientd, in a session of its own so that a hung
    pair is killed together."""

    @classmethod
    def setUpClass(cls):
        if not ORIENTD.is_file():
            raise AssertionError(f"{ORIENTD} is missing: build first (swift build)")

    def start_buffered(self, device, script):
        self.device = FIXTURES / f"{device}.umockdev"
        self.syspath = next(line[3:] for line in self.device.read_text().splitlines() if line.startswith("P: "))
        config = Path(self.workdir, "orientd.conf")
        config.write_text(CONFIG)
        wrapper = [UMOCKDEV_RUN, "-d", self.device, "-s", f"/dev/iio:device0={FIXTURES / script}", "--"]
        return self.start_daemon("--config", config, "--log-level", "info", wrapper=wrapper, new_session=True,
                                 timeout=10)

    def subscribe(self):
        client = self.connect()
        client.send({"op": "subscribe", "seq": 1})
        return client

    def umockdev_dir(self):
        """The testbed root umockdev-run gave orientd (read from its environment)."""
        pid = self.daemon.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            children = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and self._ppid(p) == pid]
        for child in children:
            environ = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
            for entry in environ:
                if entry.startswith(b"UMOCKDEV_DIR="):
                    return Path(entry.split(b"=", 1)[1].decode())
        self.fail(f"no UMOCKDEV_DIR in the environment of umockdev-run's children {children}")

    def orientd_pid(self):
        """The pid of orientd itself: the child of umockdev-run running .build's binary."""
        pid = self.daemon.pid
        for proc_dir in Path("/proc").iterdir():
            if proc_dir.name.isdigit() and self._ppid(proc_dir) == pid:
                try:
                    if Path(os.readlink(proc_dir / "exe")).name == ORIENTD.name:
                        return int(proc_dir.name)
                except OSError:
                    continue
        self.fail(f"no {ORIENTD.name} among umockdev-run's children")

    def mapped_files(self):
        """The files mapped into orientd (/proc/PID/maps), by base name."""
        names = set()
        for line in Path(f"/proc/{self.orientd_pid()}/maps").read_text().splitlines():
            fields = line.split(None, 5)
            if len(fields) == 6 and fields[5].startswith("/"):
                names.add(Path(fields[5]).name)
        return names

    @staticmethod
    def _ppid(proc_dir):
        try:
            return int((proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def sysfs(self, attribute):
        """A sysfs attribute of the device in the testbed, as written last (NUL and newline stripped)."""
        path = self.umockdev_dir() / "sys" / self.syspath.lstrip("/") / attribute
        return path.read_bytes().rstrip(b"\0\n ").decode()

    def wait_sysfs(self, expected, timeout):
        """Waits until every attribute in `expected` reads its value."""
        wait_until(lambda: {name: self.sysfs(name) for name in expected} == expected, timeout, f"sysfs {expected}",
                   detail=lambda: f"read {({name: self.sysfs(name) for name in expected})}\n{self.daemon.log_tail()}")


def watch_physical(client, expected, timeout):
    """Reads state messages until the physical orientations seen (consecutive
    repeats and "undefined" dropped) are `expected`, a wrong one turns up, or the
    deadline passes; returns (sequence seen, last state message)."""
    seen, last = [], None
    deadline = time.monotonic() + timeout
    while seen != expected and seen == expected[:len(seen)]:
        message = client.next_message(max(0.0, deadline - time.monotonic()))
        if message is None:
            break
        if message.get("type") != "state":
            continue
        last = message
        physical = message.get("physical")
        if physical != "undefined" and (not seen or seen[-1] != physical):
            seen.append(physical)
    return seen, last


class BufferedCaptureTests(BufferedTestCase):
    """Scan decoding, the 500 ms fallback and the scan-element bookkeeping."""

    def assert_turns_through_the_buffer(self, device):
        daemon = self.start_buffered(device, f"{device}-turns.script")
        client = self.subscribe()
        seen, last = watch_physical(client, TURNS, timeout=10)
        self.assertEqual(seen, TURNS, f"published physical orientations; stderr:\n{daemon.log()}")
        self.assertEqual(last["orientation"], "right-up")
        self.assertEqual(last["sensor"], "active")
        self.assertTrue(daemon.alive(), f"orientd exited:\n{daemon.log()}")
        status = daemon.stop()
        log = daemon.output.lines()
        self.assertEqual(status, 0, "\n".join(log))
        self.assertTrue(any("buffered capture started" in line for line in log), "\n".join(log))
        self.assertFalse([line for line in log if "poll" in line], "polled although the buffer delivered")

    def test_12_bit_little_endian_scans_with_negative_values_turn_normal_left_up_right_up(self):
        """le:s12/16>>4 scans (bma255, per-axis scale, new_data bit set) are shifted, masked and sign-extended."""
        self.assert_turns_through_the_buffer("bma255-s12le")

    def test_16_bit_big_endian_scans_turn_normal_left_up_right_up(self):
        """be:s16/16>>0 scans (mpu6050, shared scale, gyroscope elements left disabled) decode big-endian."""
        self.assert_turns_through_the_buffer("mpu6050-s16be")

    def test_scans_with_a_timestamp_element_decode_at_their_16_byte_layout(self):
        """x, y, z le:s12/16>>4 plus in_timestamp le:s64/64>>0 at index 3 (bmc150): 16-byte scans."""
        self.assert_turns_through_the_buffer("bmc150-s12le-timestamp")

    def assert_falls_back_to_polling(self, script):
        daemon = self.start_buffered("bma255-s12le-rawleft", script)
        client = self.subscribe()
        started = daemon.wait_for_log(r"buffered capture started")
        fallback = daemon.wait_for_log(r"polling instead")  # the fallback to polling
        gap = fallback.time - started.time
        self.assertGreaterEqual(gap, 0.4, f"fell back after {gap:.3f} s, before the 500 ms grace")
        self.assertLessEqual(gap, 1.5, f"fell back only after {gap:.3f} s")
        seen, last = watch_physical(client, ["left-up"], timeout=5)
        self.assertEqual(seen, ["left-up"], f"classified from the raw attributes; stderr:\n{daemon.log()}")
        self.assertEqual(last["sensor"], "active")
        # Polling now: the buffer and its scan elements are switched off again.
        self.wait_sysfs({"buffer/enable": "0", "scan_elements/in_accel_x_en": "0",
                         "scan_elements/in_accel_y_en": "0", "scan_elements/in_accel_z_en": "0"}, 2)
        self.assertEqual(daemon.stop(), 0, daemon.log())

    def test_a_buffer_that_delivers_nothing_falls_back_to_polling_within_500_ms(self):
        """An empty script: 'polling instead' about 500 ms after 'buffered capture started', raw attributes classified."""
        self.assert_falls_back_to_polling("empty.script")

    def test_a_buffer_whose_first_scan_comes_late_falls_back_to_polling_within_500_ms(self):
        """A script whose first scan comes after 5 s: the fallback does not wait for it."""
        self.assert_falls_back_to_polling("late.script")

    def test_a_buffer_that_delivered_nothing_is_not_tried_again_at_the_next_claim_until_a_reload(self):
        """After one silent buffer (bmc150 with no interrupt line), the next claim polls at once; SIGHUP gives the buffer another chance."""
        daemon = self.start_buffered("bma255-s12le-rawleft", "empty.script")
        client = self.subscribe()
        daemon.wait_for_log(r"polling instead")
        self.assertEqual(watch_physical(client, ["left-up"], timeout=5)[0], ["left-up"], daemon.log())
        client.close()
        self.clients.remove(client)

        def claims_until_left_up():
            client = self.subscribe()
            seen, _ = watch_physical(client, ["left-up"], timeout=5)
            self.assertEqual(seen, ["left-up"], daemon.log())
            client.close()
            self.clients.remove(client)

        # Released (nothing enabled), then claimed again: polled straight away.
        off = {"buffer/enable": "0", "scan_elements/in_accel_x_en": "0"}
        self.wait_sysfs(off, 3)
        claims_until_left_up()
        daemon.wait_for_log(r"its buffer delivered nothing last time; polling \(until udev reports a change\)")
        started = [line for line in daemon.output.lines() if "buffered capture started" in line]
        self.assertEqual(len(started), 1, f"the buffer was tried again:\n{daemon.log()}")

        # A reload forgets it: the claim after it tries the buffer again.
        os.kill(self.orientd_pid(), signal.SIGHUP)
        daemon.wait_for_log(r"configuration reloaded")
        self.wait_sysfs(off, 3)
        claims_until_left_up()
        daemon.wait_for_log(r"buffered capture started", count=2)  # after SIGHUP the buffer is tried again
        self.assertEqual(daemon.stop(), 0, daemon.log())

    def test_an_on_change_buffer_that_is_slow_to_start_is_polled_until_it_delivers_then_read_again(self):
        """A HID accelerometer (in_accel_hysteresis) whose first scan comes 3 s late: polled after the 1.5 s grace
        (left-up from the raw attributes), the buffer kept, and read from again once it delivers (normal)"""
        daemon = self.start_buffered("hid-sensor-accel-3d-onchange", "hid-sensor-accel-3d-onchange-late.script")
        client = self.subscribe()
        started = daemon.wait_for_log(r"buffered capture started")
        polling = daemon.wait_for_log(r"the buffer delivered nothing in 1500 ms; polling until it does")
        self.assertGreaterEqual(polling.time - started.time, 1.4, "the on-change grace is 1.5 s")
        seen, _ = watch_physical(client, ["left-up", "normal"], timeout=10)
        self.assertEqual(seen, ["left-up", "normal"], f"raw attributes first, then the buffer:\n{daemon.log()}")
        daemon.wait_for_log(r"the buffer delivers; polling stopped")
        # Still capturing through the buffer: it was never switched off.
        self.assertEqual(self.sysfs("buffer/enable"), "1")
        self.assertNotIn("polling instead", daemon.log())
        self.assertEqual(daemon.stop(), 0, daemon.log())

    def test_the_daemon_enables_only_the_accelerometer_scan_elements_and_the_buffer_while_subscribed(self):
        """*_en and buffer/enable read 1 in the testbed while a client subscribes, 0 once it leaves."""
        daemon = self.start_buffered("mpu6050-s16be", "mpu6050-s16be-turns.script")
        idle = {"buffer/enable": "0", "scan_elements/in_accel_x_en": "0"}
        self.assertEqual({name: self.sysfs(name) for name in idle}, idle, "capturing before anyone subscribed")
        client = self.subscribe()
        seen, _ = watch_physical(client, ["normal"], timeout=5)
        self.assertEqual(seen, ["normal"], daemon.log())
        capturing = {
            "buffer/enable": "1",
            "scan_elements/in_accel_x_en": "1", "scan_elements/in_accel_y_en": "1", "scan_elements/in_accel_z_en": "1",
            "scan_elements/in_temp_en": "0", "scan_elements/in_anglvel_x_en": "0",
            "scan_elements/in_anglvel_y_en": "0", "scan_elements/in_anglvel_z_en": "0",
        }
        self.assertEqual({name: self.sysfs(name) for name in capturing}, capturing)
        client.close()
        self.clients.remove(client)
        self.wait_sysfs({name: "0" for name in capturing}, 3)  # the buffer off after the last subscriber left
        self.assertEqual(daemon.stop(), 0, daemon.log())

    def test_buffered_capture_maps_no_libiio(self):
        """While scans are read, /proc/PID/maps of orientd lists no libiio, libxml2 or ICU (capture needs no libiio)."""
        daemon = self.start_buffered("bmc150-s12le-timestamp", "bmc150-s12le-timestamp-turns.script")
        client = self.subscribe()
        seen, _ = watch_physical(client, ["normal"], timeout=5)
        self.assertEqual(seen, ["normal"], daemon.log())
        self.assertEqual(self.sysfs("buffer/enable"), "1")
        mapped = self.mapped_files()
        self.assertTrue(any(name.startswith("libudev") for name in mapped), sorted(mapped))  # the maps were read
        unwanted = sorted(name for name in mapped if name.startswith(("libiio", "libxml2", "libicu")))
        self.assertEqual(unwanted, [], f"mapped while capturing: {sorted(mapped)}")
        self.assertEqual(daemon.stop(), 0, daemon.log())

    def test_the_timestamp_scan_element_is_enabled_when_the_device_has_one(self):
        """in_timestamp_en reads 1 beside the axes while capturing from a bmc150."""
        daemon = self.start_buffered("bmc150-s12le-timestamp", "bmc150-s12le-timestamp-turns.script")
        client = self.subscribe()
        seen, _ = watch_physical(client, ["normal"], timeout=5)
        self.assertEqual(seen, ["normal"], daemon.log())
        capturing = {"buffer/enable": "1", "scan_elements/in_accel_x_en": "1", "scan_elements/in_timestamp_en": "1"}
        self.assertEqual({name: self.sysfs(name) for name in capturing}, capturing)
        self.assertEqual(daemon.stop(), 0, daemon.log())


class BufferedFixtureTests(unittest.TestCase):
    def test_the_fixtures_are_what_make_fixtures_py_writes(self):
        """Every file in buffered/ matches its generator (run make_fixtures.py after editing it)."""
        self.assertEqual(make_fixtures.stale(), [])


if __name__ == "__main__":
    unittest.main()
