"""Claims on the D-Bus side cost wakeups only while they last: with a light
and a proximity sensor present, the daemon serving net.hadess.SensorProxy
makes no wakeups while nobody claims; ClaimLight and ClaimProximity make it
poll them; after ReleaseLight and ReleaseProximity, and after a claimer leaves
the bus without releasing, the wakeups stop again. Counted as
Tests/umockdev/test_sampling_on_demand.py counts them (context switches of
every thread, from /proc, over fixed windows).
"""

import re
import sys
import time

from bus import SensorProxyTestCase

QUIET_WINDOW_S = 3.0


class ClaimWakeupTests(SensorProxyTestCase):
    def window(self, seconds):
        before, _ = self.daemon.context_switches()
        time.sleep(seconds)  # the measurement window itself
        after, _ = self.daemon.context_switches()
        return after - before

    def test_no_wakeups_unclaimed_and_none_after_release_or_a_claimer_leaving(self):
        """light and proximity present: 0 wakeups unclaimed; claimed, it polls; released: 0; claimer gone: 0"""
        self.sysfs.add("iio-als-bh1750-illuminance-raw.umockdev")
        self.sysfs.add("iio-proximity-vcnl4000-sysfs-nearlevel.umockdev")
        self.start_proxy()
        client = self.client()
        self.assertTrue(client.get("HasAmbientLight"))
        self.assertTrue(client.get("HasProximity"))
        self.settle()
        idle = self.window(QUIET_WINDOW_S)

        client.call("ClaimLight")
        client.call("ClaimProximity")
        self.daemon.wait_for_log(r"iio:device3: proximity from in_proximity0_raw")
        busy = self.window(1.0)

        client.call("ReleaseLight")
        client.call("ReleaseProximity")
        self.settle()
        released = self.window(QUIET_WINDOW_S)

        leaver = self.client()
        leaver.call("ClaimProximity")
        name = re.escape(leaver.name)
        self.daemon.wait_for_log(rf"{name} claims the proximity sensor \(1 claimer\)")
        leaver.close()  # no ReleaseProximity: the bus tells the daemon its name went
        self.bus_clients.remove(leaver)
        self.daemon.wait_for_log(rf"{name} released the proximity sensor \(0 claimers\)")
        self.settle()
        left = self.window(QUIET_WINDOW_S)

        report = (f"context switches: unclaimed {QUIET_WINDOW_S:g} s +{idle}; claimed 1 s +{busy}; "
                  f"released {QUIET_WINDOW_S:g} s +{released}; claimer left {QUIET_WINDOW_S:g} s +{left}")
        sys.stderr.write(f"\n  [wakeups] {report}\n")
        self.assertEqual(idle, 0, f"{report}\n{self.daemon.log_tail()}")
        self.assertGreaterEqual(busy, 5, report)
        self.assertEqual(released, 0, f"{report}\n{self.daemon.log_tail()}")
        self.assertEqual(left, 0, f"{report}\n{self.daemon.log_tail()}")
