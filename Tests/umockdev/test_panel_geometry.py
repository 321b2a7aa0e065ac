"""The natural geometry comes from the internal panel's first DRM mode (docs/behaviour.md, Natural geometry and layout)."""

from pathlib import Path

from harness import DaemonTestCase

DISPLAY = "hid-sensor-hub-accel_3d.umockdev"  # reads normal


def connector(name, status, modes):
    """A DRM connector under card0, as the kernel's drm class shows it."""
    return (
        f"P: /devices/pci0000:00/0000:00:02.0/drm/card0/{name}\n"
        "E: SUBSYSTEM=drm\n"
        f"A: status={status}\\n\n"
        f"A: modes={modes}\\n\n"
    )


class PanelGeometryTests(DaemonTestCase):
    def add_connector(self, name, status, modes):
        self.sysfs.testbed.add_from_string(connector(name, status, modes))

    def normal_layout(self):
        # The harness pins `natural = portrait`; these tests ask for detection.
        Path(self.workdir, "orientd.conf").write_text("[orientation]\nnatural = auto\n")
        self.sysfs.add(DISPLAY)
        self.start_daemon()
        client = self.connect()
        client.subscribe()
        state = client.wait_physical("normal")
        self.assertEqual(state["orientation"], "normal", state)
        return state["layout"]

    def test_a_connected_landscape_edp_panel_makes_the_natural_geometry_landscape(self):
        """a connected eDP panel whose first mode is wider than tall: normal is a landscape layout"""
        # An external monitor (HDMI) listed first says nothing about the panel.
        self.add_connector("card0-HDMI-A-1", "connected", "1080x1920")
        self.add_connector("card0-eDP-1", "connected", "1920x1080\\n1280x720")
        self.assertEqual(self.normal_layout(), "landscape")

    def test_a_portrait_dsi_panel_makes_the_natural_geometry_portrait(self):
        """a connected DSI panel taller than wide: normal is a portrait layout"""
        self.add_connector("card0-DSI-1", "connected", "720x1440")
        self.assertEqual(self.normal_layout(), "portrait")

    def test_a_disconnected_panel_is_ignored(self):
        """a disconnected eDP connector is not the panel: the default (portrait) stays"""
        self.add_connector("card0-eDP-1", "disconnected", "1920x1080")
        self.assertEqual(self.normal_layout(), "portrait")
