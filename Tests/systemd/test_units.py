"""orientd.service, orientd.socket and the polling drop-in, as installed.

The exposure targets below are the scores the units ship with (see the comment
block at the top of systemd/orientd.service). A change that raises a score
fails here; lower the constant when a change improves it.
"""

import re
import shlex
import tempfile
import unittest
from pathlib import Path

from support import (
    POLLING_DROPIN,
    SERVICE,
    SOCKET,
    SYSUSERS,
    RULES,
    TRACES,
    Orientd,
    exposed_checks,
    exposure,
    installed_tree,
    require_tool,
    run,
    unit_directory,
    unit_value,
    unit_values,
)

#: `systemd-analyze security --offline=true` exposure of orientd.service (buffered capture).
SERVICE_EXPOSURE_TARGET = 1.4
#: The same with orientd-polling.conf as a drop-in (polling only). QRTR (AF_QIPCRTR, a Qualcomm
#: phone's Sensor Core) costs both 0.2 (1.2 and 0.8 without it), and takes this one from SAFE to OK.
POLLING_EXPOSURE_TARGET = 1.1
#: Issue 5's ceiling: at or below 2.0 (systemd-timesyncd scores 2.3).
ISSUE_CEILING = 2.0

#: What the main unit still exposes, each for a reason its header gives.
SERVICE_EXPOSURES = {
    "RootDirectory=/RootImage=",  # reads the host's /sys and /run/udev
    "PrivateDevices=",  # buffered capture opens /dev/iio:deviceN
    "ProtectKernelTunables=",  # buffered capture writes sysfs attributes
    "RestrictAddressFamilies=~AF_NETLINK",  # udev events
    "RestrictAddressFamilies=~AF_UNIX",  # its socket, sd_notify, the journal
    "RestrictAddressFamilies=~…",  # AF_QIPCRTR: a Qualcomm phone's Sensor Core
    "PrivateNetwork=",  # would cut udev events
    "PrivateUsers=",  # would cut udev events
    "DeviceAllow=",  # char-iio rw, char-input r, and char-rtc r from ProtectClock=
}
#: What the polling drop-in takes off that list.
POLLING_CLOSES = {"PrivateDevices=", "ProtectKernelTunables="}


class UnitVerifyTests(unittest.TestCase):
    """systemd-analyze verify accepts the installed units."""

    def setUp(self):
        require_tool(self, "systemd-analyze")
        self.tree = installed_tree()

    def verify(self, directory, *, man):
        env = {"MANPATH": str(self.tree.path(self.tree.mandir))} if man else None
        return run(
            ["systemd-analyze", "verify", f"--man={'yes' if man else 'no'}", "--generators=no",
             str(directory / "orientd.service"), str(directory / "orientd.socket")],
            env=env,
        )

    def test_the_installed_units_verify_without_a_single_message(self):
        """systemd-analyze verify says nothing at all about orientd.service and orientd.socket."""
        result = self.verify(unit_directory(self.tree), man=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout + result.stderr, "")

    def test_the_documentation_the_units_name_is_installed(self):
        """verify finds man:orientd(8) and man:orientctl(1) among the installed man pages."""
        require_tool(self, "man")
        result = self.verify(unit_directory(self.tree), man=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout + result.stderr, "")

    def test_the_units_verify_with_the_polling_dropin(self):
        """The polling drop-in verifies too, as /etc/systemd/system/orientd.service.d/polling.conf would."""
        result = self.verify(unit_directory(self.tree, with_polling_dropin=True), man=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout + result.stderr, "")

    def test_a_misspelt_directive_is_caught(self):
        """The check is not vacuous: a unit with a typo makes verify speak."""
        directory = unit_directory(self.tree)
        service = directory / "orientd.service"
        service.write_text(service.read_text().replace("Type=notify", "Type=notfy"))
        result = self.verify(directory, man=False)
        self.assertIn("notfy", result.stdout + result.stderr)


