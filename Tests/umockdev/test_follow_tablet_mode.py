"""The tablet-mode switch end to end: orientd on a faked HID accelerometer and
intel-vbtn's SW_TABLET_MODE switch (umockdev), `orientctl follow` and a real
headless sway (Tests/follow/test_sway.py's), neither under umockdev's preload.
In laptop mode sway stays at normal while the device turns; folding turns the
output at once; unfolding brings it back.
"""

import os
import shutil
import sys
import unittest

import evdev_support as ev
from harness import DaemonTestCase

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "follow"))
from support import Follow  # noqa: E402
from test_sway import HeadlessSway, shows  # noqa: E402

HID = "hid-sensor-hub-accel_3d.umockdev"


@unittest.skipUnless(shutil.which("sway") and shutil.which("swaymsg") and shutil.which("setpriv"),
                     "sway, swaymsg or setpriv is missing: install the Debian packages sway and util-linux (make deps)")
class FollowTabletModeTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("running sway as another uid needs root (setpriv)")

    def test_follow_keeps_sway_natural_in_laptop_mode_and_turns_it_when_folded(self):
        """laptop: device left-up, sway normal; folded: sway 90; unfolded: sway normal"""
        device = self.sysfs.add(HID)
        switch = ev.EvdevNode(self.sysfs.testbed, "input-tablet-switch")
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        self.sysfs.set_raw(device, x=256, y=0)
        client.wait_physical("left-up")

        sway = HeadlessSway(self.workdir)
        failure = sway.start()
        if failure:
            self.fail(f"headless sway cannot start here: {failure}")
        self.addCleanup(sway.stop)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SWAYSOCK": sway.socket, "XDG_RUNTIME_DIR": sway.runtime}
        follow = Follow(self.daemon, ["--output", "HEADLESS-1"], env)
        self.addCleanup(follow.stop)

        follow.wait_log("orientation normal (physical left-up, laptop mode: auto-rotate tablet-mode)")
        shows(sway, follow, "normal")
        switch.send(ev.switch_frame(ev.SW_TABLET_MODE, 1))
        shows(sway, follow, "left-up")
        follow.wait_log("orientation left-up (physical left-up)")
        switch.send(ev.switch_frame(ev.SW_TABLET_MODE, 0))
        shows(sway, follow, "normal")
        self.assertEqual(follow.stop(), 0)
        log = follow.log()
        self.assertIn("swaymsg output HEADLESS-1 transform 90: exit 0", log)
        print("\n--- orientctl follow's log, folding and unfolding ---\n" + log, end="")
