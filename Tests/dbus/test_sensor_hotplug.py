"""Light and proximity sensors that come and go while the daemon runs (udev add
and remove through umockdev's testbed, in the order the kernel's device_del()
follows: harness.FakeSysfs.remove), as seen on the D-Bus side: Has* follows
each, a claimer is told (PropertiesChanged), and a claimer of proximity is
never left with ProximityNear true by a sensor that went away.

A re-added device comes back without its /dev node (FakeSysfs.add(node=False):
umockdev 0.17 asserts on creating a node twice); the polled drivers never open it.
"""

from bus import SensorProxyTestCase

BH1750 = "iio-als-bh1750-illuminance-raw.umockdev"  # iio:device2: light only, 100 x 0.5 = 50 lux
VCNL4000 = "iio-proximity-vcnl4000-sysfs-nearlevel.umockdev"  # iio:device3: proximity only, near level 50 in sysfs


class SensorHotplugTests(SensorProxyTestCase):
    def test_a_light_sensor_added_and_removed_while_running_is_followed(self):
        """no light sensor at start; one added: HasAmbientLight true (claimer signalled, Get shows it) and its level
        is read; removed: HasAmbientLight false; re-added: true again and read again"""
        self.start_proxy()
        claimer, bystander = self.client(), self.client()
        self.assertFalse(bystander.get("HasAmbientLight"))
        claimer.call("ClaimLight")
        device = self.sysfs.add(BH1750)
        claimer.wait_signal("HasAmbientLight", True)
        self.assertTrue(bystander.get("HasAmbientLight"))
        claimer.wait_signal("LightLevel", 50.0)
        self.assertEqual(claimer.get("LightLevelUnit"), "lux")

        claimer.signals.clear()
        self.sysfs.remove(device)
        claimer.wait_signal("HasAmbientLight", False)
        self.assertFalse(bystander.get("HasAmbientLight"))

        claimer.signals.clear()
        self.sysfs.add(BH1750, parents=False, node=False)
        claimer.wait_signal("HasAmbientLight", True)
        self.sysfs.set_attribute(device, "in_illuminance_raw", "30")
        claimer.wait_signal("LightLevel", 15.0)
        self.assertTrue(bystander.get("HasAmbientLight"))

    def test_a_proximity_sensor_added_and_removed_while_running_is_followed_and_fails_safe(self):
        """no proximity sensor at start; one added: HasProximity true and near is seen; removed while near:
        ProximityNear false (the fail-safe) and HasProximity false; re-added: offered again, far"""
        self.start_proxy()
        claimer, bystander = self.client(), self.client()
        self.assertFalse(bystander.get("HasProximity"))
        claimer.call("ClaimProximity")
        device = self.sysfs.add(VCNL4000)
        claimer.wait_signal("HasProximity", True)
        self.assertTrue(bystander.get("HasProximity"))
        self.sysfs.set_attribute(device, "in_proximity0_raw", "60")
        claimer.wait_signal("ProximityNear", True)

        claimer.signals.clear()
        self.sysfs.remove(device)
        claimer.wait_signal("ProximityNear", False)
        claimer.wait_signal("HasProximity", False)
        self.assertFalse(claimer.get("ProximityNear"))
        self.assertFalse(bystander.get("HasProximity"))

        claimer.signals.clear()
        self.sysfs.add(VCNL4000, parents=False, node=False)  # its raw attribute reads 0 again: far
        claimer.wait_signal("HasProximity", True)
        self.assertFalse(claimer.get("ProximityNear"))
        self.sysfs.set_attribute(device, "in_proximity0_raw", "70")
        claimer.wait_signal("ProximityNear", True)

    def test_both_added_then_removed_together_each_has_property_follows(self):
        """a light and a proximity sensor added at once: both Has* true; removing the light leaves proximity offered"""
        self.start_proxy()
        client = self.client()
        client.call("ClaimLight")
        client.call("ClaimProximity")
        light = self.sysfs.add(BH1750)
        proximity = self.sysfs.add(VCNL4000)
        client.wait_signal("HasAmbientLight", True)
        client.wait_signal("HasProximity", True)
        client.signals.clear()
        self.sysfs.remove(light)
        client.wait_signal("HasAmbientLight", False)
        self.assertTrue(client.get("HasProximity"))
        self.sysfs.remove(proximity)
        client.wait_signal("HasProximity", False)