class ExposureTests(unittest.TestCase):
    """systemd-analyze security --offline=true scores the service at or below its target."""

    def setUp(self):
        require_tool(self, "systemd-analyze")
        self.tree = installed_tree()

    def test_the_service_scores_at_or_below_its_target(self):
        """orientd.service scores at most 1.4 (OK), below issue 5's ceiling of 2.0."""
        score, band, result = exposure(unit_directory(self.tree) / "orientd.service")
        self.assertLessEqual(score, SERVICE_EXPOSURE_TARGET, result.stdout)
        self.assertLessEqual(score, ISSUE_CEILING)
        self.assertIn(band, ("SAFE", "OK"))

    def test_the_polling_dropin_scores_at_or_below_its_target(self):
        """With orientd-polling.conf the service scores at most 1.1 (OK)."""
        score, band, result = exposure(unit_directory(self.tree, with_polling_dropin=True) / "orientd.service")
        self.assertLessEqual(score, POLLING_EXPOSURE_TARGET, result.stdout)
        self.assertIn(band, ("SAFE", "OK"))

    def test_the_threshold_option_agrees(self):
        """--threshold (on the 0-100 scale: the score times ten) passes at the target and fails just below it."""
        unit = str(unit_directory(self.tree) / "orientd.service")
        target = round(SERVICE_EXPOSURE_TARGET * 10)
        at = run(["systemd-analyze", "security", "--offline=true", f"--threshold={target}", unit])
        below = run(["systemd-analyze", "security", "--offline=true", f"--threshold={target - 1}", unit])
        self.assertEqual(at.returncode, 0, at.stdout)
        self.assertNotEqual(below.returncode, 0, "the target can come down: lower SERVICE_EXPOSURE_TARGET")

    def test_the_service_exposes_only_what_its_header_explains(self):
        """The checks the service fails are exactly the ones the unit's comment block accounts for."""
        self.assertEqual(exposed_checks(unit_directory(self.tree) / "orientd.service"), SERVICE_EXPOSURES)

    def test_the_polling_dropin_closes_devices_and_kernel_tunables(self):
        """With the drop-in, device access and writable kernel tunables are off the list; nothing is added."""
        checks = exposed_checks(unit_directory(self.tree, with_polling_dropin=True) / "orientd.service")
        self.assertEqual(checks, SERVICE_EXPOSURES - POLLING_CLOSES)


class ServiceContentTests(unittest.TestCase):
    """What orientd.service must say, whatever the score."""

    def test_it_is_a_notify_service_with_a_watchdog_restarted_on_failure(self):
        """Type=notify (READY=1 from the daemon), NotifyAccess=main, WatchdogSec=30s, Restart=on-failure."""
        self.assertEqual(unit_value(SERVICE, "Service", "Type"), "notify")
        self.assertEqual(unit_value(SERVICE, "Service", "NotifyAccess"), "main")
        self.assertEqual(unit_value(SERVICE, "Service", "WatchdogSec"), "30s")
        self.assertEqual(unit_value(SERVICE, "Service", "Restart"), "on-failure")

    def test_it_keeps_state_and_configuration_in_systemd_managed_directories(self):
        """StateDirectory=orientd (the rotation lock) and ConfigurationDirectory=orientd (/etc/orientd)."""
        self.assertEqual(unit_value(SERVICE, "Service", "StateDirectory"), "orientd")
        self.assertEqual(unit_value(SERVICE, "Service", "ConfigurationDirectory"), "orientd")

    def test_it_runs_at_the_make_install_default_path(self):
        """ExecStart is /usr/local/sbin/orientd, which make install rewrites for another PREFIX."""
        self.assertEqual(unit_value(SERVICE, "Service", "ExecStart"), "/usr/local/sbin/orientd")

    def test_it_does_not_own_the_socket_directory(self):
        """No RuntimeDirectory=: orientd.socket owns /run/orientd/, and stopping the service must not remove it."""
        self.assertIsNone(unit_value(SERVICE, "Service", "RuntimeDirectory"))
        self.assertEqual(unit_value(SERVICE, "Unit", "Requires"), "orientd.socket")

    def test_it_never_cuts_udev_events(self):
        """No PrivateNetwork= or PrivateUsers= (they stop udev's netlink events); AF_NETLINK stays allowed,
        and AF_QIPCRTR for a Qualcomm phone's Sensor Core."""
        self.assertNotIn(unit_value(SERVICE, "Service", "PrivateNetwork"), ("yes", "true", "1", "on"))
        self.assertNotIn(unit_value(SERVICE, "Service", "PrivateUsers"), ("yes", "true", "1", "on"))
        families = " ".join(unit_values(SERVICE, "Service", "RestrictAddressFamilies")).split()
        self.assertEqual(sorted(families), ["AF_NETLINK", "AF_QIPCRTR", "AF_UNIX"])

    def test_it_can_reach_iio_devices_and_input_nodes_and_nothing_else(self):
        """DevicePolicy=closed with DeviceAllow=char-iio rw (buffered capture), char-input r (evdev
        accelerometers and proximity switches, through the input group) and /dev/uinput rw (the
        tablet-mode switch from the hinge, loaded by modprobe@uinput): no other hardware."""
        self.assertEqual(unit_value(SERVICE, "Service", "DevicePolicy"), "closed")
        self.assertEqual(unit_values(SERVICE, "Service", "DeviceAllow"), ["char-iio rw", "char-input r", "/dev/uinput rw"])
        for key in ("Wants", "After"):
            self.assertIn("modprobe@uinput.service", unit_value(SERVICE, "Unit", key).split())
        self.assertRegex(RULES.read_text(), r'(?m)^SUBSYSTEM=="misc", KERNEL=="uinput", GROUP="orientd", MODE="0660"$')
        # The input group through sysusers (`m orientd input`), not SupplementaryGroups=,
        # which fails the unit on a system without the group (a minimal Debian).
        self.assertEqual(unit_values(SERVICE, "Service", "SupplementaryGroups"), [])
        self.assertIn("m orientd input", SYSUSERS.read_text())

    def test_its_user_is_the_one_sysusers_creates_and_udev_grants(self):
        """User= and Group= are the user of orientd.sysusers and the group 61-orientd.rules hands the sensor to."""
        user = unit_value(SERVICE, "Service", "User")
        self.assertEqual(unit_value(SERVICE, "Service", "Group"), user)
        sysusers = [line.split() for line in SYSUSERS.read_text().splitlines() if line.startswith("u ")]
        self.assertEqual([fields[1] for fields in sysusers], [user])
        self.assertRegex(RULES.read_text(), rf'GROUP="{re.escape(user)}"')

    def test_reload_sends_sighup_without_a_kill_binary(self):
        """ExecReload, run as systemd runs it (MAINPID set) with no kill on PATH, makes the daemon reload.

        /bin/kill comes from procps, which a minimal Debian lacks: the reload must
        need nothing but /bin/sh, which is essential.
        """
        argv = shlex.split(unit_value(SERVICE, "Service", "ExecReload"))
        self.assertEqual(argv[0], "/bin/sh", "ExecReload must need no binary a minimal system may lack")
        tree = installed_tree()
        with tempfile.TemporaryDirectory(prefix="orientd-reload.") as scratch:
            config = Path(scratch) / "orientd.conf"
            config.write_text("[orientation]\nnatural = portrait\n")
            daemon = Orientd(scratch, "--mock", TRACES / "brisk90.trace", "--loop", "--config", config,
                             binary=tree.path(f"{tree.sbindir}/orientd"), state_dir=scratch)
            try:
                daemon.wait_for_log("listening", timeout=10)
                reload = run(argv, env={"MAINPID": str(daemon.pid), "PATH": "/nonexistent"})
                self.assertEqual(reload.returncode, 0, reload.stderr)
                daemon.wait_for_log("reloaded", timeout=10)
                self.assertTrue(daemon.alive(), "the daemon must still run after a reload")
            finally:
                daemon.stop()

    def test_the_polling_dropin_restores_read_only_sys_and_private_devices(self):
        """orientd-polling.conf sets ProtectKernelTunables=yes and PrivateDevices=yes, and drops char-iio and char-input."""
        self.assertEqual(unit_value(POLLING_DROPIN, "Service", "ProtectKernelTunables"), "yes")
        self.assertEqual(unit_value(POLLING_DROPIN, "Service", "PrivateDevices"), "yes")
        self.assertEqual(unit_values(POLLING_DROPIN, "Service", "DeviceAllow"), [""])


