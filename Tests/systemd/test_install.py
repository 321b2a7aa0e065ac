"""`make install` and `make uninstall` with DESTDIR: the tree, file for file."""

import re
import shutil
import stat
import tempfile
import unittest
from pathlib import Path

from support import USER_DOCS, InstalledTree, REPO, SERVICE, expected_files, installed_tree, run


class InstallLayoutTests(unittest.TestCase):
    """make install DESTDIR=… PREFIX=/usr lays out the Debian-style tree."""

    def setUp(self):
        self.tree = installed_tree("/usr")

    def test_it_installs_exactly_the_expected_files(self):
        """Binaries, units, udev rule, sysusers file, D-Bus policy and activation file, polkit action, man pages and docs; nothing else, nothing in /etc."""
        self.assertEqual(self.tree.files(), expected_files(self.tree))
        self.assertEqual(
            expected_files(self.tree),
            {
                "/usr/sbin/orientd",
                "/usr/bin/orientctl",
                "/lib/systemd/system/orientd.service",
                "/lib/systemd/system/orientd.socket",
                "/usr/lib/systemd/user/orientd-follow.service",
                "/lib/udev/rules.d/61-orientd.rules",
                "/usr/lib/sysusers.d/orientd.conf",
                "/usr/share/man/man8/orientd.8",
                "/usr/share/man/man1/orientctl.1",
                "/usr/share/dbus-1/system.d/orientd.conf",
                "/usr/share/dbus-1/system-services/net.hadess.SensorProxy.service",
                "/usr/share/polkit-1/actions/net.hadess.SensorProxy.orientd.policy",
                "/usr/share/doc/orientd/README.md",
                "/usr/share/doc/orientd/orientd.conf.example",
                "/usr/share/doc/orientd/orientd-polling.conf",
            }
            | {f"/usr/share/doc/orientd/{name}.md" for name in USER_DOCS}
            | {f"/usr/share/doc/orientd/plots/{p.name}" for p in (REPO / "docs" / "plots").glob("*.svg")},
        )
        for contributors in ("testing.md", "robustness.md", "packaging.md", "architecture.md", "examples.md"):
            self.assertFalse(self.tree.path(f"/usr/share/doc/orientd/{contributors}").exists(), contributors)

    def test_binaries_are_executable_and_everything_else_is_not(self):
        """The two binaries are 0755; every other file is 0644."""
        for name in self.tree.files():
            mode = stat.S_IMODE(self.tree.path(name).stat().st_mode)
            expected = 0o755 if name in ("/usr/sbin/orientd", "/usr/bin/orientctl") else 0o644
            self.assertEqual(oct(mode), oct(expected), name)

    def test_the_binaries_run_and_carry_the_swift_runtime_inside(self):
        """The release binaries start, and link no shared libswiftCore (--static-swift-stdlib)."""
        for name in ("/usr/sbin/orientd", "/usr/bin/orientctl"):
            binary = str(self.tree.path(name))
            self.assertEqual(run([binary, "--help"]).returncode, 0, name)
            self.assertNotIn("libswift", run(["ldd", binary]).stdout, name)
        version = run([str(self.tree.path("/usr/sbin/orientd")), "--version"]).stdout
        self.assertTrue(version.startswith("orientd "), version)

    def test_every_link_in_the_installed_docs_resolves_where_they_are_installed(self):
        """Each relative Markdown link ([x](y.md), ![x](plots/y.svg)) of an installed doc names a file installed beside it."""
        docdir = self.tree.path("/usr/share/doc/orientd")
        checked, broken = 0, []
        for doc in sorted(docdir.glob("*.md")):
            for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
                if re.match(r"[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL, or a heading of the same page
                checked += 1
                if not (doc.parent / target.split("#")[0]).is_file():
                    broken.append(f"{doc.name}: {target}")
        self.assertGreater(checked, 30)
        self.assertEqual(broken, [], "links that do not resolve in /usr/share/doc/orientd")

    def test_the_installed_readme_links_its_neighbours(self):
        """The README's docs/x.md links become x.md where the docs lie flat beside it; the repository's stay docs/x.md."""
        installed = self.tree.path("/usr/share/doc/orientd/README.md").read_text()
        self.assertIn("](using.md", installed)
        self.assertNotIn("](docs/", installed)
        self.assertIn("](docs/using.md", (REPO / "README.md").read_text())

    def test_the_binaries_are_stripped(self):
        """make install strips the binaries (no .symtab); the .deb leaves that to dh_strip (INSTALL_STRIP=)."""
        for name in ("/usr/sbin/orientd", "/usr/bin/orientctl"):
            sections = run(["readelf", "-S", "-W", str(self.tree.path(name))])
            self.assertEqual(sections.returncode, 0, sections.stderr)
            self.assertIn(".text", sections.stdout, name)
            self.assertNotIn(".symtab", sections.stdout, name)

    def test_install_files_without_a_release_build_says_to_build_first(self):
        """make install-files never compiles: with no release build it stops and says `make release`."""
        root = Path(tempfile.mkdtemp(prefix="orientd-install-files."))
        self.addCleanup(shutil.rmtree, root, True)
        result = run(["make", "--no-print-directory", "-C", str(REPO), "install-files", f"DESTDIR={root}",
                      "BUILD_RELEASE=/nonexistent"])
        self.assertNotEqual(result.returncode, 0, result.stdout)
        self.assertIn("build it first, as yourself: make release", result.stderr)
        self.assertEqual(list(root.iterdir()), [])

    def test_the_installed_service_runs_the_installed_daemon(self):
        """ExecStart is rewritten to PREFIX's sbin; every other line is the repository's."""
        installed = self.tree.path("/lib/systemd/system/orientd.service").read_text().splitlines()
        source = SERVICE.read_text().splitlines()
        self.assertEqual(len(installed), len(source))
        differences = [(a, b) for a, b in zip(source, installed) if a != b]
        self.assertEqual(differences, [("ExecStart=/usr/local/sbin/orientd", "ExecStart=/usr/sbin/orientd")])

    def test_the_installed_man_page_names_the_installed_paths(self):
        """orientd(8) names /lib/systemd/system, /lib/udev/rules.d, /usr/lib/sysusers.d and /usr/share/doc/orientd."""
        page = self.tree.path("/usr/share/man/man8/orientd.8").read_text()
        for path in (
            "/lib/systemd/system/orientd.service",
            "/lib/udev/rules.d/61\\-orientd.rules",
            "/usr/lib/sysusers.d/orientd.conf",
            "/usr/share/doc/orientd/orientd.conf.example",
            "/usr/share/doc/orientd/orientd\\-polling.conf",
        ):
            self.assertIn(path, page)
        self.assertNotIn("/usr/local/lib", page)
        self.assertNotIn("/usr/local/share", page)

    def test_the_installed_docs_are_the_repositorys(self):
        """The user docs, example configuration, drop-in and plots are copied unchanged; the README with its docs/ links made flat."""
        for name, source in [
            ("orientd.conf.example", REPO / "systemd" / "orientd.conf.example"),
            ("orientd-polling.conf", REPO / "systemd" / "orientd-polling.conf"),
        ] + [(f"{name}.md", REPO / "docs" / f"{name}.md") for name in USER_DOCS] + [
            (f"plots/{p.name}", p) for p in (REPO / "docs" / "plots").glob("*.svg")
        ]:
            self.assertEqual(self.tree.path(f"/usr/share/doc/orientd/{name}").read_bytes(), source.read_bytes(), name)
        readme = (REPO / "README.md").read_text().replace("](docs/", "](")
        self.assertEqual(self.tree.path("/usr/share/doc/orientd/README.md").read_text(), readme)


class DefaultPrefixTests(unittest.TestCase):
    """Without PREFIX, everything goes under /usr/local."""

    def test_the_default_prefix_is_usr_local(self):
        """Units in /usr/local/lib/systemd/system, the rule in /usr/local/lib/udev/rules.d, ExecStart unchanged."""
        tree = installed_tree("/usr/local")
        self.assertEqual(tree.files(), expected_files(tree))
        self.assertIn("/usr/local/lib/systemd/system/orientd.service", tree.files())
        self.assertIn("/usr/local/lib/udev/rules.d/61-orientd.rules", tree.files())
        self.assertEqual(
            tree.path("/usr/local/lib/systemd/system/orientd.service").read_text(), SERVICE.read_text()
        )


class UninstallTests(unittest.TestCase):
    """make uninstall removes what make install put there."""

    def test_uninstall_removes_every_installed_file(self):
        """After install then uninstall into a fresh DESTDIR, no file is left, nor the doc directory."""
        installed_tree("/usr")  # the build, once
        root = Path(tempfile.mkdtemp(prefix="orientd-uninstall."))
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        tree = InstalledTree(root, "/usr")
        install = tree.make("install")
        self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
        self.assertEqual(tree.files(), expected_files(tree))
        uninstall = tree.make("uninstall", timeout=120)
        self.assertEqual(uninstall.returncode, 0, uninstall.stdout + uninstall.stderr)
        self.assertEqual(tree.files(), set())
        self.assertFalse(tree.path(tree.docdir).exists())

    def test_uninstall_leaves_other_files_alone(self):
        """A file install did not put there survives uninstall, and so does its directory."""
        installed_tree("/usr")
        root = Path(tempfile.mkdtemp(prefix="orientd-uninstall."))
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        tree = InstalledTree(root, "/usr")
        self.assertEqual(tree.make("install").returncode, 0)
        foreign = [tree.path("/usr/sbin/other-daemon"), tree.path("/usr/share/doc/orientd/NOTES.local")]
        for path in foreign:
            path.write_text("not orientd's\n")
        self.assertEqual(tree.make("uninstall", timeout=120).returncode, 0)
        self.assertEqual(tree.files(), {"/usr/sbin/other-daemon", "/usr/share/doc/orientd/NOTES.local"})


class DBusFilesTests(unittest.TestCase):
    """The D-Bus side's installed files say what the docs say (docs/dbus.md)."""

    def setUp(self):
        self.tree = installed_tree("/usr")

    def test_the_bus_policy_lets_orientd_own_the_name_and_anyone_call_it(self):
        """orientd (and root) may own net.hadess.SensorProxy; the default context may call its four interfaces"""
        import xml.etree.ElementTree as ET
        root = ET.parse(self.tree.path("/usr/share/dbus-1/system.d/orientd.conf")).getroot()
        owners = {p.get("user") for p in root.findall("policy") if p.find("allow[@own='net.hadess.SensorProxy']") is not None}
        self.assertEqual(owners, {"orientd", "root"})
        default = root.find("policy[@context='default']")
        callable_interfaces = {a.get("send_interface") for a in default.findall("allow")
                               if a.get("send_destination") == "net.hadess.SensorProxy"}
        self.assertEqual(callable_interfaces, {"net.hadess.SensorProxy", "org.freedesktop.DBus.Introspectable",
                                               "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Peer"})

    def test_the_bus_policy_gives_the_compass_claim_to_geoclue_alone(self):
        """as iio-sensor-proxy's policy: only the geoclue user may call the compass interface (ClaimCompass and
        ReleaseCompass); the default context may read, introspect and ping every object, the compass's too"""
        import xml.etree.ElementTree as ET
        root = ET.parse(self.tree.path("/usr/share/dbus-1/system.d/orientd.conf")).getroot()
        compass = "/net/hadess/SensorProxy/Compass"
        geoclue = root.find("policy[@user='geoclue']")
        self.assertIsNotNone(geoclue)
        self.assertEqual({(a.get("send_interface"), a.get("send_path")) for a in geoclue.findall("allow")},
                         {("net.hadess.SensorProxy.Compass", compass)})
        default = root.find("policy[@context='default']")
        self.assertEqual(default.findall("deny"), [])
        allowed = {a.get("send_interface") for a in default.findall("allow")}
        self.assertNotIn("net.hadess.SensorProxy.Compass", allowed)
        self.assertTrue(all(a.get("send_path") is None for a in default.findall("allow")), "the default context's rules hold for every object")

    def test_activation_by_name_starts_the_orientd_unit(self):
        """the activation file names net.hadess.SensorProxy and SystemdService=orientd.service, which declares BusName="""
        text = self.tree.path("/usr/share/dbus-1/system-services/net.hadess.SensorProxy.service").read_text()
        self.assertIn("[D-BUS Service]", text)
        self.assertRegex(text, r"(?m)^Name=net\.hadess\.SensorProxy$")
        self.assertRegex(text, r"(?m)^SystemdService=orientd\.service$")
        unit = self.tree.path("/lib/systemd/system/orientd.service").read_text()
        self.assertRegex(unit, r"(?m)^BusName=net\.hadess\.SensorProxy$")

    def test_the_polkit_action_allows_the_active_session(self):
        """net.hadess.SensorProxy.claim-sensor: allow_active yes, inactive and any no"""
        import xml.etree.ElementTree as ET
        root = ET.parse(self.tree.path("/usr/share/polkit-1/actions/net.hadess.SensorProxy.orientd.policy")).getroot()
        action = root.find("action[@id='net.hadess.SensorProxy.claim-sensor']")
        self.assertIsNotNone(action)
        defaults = {child.tag: child.text for child in action.find("defaults")}
        self.assertEqual(defaults, {"allow_any": "no", "allow_inactive": "no", "allow_active": "yes"})


if __name__ == "__main__":
    unittest.main()
