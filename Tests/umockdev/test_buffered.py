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
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
FIXTURES = HERE / "buffered"
ORIENTD = Path(os.environ.get("ORIENTD", REPO / ".build" / "debug" / "orientd"))
UMOCKDEV_RUN = shutil.which("umockdev-run")
CONFIG = "[orientation]\nnatural = portrait\n"

spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
make_fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_fixtures)
TURNS = make_fixtures.TURN_SEQUENCE  # what every *-turns.script shows: normal, left-up, right-up


class StderrLog:
    """The daemon's (and umockdev-run's) stderr, line by line, each line with
    the monotonic time it arrived; read by one thread, so nothing is buffered
    out of sight."""

    def __init__(self, stream):
        self._stream = stream
        self._lines = []
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        for raw in iter(self._stream.readline, b""):
            with self._cond:
                self._lines.append((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def lines(self):
        with self._cond:
            return [line for _, line in self._lines]

    def text(self):
        return "\n".join(self.lines())

    def wait_for(self, pattern, timeout):
        """(arrival time, line) of the first line matching `pattern`, or None at the deadline or EOF."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for stamp, line in self._lines:
                    if regex.search(line):
                        return stamp, line
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closed:
                    return None
                self._cond.wait(remaining)

    def wait_count(self, pattern, count, timeout):
        """The number of lines matching `pattern` once there are `count` of them, or at the deadline or EOF."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = sum(1 for _, line in self._lines if regex.search(line))
                remaining = deadline - time.monotonic()
                if found >= count or remaining <= 0 or self._closed:
                    return found
                self._cond.wait(remaining)

    def join(self, timeout):
        self._thread.join(timeout)


class Client:
    """One socket connection: JSON lines out, JSON lines in, unbuffered, with deadlines."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.setblocking(False)
        self._pending = b""

    def send(self, message):
        self.sock.sendall((json.dumps(message) + "\n").encode())

    def read(self, timeout):
        """The next message, or None when nothing complete arrives in time (or at EOF)."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([self.sock], [], [], remaining)
            if not readable:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        self.sock.close()


class Daemon:
    """orientd under `umockdev-run -d DEVICE -s /dev/iio:device0=SCRIPT`."""

    def __init__(self, test, device, script):
        self.test = test
        self.tmp = Path(tempfile.mkdtemp(prefix="orientd-buffered-"))
        self.socket_path = str(self.tmp / "s.sock")
        (self.tmp / "orientd.conf").write_text(CONFIG)
        self.device = FIXTURES / f"{device}.umockdev"
        self.syspath = next(line[3:] for line in self.device.read_text().splitlines() if line.startswith("P: "))
        command = [UMOCKDEV_RUN, "-d", str(self.device), "-s", f"/dev/iio:device0={FIXTURES / script}", "--",
                   str(ORIENTD), "--socket", self.socket_path, "--state-dir", str(self.tmp / "state"),
                   "--config", str(self.tmp / "orientd.conf"), "--log-level", "info"]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, start_new_session=True)
        self.log = StderrLog(self.process.stderr)
        self.clients = []
        test.addCleanup(self.stop)
        if self.log.wait_for(r"listening on ", 10) is None:
            test.fail(f"orientd did not start listening within 10 s:\n{self.log.text()}")

    def connect(self):
        client = Client(self.socket_path)
        self.clients.append(client)
        hello = client.read(5)
        self.test.assertEqual((hello or {}).get("type"), "hello", f"no hello from orientd:\n{self.log.text()}")
        return client

    def subscribe(self):
        client = self.connect()
        client.send({"op": "subscribe", "seq": 1})
        return client

    def umockdev_dir(self):
        """The testbed root umockdev-run gave orientd (read from its environment)."""
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except OSError:
            children = [p.name for p in Path("/proc").iterdir() if p.name.isdigit() and self._ppid(p) == pid]
        for child in children:
            environ = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
            for entry in environ:
                if entry.startswith(b"UMOCKDEV_DIR="):
                    return Path(entry.split(b"=", 1)[1].decode())
        self.test.fail(f"no UMOCKDEV_DIR in the environment of umockdev-run's children {children}")

    def orientd_pid(self):
        """The pid of orientd itself: the child of umockdev-run running .build's binary."""
        pid = self.process.pid
        for proc_dir in Path("/proc").iterdir():
            if proc_dir.name.isdigit() and self._ppid(proc_dir) == pid:
                try:
                    if Path(os.readlink(proc_dir / "exe")).name == ORIENTD.name:
                        return int(proc_dir.name)
                except OSError:
                    continue
        self.test.fail(f"no {ORIENTD.name} among umockdev-run's children")

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
        """Waits until every attribute in `expected` reads its value; returns what was read last."""
        deadline = time.monotonic() + timeout
        while True:
            seen = {name: self.sysfs(name) for name in expected}
            if seen == expected or time.monotonic() >= deadline:
                return seen
            time.sleep(0.02)  # polling a file written by another process: no event to wait on

    def stop(self):
        """SIGTERM (umockdev-run forwards it to orientd); returns the exit status."""
        for client in self.clients:
            client.close()
        self.clients = []
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        self.log.join(5)
        self.process.stderr.close()
        shutil.rmtree(self.tmp, ignore_errors=True)
        return self.process.returncode


def watch_physical(client, expected, timeout):
    """Reads state messages until the physical orientations seen (consecutive
    repeats and "undefined" dropped) are `expected`, a wrong one turns up, or the
    deadline passes; returns (sequence seen, last state message)."""
    seen, last = [], None
    deadline = time.monotonic() + timeout
    while seen != expected and seen == expected[:len(seen)]:
        message = client.read(max(0.0, deadline - time.monotonic()))
        if message is None:
            break
        if message.get("type") != "state":
            continue
        last = message
        physical = message.get("physical")
        if physical != "undefined" and (not seen or seen[-1] != physical):
            seen.append(physical)
    return seen, last


@unittest.skipUnless(UMOCKDEV_RUN, "umockdev-run is not installed (Debian package umockdev)")
class BufferedCaptureTests(unittest.TestCase):
    """Scan decoding, the 500 ms fallback and the scan-element bookkeeping."""

    @classmethod
    def setUpClass(cls):
        if not ORIENTD.is_file():
            raise AssertionError(f"{ORIENTD} is missing: build first (swift build)")

    def assert_turns_through_the_buffer(self, device):
        daemon = Daemon(self, device, f"{device}-turns.script")
        client = daemon.subscribe()
        seen, last = watch_physical(client, TURNS, timeout=10)
        self.assertEqual(seen, TURNS, f"published physical orientations; stderr:\n{daemon.log.text()}")
        self.assertEqual(last["orientation"], "right-up")
        self.assertEqual(last["sensor"], "active")
        self.assertIsNone(daemon.process.poll(), f"orientd exited:\n{daemon.log.text()}")
        status = daemon.stop()
        log = daemon.log.lines()
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
        daemon = Daemon(self, "bma255-s12le-rawleft", script)
        client = daemon.subscribe()
        started = daemon.log.wait_for(r"buffered capture started", 5)
        self.assertIsNotNone(started, daemon.log.text())
        fallback = daemon.log.wait_for(r"polling instead", 5)
        self.assertIsNotNone(fallback, f"no fallback to polling:\n{daemon.log.text()}")
        gap = fallback[0] - started[0]
        self.assertGreaterEqual(gap, 0.4, f"fell back after {gap:.3f} s, before the 500 ms grace")
        self.assertLessEqual(gap, 1.5, f"fell back only after {gap:.3f} s")
        seen, last = watch_physical(client, ["left-up"], timeout=5)
        self.assertEqual(seen, ["left-up"], f"classified from the raw attributes; stderr:\n{daemon.log.text()}")
        self.assertEqual(last["sensor"], "active")
        # Polling now: the buffer and its scan elements are switched off again.
        off = {"buffer/enable": "0", "scan_elements/in_accel_x_en": "0",
               "scan_elements/in_accel_y_en": "0", "scan_elements/in_accel_z_en": "0"}
        self.assertEqual(daemon.wait_sysfs(off, 2), off)
        self.assertEqual(daemon.stop(), 0, daemon.log.text())

    def test_a_buffer_that_delivers_nothing_falls_back_to_polling_within_500_ms(self):
        """An empty script: 'polling instead' about 500 ms after 'buffered capture started', raw attributes classified."""
        self.assert_falls_back_to_polling("empty.script")

    def test_a_buffer_whose_first_scan_comes_late_falls_back_to_polling_within_500_ms(self):
        """A script whose first scan comes after 5 s: the fallback does not wait for it."""
        self.assert_falls_back_to_polling("late.script")

    def test_a_buffer_that_delivered_nothing_is_not_tried_again_at_the_next_claim_until_a_reload(self):
        """After one silent buffer (bmc150 with no interrupt line), the next claim polls at once; SIGHUP gives the buffer another chance."""
        daemon = Daemon(self, "bma255-s12le-rawleft", "empty.script")
        client = daemon.subscribe()
        self.assertIsNotNone(daemon.log.wait_for(r"polling instead", 5), daemon.log.text())
        self.assertEqual(watch_physical(client, ["left-up"], timeout=5)[0], ["left-up"], daemon.log.text())
        client.close()
        daemon.clients.remove(client)

        def claims_until_left_up():
            client = daemon.subscribe()
            seen, _ = watch_physical(client, ["left-up"], timeout=5)
            self.assertEqual(seen, ["left-up"], daemon.log.text())
            client.close()
            daemon.clients.remove(client)

        # Released (nothing enabled), then claimed again: polled straight away.
        off = {"buffer/enable": "0", "scan_elements/in_accel_x_en": "0"}
        self.assertEqual(daemon.wait_sysfs(off, 3), off)
        claims_until_left_up()
        notice = daemon.log.wait_for(r"its buffer delivered nothing last time; polling \(until udev reports a change\)", 5)
        self.assertIsNotNone(notice, daemon.log.text())
        started = [line for line in daemon.log.lines() if "buffered capture started" in line]
        self.assertEqual(len(started), 1, f"the buffer was tried again:\n{daemon.log.text()}")

        # A reload forgets it: the claim after it tries the buffer again.
        os.kill(daemon.orientd_pid(), signal.SIGHUP)
        self.assertIsNotNone(daemon.log.wait_for(r"configuration reloaded", 5), daemon.log.text())
        self.assertEqual(daemon.wait_sysfs(off, 3), off)
        claims_until_left_up()
        self.assertEqual(daemon.log.wait_count(r"buffered capture started", 2, 5), 2,
                         f"after SIGHUP the buffer was not tried again:\n{daemon.log.text()}")
        self.assertEqual(daemon.stop(), 0, daemon.log.text())

    def test_an_on_change_buffer_that_is_slow_to_start_is_polled_until_it_delivers_then_read_again(self):
        """A HID accelerometer (in_accel_hysteresis) whose first scan comes 3 s late: polled after the 1.5 s grace
        (left-up from the raw attributes), the buffer kept, and read from again once it delivers (normal)"""
        daemon = Daemon(self, "hid-sensor-accel-3d-onchange", "hid-sensor-accel-3d-onchange-late.script")
        client = daemon.subscribe()
        started = daemon.log.wait_for(r"buffered capture started", 5)
        self.assertIsNotNone(started, daemon.log.text())
        polling = daemon.log.wait_for(r"the buffer delivered nothing in 1500 ms; polling until it does", 5)
        self.assertIsNotNone(polling, daemon.log.text())
        self.assertGreaterEqual(polling[0] - started[0], 1.4, "the on-change grace is 1.5 s")
        seen, _ = watch_physical(client, ["left-up", "normal"], timeout=10)
        self.assertEqual(seen, ["left-up", "normal"], f"raw attributes first, then the buffer:\n{daemon.log.text()}")
        self.assertIsNotNone(daemon.log.wait_for(r"the buffer delivers; polling stopped", 5), daemon.log.text())
        # Still capturing through the buffer: it was never switched off.
        self.assertEqual(daemon.sysfs("buffer/enable"), "1")
        self.assertNotIn("polling instead", daemon.log.text())
        self.assertEqual(daemon.stop(), 0, daemon.log.text())

    def test_the_daemon_enables_only_the_accelerometer_scan_elements_and_the_buffer_while_subscribed(self):
        """*_en and buffer/enable read 1 in the testbed while a client subscribes, 0 once it leaves."""
        daemon = Daemon(self, "mpu6050-s16be", "mpu6050-s16be-turns.script")
        idle = {"buffer/enable": "0", "scan_elements/in_accel_x_en": "0"}
        self.assertEqual({name: daemon.sysfs(name) for name in idle}, idle, "capturing before anyone subscribed")
        client = daemon.subscribe()
        seen, _ = watch_physical(client, ["normal"], timeout=5)
        self.assertEqual(seen, ["normal"], daemon.log.text())
        capturing = {
            "buffer/enable": "1",
            "scan_elements/in_accel_x_en": "1", "scan_elements/in_accel_y_en": "1", "scan_elements/in_accel_z_en": "1",
            "scan_elements/in_temp_en": "0", "scan_elements/in_anglvel_x_en": "0",
            "scan_elements/in_anglvel_y_en": "0", "scan_elements/in_anglvel_z_en": "0",
        }
        self.assertEqual({name: daemon.sysfs(name) for name in capturing}, capturing)
        client.close()
        daemon.clients.remove(client)
        off = {name: "0" for name in capturing}
        self.assertEqual(daemon.wait_sysfs(off, 3), off, "the buffer stays on after the last subscriber left")
        self.assertEqual(daemon.stop(), 0, daemon.log.text())

    def test_buffered_capture_maps_no_libiio(self):
        """While scans are read, /proc/PID/maps of orientd lists no libiio, libxml2 or ICU (capture needs no libiio)."""
        daemon = Daemon(self, "bmc150-s12le-timestamp", "bmc150-s12le-timestamp-turns.script")
        client = daemon.subscribe()
        seen, _ = watch_physical(client, ["normal"], timeout=5)
        self.assertEqual(seen, ["normal"], daemon.log.text())
        self.assertEqual(daemon.sysfs("buffer/enable"), "1")
        mapped = daemon.mapped_files()
        self.assertTrue(any(name.startswith("libudev") for name in mapped), sorted(mapped))  # the maps were read
        unwanted = sorted(name for name in mapped if name.startswith(("libiio", "libxml2", "libicu")))
        self.assertEqual(unwanted, [], f"mapped while capturing: {sorted(mapped)}")
        self.assertEqual(daemon.stop(), 0, daemon.log.text())

    def test_the_timestamp_scan_element_is_enabled_when_the_device_has_one(self):
        """in_timestamp_en reads 1 beside the axes while capturing from a bmc150."""
        daemon = Daemon(self, "bmc150-s12le-timestamp", "bmc150-s12le-timestamp-turns.script")
        client = daemon.subscribe()
        seen, _ = watch_physical(client, ["normal"], timeout=5)
        self.assertEqual(seen, ["normal"], daemon.log.text())
        capturing = {"buffer/enable": "1", "scan_elements/in_accel_x_en": "1", "scan_elements/in_timestamp_en": "1"}
        self.assertEqual({name: daemon.sysfs(name) for name in capturing}, capturing)
        self.assertEqual(daemon.stop(), 0, daemon.log.text())


class BufferedFixtureTests(unittest.TestCase):
    def test_the_fixtures_are_what_make_fixtures_py_writes(self):
        """Every file in buffered/ matches its generator (run make_fixtures.py after editing it)."""
        self.assertEqual(make_fixtures.stale(), [])


if __name__ == "__main__":
    unittest.main()