class SocketContentTests(unittest.TestCase):
    """orientd.socket listens where the daemon and its clients expect it."""

    def test_it_listens_on_the_daemons_default_socket(self):
        """ListenStream=/run/orientd/orientd.sock, the path orientd and orientctl default to."""
        self.assertEqual(unit_value(SOCKET, "Socket", "ListenStream"), "/run/orientd/orientd.sock")
        tree = installed_tree()
        for binary in (f"{tree.sbindir}/orientd", f"{tree.bindir}/orientctl"):
            help_text = run([str(tree.path(binary)), "--help"]).stdout
            self.assertIn("/run/orientd/orientd.sock", help_text, binary)

    def test_anyone_may_connect_and_the_directory_is_world_readable(self):
        """SocketMode=0666 (the daemon authorises per request) and DirectoryMode=0755."""
        self.assertEqual(unit_value(SOCKET, "Socket", "SocketMode"), "0666")
        self.assertEqual(unit_value(SOCKET, "Socket", "DirectoryMode"), "0755")

    def test_it_activates_the_service_and_starts_with_sockets_target(self):
        """Service=orientd.service, WantedBy=sockets.target, one daemon for every connection (no Accept=)."""
        self.assertEqual(unit_value(SOCKET, "Socket", "Service"), "orientd.service")
        self.assertEqual(unit_value(SOCKET, "Install", "WantedBy"), "sockets.target")
        self.assertNotIn(unit_value(SOCKET, "Socket", "Accept"), ("yes", "true", "1", "on"))


class SysusersTests(unittest.TestCase):
    """orientd.sysusers creates the daemon's user and group."""

    def test_sysusers_creates_the_orientd_user_and_group(self):
        """systemd-sysusers --root=DIR creates user and group orientd, home /var/lib/orientd, no login shell."""
        require_tool(self, "systemd-sysusers")
        with tempfile.TemporaryDirectory() as root:
            Path(root, "etc").mkdir()
            result = run(["systemd-sysusers", f"--root={root}", str(SYSUSERS)])
            self.assertEqual(result.returncode, 0, result.stderr)
            passwd = Path(root, "etc", "passwd").read_text().splitlines()
            group = Path(root, "etc", "group").read_text().splitlines()
        users = [line.split(":") for line in passwd if line.startswith("orientd:")]
        self.assertEqual(len(users), 1, passwd)
        name, _, uid, gid, _, home, shell = users[0]
        self.assertLess(int(uid), 1000, "a system user")
        self.assertEqual(home, "/var/lib/orientd")
        self.assertTrue(shell.endswith("nologin"), shell)
        self.assertEqual([line.split(":")[2] for line in group if line.startswith("orientd:")], [gid])


if __name__ == "__main__":
    unittest.main()
