"""Raw attribute writes reach the published orientation (docs/behaviour.md)."""

from harness import DaemonTestCase, NORMAL_RAW

HID = "hid-sensor-hub-accel_3d.umockdev"

#: Raw accel_3d values (x 0.038307 m/s^2) for each pose, in the panel frame
#: of docs/behaviour.md: left edge up reads +g on x, right edge up -g, upside down +g on y.
POSES = [
    ("left-up", {"x": 256, "y": 0}, 90),
    ("right-up", {"x": -256, "y": 0}, 270),
    ("bottom-up", {"x": 0, "y": 256}, 180),
    ("normal", {"x": 0, "y": -256}, 0),
]


class RotationTests(DaemonTestCase):
    def test_writing_the_raw_attributes_rotates_the_published_orientation(self):
        """writing the raw attributes rotates the published orientation"""
        device = self.sysfs.add(HID)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        for orientation, raw, rotation in POSES:
            with self.subTest(orientation=orientation):
                self.sysfs.set_raw(device, **raw)
                state = client.wait_physical(orientation)
                self.assertEqual(state["orientation"], orientation)
                self.assertEqual(state["rotation"], rotation)
                self.assertEqual(state["sensor"], "active")
        self.sysfs.set_raw(device, **NORMAL_RAW)
        client.wait_physical("normal")

    def test_lying_face_up_keeps_the_orientation_and_reports_the_tilt(self):
        """lying face up keeps the last orientation and reports face-up"""
        device = self.sysfs.add(HID)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        client.wait_physical("normal")
        self.sysfs.set_raw(device, x=256, y=0)
        client.wait_physical("left-up")
        # A HID sensor hub reads -g lying face up (the Windows convention; orientd
        # assumes z sign -1 for its driver, docs/classifier.md).
        self.sysfs.set_raw(device, x=0, y=0, z=-256)
        state = client.wait_state(lambda s: s["tilt"] == "face-up", 5, "tilt face-up")
        self.assertEqual(state["physical"], "left-up")
        self.assertEqual(state["orientation"], "left-up")
