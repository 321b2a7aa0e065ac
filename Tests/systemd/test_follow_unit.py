"""orientd-follow.service: the user unit that runs `orientctl follow` for the
graphical session, as `make install` ships it."""

import shutil
import tempfile
import unittest
from pathlib import Path

from support import FOLLOW_SERVICE, installed_tree, require_tool, run, unit_value


class FollowUnitTests(unittest.TestCase):
    """The unit belongs to the graphical session and runs the installed orientctl."""

    def test_it_starts_and_stops_with_the_graphical_session(self):
        """WantedBy= and PartOf= graphical-session.target, ordered after it, never started without it."""
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Install", "WantedBy"), "graphical-session.target")
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Unit", "PartOf"), "graphical-session.target")
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Unit", "After"), "graphical-session.target")
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Unit", "Requisite"), "graphical-session.target")

    def test_it_runs_follow_and_does_not_retry_a_usage_error(self):
        """ExecStart is `orientctl follow`; exit 64 (a wrong option) is not restarted."""
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Service", "ExecStart"), "/usr/local/bin/orientctl follow")
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Service", "Restart"), "on-failure")
        self.assertEqual(unit_value(FOLLOW_SERVICE, "Service", "RestartPreventExitStatus"), "64")

    def test_it_is_installed_as_a_user_unit_running_the_installed_orientctl(self):
        """PREFIX=/usr puts it in /usr/lib/systemd/user with ExecStart=/usr/bin/orientctl follow."""
        tree = installed_tree("/usr")
        installed = tree.path("/usr/lib/systemd/user/orientd-follow.service")
        self.assertEqual(unit_value(installed, "Service", "ExecStart"), "/usr/bin/orientctl follow")
        self.assertNotIn("/usr/local", installed.read_text())

    def test_the_installed_unit_verifies_as_a_user_unit_without_a_message(self):
        """systemd-analyze --user verify says nothing about it."""
        require_tool(self, "systemd-analyze")
        tree = installed_tree("/usr")
        directory = Path(tempfile.mkdtemp(prefix="orientd-user-units."))
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        unit = tree.path("/usr/lib/systemd/user/orientd-follow.service").read_text()
        # verify insists that ExecStart's binary exists: here it exists only in the tree.
        unit = unit.replace("ExecStart=/usr/bin/orientctl", f"ExecStart={tree.path('/usr/bin/orientctl')}")
        (directory / "orientd-follow.service").write_text(unit)
        runtime = directory / "runtime"  # a user manager's runtime directory, as a session has
        runtime.mkdir(mode=0o700)
        result = run(["systemd-analyze", "--user", "verify", "--man=no", "--generators=no",
                      str(directory / "orientd-follow.service")], env={"XDG_RUNTIME_DIR": str(runtime)})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout + result.stderr, "")
