"""The evdev fixtures and evdev_support.py, checked with a libevdev client
(tools/evdev-probe.c, compiled here) instead of the daemon: libevdev
initialises each fake node and reports what the fixture says, events sent with
`EvdevNode.send` arrive live and in order, SYN_DROPPED resyncs to the ioctl
record's state, and a removed device hangs up its readers.

    umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -p 'test_evdev_fixtures.py' -v

Skipped without a C compiler or libevdev's pkg-config file.
"""

import os
import queue
import shutil
import subprocess
import tempfile
import threading
import unittest

import evdev_support as ev
from harness import UMockdev

TOOL = ev.HERE / "tools" / "evdev-probe.c"


def build_probe(directory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or shutil.which("pkg-config") is None:
        raise unittest.SkipTest("no C compiler or pkg-config")
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libevdev"], capture_output=True, text=True)
    if flags.returncode != 0:
        raise unittest.SkipTest("no libevdev pkg-config file (libevdev-dev)")
    binary = os.path.join(directory, "evdev-probe")
    subprocess.run([compiler, "-o", binary, str(TOOL), *flags.stdout.split()], check=True)
    return binary


class Probe:
    """evdev-probe on a device node, its stdout read line by line by a thread."""

    def __init__(self, binary, devnode, env):
        self.process = subprocess.Popen([binary, devnode, "10"], stdout=subprocess.PIPE, text=True, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
            if os.environ.get("EVDEV_PROBE_VERBOSE"):
                print("[probe]", line.rstrip("\n"))
        self.lines.put(None)

    def next(self, timeout=3.0):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"evdev-probe said nothing for {timeout:g} s") from None
        if line is None:
            raise AssertionError(f"evdev-probe ended with {self.process.wait()}")
        return line

    def until(self, last):
        """Lines up to and including `last`."""
        lines = []
        while True:
            lines.append(self.next())
            if lines[-1] == last:
                return lines

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process.stdout.close()


class EvdevFixtureTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if "umockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
            raise RuntimeError("run this under umockdev-wrapper (see README.md)")
        cls.tools = tempfile.TemporaryDirectory()
        cls.probe_binary = build_probe(cls.tools.name)

    @classmethod
    def tearDownClass(cls):
        cls.tools.cleanup()

    def setUp(self):
        self.testbed = UMockdev.Testbed.new()
        self.env = dict(os.environ, UMOCKDEV_DIR=self.testbed.get_root_dir())
        self.probes = []

    def tearDown(self):
        for probe in self.probes:
            probe.close()
        self.testbed = None

    def probe(self, node):
        probe = Probe(self.probe_binary, node.devnode, self.env)
        self.probes.append(probe)
        return probe

    def test_the_ioctl_records_are_what_the_descriptions_generate(self):
        for name, device in ev.FIXTURES.items():
            self.assertEqual((ev.DEVICES / f"{name}.ioctl").read_text(), ev.ioctl_record(device), name)

    def test_libevdev_reads_the_accelerometer_and_its_events_live(self):
        node = ev.EvdevNode(self.testbed, "input-accelerometer")
        probe = self.probe(node)
        self.assertEqual(probe.until("ready"), [
            "name ST LIS3LV02DL Accelerometer", "phys lis3lv02d/input0", "uniq -", "id 0019 0000 0000 0000",
            "abs 0 0 -2048 2048 3 3 1024", "abs 1 -1024 -2048 2048 3 3 1024", "abs 2 0 -2048 2048 3 3 1024",
            "ready"])
        node.send(ev.abs_frame(x=1024, y=0))
        self.assertEqual(probe.until("event 0 0 0"), ["event 3 0 1024", "event 3 1 0", "event 0 0 0"])
        # Every byte value survives the pty (no line discipline in the way).
        values = [int.from_bytes(bytes([b] * 4), "little", signed=True) for b in range(256)]
        for value in values:
            node.send(ev.abs_frame(z=value))
        for value in values:
            self.assertEqual(probe.until("event 0 0 0"), [f"event 3 2 {value}", "event 0 0 0"])

    def test_libevdev_reads_the_proximity_switch_its_changes_and_a_resync(self):
        node = ev.EvdevNode(self.testbed, "input-proximity")
        probe = self.probe(node)
        lines = probe.until("ready")
        self.assertIn("name gpio_keys", lines)
        self.assertEqual([line for line in lines if line.startswith("sw ")], ["sw 9 1", "sw 10 0", "sw 11 0"])
        node.send(ev.switch_frame(ev.SW_FRONT_PROXIMITY, 1))
        self.assertEqual(probe.until("event 0 0 0"), ["event 5 11 1", "event 0 0 0"])
        node.send(ev.switch_frame(ev.SW_FRONT_PROXIMITY, 0) + ev.switch_frame(ev.SW_FRONT_PROXIMITY, 1))
        self.assertEqual(probe.until("event 0 0 0"), ["event 5 11 0", "event 0 0 0"])
        self.assertEqual(probe.until("event 0 0 0"), ["event 5 11 1", "event 0 0 0"])
        # SYN_DROPPED: libevdev drops what follows in the buffer and asks the
        # kernel (here: the ioctl record, always "far") for the state.
        node.send([(ev.EV_SYN, ev.SYN_DROPPED, 0)] + ev.switch_frame(ev.SW_KEYPAD_SLIDE, 1), wait=False)
        node.wait_read()
        self.assertEqual(probe.until("event 0 0 0"), ["resync", "event 5 11 0", "event 0 0 0"])

    def test_a_removed_device_hangs_up_its_reader_and_can_come_back_renumbered(self):
        node = ev.EvdevNode(self.testbed, "input-proximity")
        probe = self.probe(node)
        probe.until("ready")
        root = self.testbed.get_root_dir()
        node.remove()
        self.assertRegex(probe.next(), r"^hangup ")  # POLLHUP (and POLLERR); reads EOF
        self.assertFalse(os.path.lexists(os.path.join(root, "dev/input/event3")))
        self.assertFalse(os.path.exists(os.path.join(root, node.parent.lstrip("/"))))
        again = ev.EvdevNode(self.testbed, "input-proximity", number=4)
        self.assertEqual(again.devnode, "/dev/input/event4")
        probe = self.probe(again)
        self.assertIn("sw 11 0", probe.until("ready"))
        again.send(ev.switch_frame(ev.SW_FRONT_PROXIMITY, 1))
        self.assertEqual(probe.until("event 0 0 0"), ["event 5 11 1", "event 0 0 0"])

    def test_both_devices_in_one_testbed(self):
        accel = ev.EvdevNode(self.testbed, "input-accelerometer")
        proximity = ev.EvdevNode(self.testbed, "input-proximity")
        a, p = self.probe(accel), self.probe(proximity)
        a.until("ready")
        p.until("ready")
        proximity.send(ev.switch_frame(ev.SW_FRONT_PROXIMITY, 1))
        accel.send(ev.abs_frame(x=-1024, y=0))
        self.assertEqual(p.until("event 0 0 0"), ["event 5 11 1", "event 0 0 0"])
        self.assertEqual(a.until("event 0 0 0"), ["event 3 0 -1024", "event 3 1 0", "event 0 0 0"])


if __name__ == "__main__":
    unittest.main()
