"""A failing sensor is survived (docs/behaviour.md, Faults and Bad input)."""

import ctypes
import os
import re
import time

from harness import DaemonTestCase

HID = "hid-sensor-hub-accel_3d.umockdev"
#: After a fault is logged, how long the state must stay as it was. A negative
#: ("nothing changes") needs a window; at 20 Hz this is ~10 failed reads.
HOLD_S = 0.5



_libc = ctypes.CDLL(None, use_errno=True)
_SYS_renameat2, _AT_FDCWD, _RENAME_EXCHANGE = 316, -100, 2  # x86_64


def exchange(a, b):
    """Swaps the files at `a` and `b` in one step (renameat2 RENAME_EXCHANGE)."""
    if _libc.syscall(_SYS_renameat2, _AT_FDCWD, a.encode(), _AT_FDCWD, b.encode(), _RENAME_EXCHANGE) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), a)

class FaultTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.device = self.sysfs.add(HID)
        self.start_daemon()
        self.client = self.connect()
        self.client.subscribe()
        self.client.wait_state(lambda s: s["sensor"] == "active" and s["physical"] == "normal", 3, "active, normal")

    def assert_state_held(self, before):
        """No pushed state changes orientation or sensor for HOLD_S, and get agrees."""
        deadline = time.monotonic() + HOLD_S
        while (remaining := deadline - time.monotonic()) > 0:
            message = self.client.next_message(remaining)
            if message is not None and message.get("type") == "state":
                self.assertEqual((message["physical"], message["sensor"]), (before["physical"], before["sensor"]),
                                 f"the state changed during the fault: {message}")
        self.assertTrue(self.daemon.alive(), self.daemon.log_tail())
        now = self.client.get()
        self.assertEqual((now["physical"], now["orientation"], now["sensor"]),
                         (before["physical"], before["orientation"], before["sensor"]), now)

    def test_a_garbage_raw_value_is_survived_and_readings_resume(self):
        """a garbage raw value neither crashes the daemon nor changes the state, and readings resume when it is fixed"""
        before = self.client.state
        self.sysfs.set_attribute(self.device, "in_accel_x_raw", "abc\n")
        self.daemon.wait_for_log(r"in_accel_x_raw is not a number")
        self.assert_state_held(before)

        self.sysfs.set_raw(self.device, x=256, y=0)
        self.client.wait_physical("left-up")
        self.daemon.wait_for_log(r"reading again after \d+ failed reads")
        self.assertEqual(len(re.findall(r"is not a number", self.daemon.log())), 1, "logged once")

    def test_an_empty_raw_value_is_survived(self):
        """an empty raw attribute is survived like garbage"""
        before = self.client.state
        self.sysfs.set_attribute(self.device, "in_accel_y_raw", "\n")
        self.daemon.wait_for_log(r"in_accel_y_raw")
        self.assert_state_held(before)
        self.sysfs.set_raw(self.device, x=-256, y=0)
        self.client.wait_physical("right-up")

    def test_a_read_error_is_survived_and_readings_resume(self):
        """a raw attribute whose read fails with an errno (EISDIR) is survived, logged once, and readings resume"""
        # umockdev serves sysfs attributes as plain files, so permissions do
        # not help (the suite runs as root) and there is no way to inject EIO.
        # A directory in place of the attribute opens fine and then fails
        # read(2) with EISDIR: a real errno from the real read path.
        # The swaps are atomic (renameat2 RENAME_EXCHANGE): the attribute never
        # goes missing, which the daemon would rightly take for a removal.
        before = self.client.state
        path = self.sysfs.path(self.device, "in_accel_y_raw")
        spare = path + ".swap"
        os.mkdir(spare)
        exchange(path, spare)
        try:
            self.daemon.wait_for_log(r"cannot read in_accel_y_raw: Is a directory")
            self.assert_state_held(before)
        finally:
            with open(spare, "w") as f:
                f.write("256\n")
            exchange(path, spare)  # the file (now y = 256) back, the directory out
            os.rmdir(spare)
        self.sysfs.set_raw(self.device, x=0, y=256)
        self.client.wait_physical("bottom-up")
        self.daemon.wait_for_log(r"reading again after \d+ failed reads")
        self.assertEqual(len(re.findall(r"Is a directory", self.daemon.log())), 1, "logged once")
