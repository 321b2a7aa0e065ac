"""Shared machinery for the systemd, installation and man-page tests.

The suite checks what `make install` ships: the units under
`systemd-analyze verify` and `systemd-analyze security --offline=true`, the udev
rule under `udevadm test`, the man pages under `man -l`, and the installed tree
itself.

`make install DESTDIR=… PREFIX=/usr` builds the release binaries, so it runs
once per test process, the first time a test asks for the tree. Nothing needs a
running systemd. The udev tests need a private mount namespace (root, or
unprivileged user namespaces), because `udevadm test` reads rules only from
the system's rule directories and writes under /dev and /run; without one they
are skipped with the reason.
"""

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness
from orientd_harness import REPO, TRACES, Orientd  # noqa: E402,F401 (TRACES, Orientd: for test_units)

SYSTEMD_DIR = REPO / "systemd"
MAN_DIR = REPO / "man"
UMOCKDEV_DIR = REPO / "Tests" / "umockdev"

SERVICE = SYSTEMD_DIR / "orientd.service"
SOCKET = SYSTEMD_DIR / "orientd.socket"
RULES = SYSTEMD_DIR / "61-orientd.rules"
POLLING_DROPIN = SYSTEMD_DIR / "orientd-polling.conf"
SYSUSERS = SYSTEMD_DIR / "orientd.sysusers"
FOLLOW_SERVICE = SYSTEMD_DIR / "orientd-follow.service"

#: The docs `make install` puts in the doc directory beside README.md: the user's, not the contributors'.
USER_DOCS = ["behaviour", "classifier", "compositors", "configuration", "dbus", "protocol", "security", "traces", "using"]

#: How long `make install` may take: a cold release build of every product.
INSTALL_TIMEOUT_S = 1800


def run(argv, *, env=None, timeout=120, cwd=None, input=None):
    """Runs `argv` and returns the CompletedProcess; output as text, never raises on status."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        argv, cwd=cwd, env=full_env, input=input, capture_output=True, text=True, timeout=timeout
    )


def require_tool(test, name):
    """Fails the test, naming the Debian package, when a tool `make deps` installs is missing."""
    if shutil.which(name) is None:
        packages = {
            "systemd-analyze": "systemd",
            "systemd-sysusers": "systemd",
            "man": "man-db",
            "groff": "groff-base",
            "udevadm": "udev",
            "umockdev-run": "umockdev",
        }
        test.fail(f"{name} is missing: install the Debian package {packages.get(name, name)} (make deps)")


# ---------------------------------------------------------------------------
# The installed tree


class InstalledTree:
    """A `make install DESTDIR=root PREFIX=prefix` tree, with the paths a test needs."""

    def __init__(self, root: Path, prefix: str):
        self.root = root
        self.prefix = prefix
        system_lib = "/lib" if prefix == "/usr" else f"{prefix}/lib"
        self.sbindir = f"{prefix}/sbin"
        self.bindir = f"{prefix}/bin"
        self.unitdir = f"{system_lib}/systemd/system"
        self.userunitdir = f"{prefix}/lib/systemd/user"
        self.udevrulesdir = f"{system_lib}/udev/rules.d"
        self.sysusersdir = f"{prefix}/lib/sysusers.d"
        self.mandir = f"{prefix}/share/man"
        self.docdir = f"{prefix}/share/doc/orientd"
        self.dbuspolicydir = f"{prefix}/share/dbus-1/system.d"
        self.dbusservicedir = f"{prefix}/share/dbus-1/system-services"
        self.polkitactiondir = f"{prefix}/share/polkit-1/actions"

    def path(self, absolute: str) -> Path:
        """The file that `absolute` (a path on the target system) is in this tree."""
        return self.root / absolute.lstrip("/")

    def files(self):
        """Every file and symlink in the tree, as target-system paths."""
        found = set()
        for directory, _, names in os.walk(self.root):
            for name in names:
                found.add("/" + str(Path(directory, name).relative_to(self.root)))
        return found

    def make(self, target, timeout=INSTALL_TIMEOUT_S):
        """Runs `make TARGET DESTDIR=… PREFIX=…` in the repository; returns the CompletedProcess."""
        return run(
            ["make", "--no-print-directory", "-C", str(REPO), target, f"DESTDIR={self.root}", f"PREFIX={self.prefix}"],
            timeout=timeout,
        )


_trees = {}


def installed_tree(prefix="/usr") -> InstalledTree:
    """The tree `make install` lays out for `prefix`, installed once per process.

    Raises AssertionError with make's output when the installation fails, so
    every test that needs the tree fails with the same clear message.
    """
    if prefix not in _trees:
        root = Path(tempfile.mkdtemp(prefix="orientd-install."))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        tree = InstalledTree(root, prefix)
        result = tree.make("install")
        _trees[prefix] = (tree, result)
    tree, result = _trees[prefix]
    if result.returncode != 0:
        raise AssertionError(
            f"make install DESTDIR={tree.root} PREFIX={prefix} failed ({result.returncode}):\n"
            f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
        )
    return tree


def expected_files(tree: InstalledTree):
    """Every file `make install` must put in `tree`: exactly these, no more."""
    docs = ["README.md", "orientd.conf.example", "orientd-polling.conf"]
    docs += [f"{name}.md" for name in USER_DOCS]
    files = {
        f"{tree.sbindir}/orientd",
        f"{tree.bindir}/orientctl",
        f"{tree.unitdir}/orientd.service",
        f"{tree.unitdir}/orientd.socket",
        f"{tree.userunitdir}/orientd-follow.service",
        f"{tree.udevrulesdir}/61-orientd.rules",
        f"{tree.sysusersdir}/orientd.conf",
        f"{tree.mandir}/man8/orientd.8",
        f"{tree.mandir}/man1/orientctl.1",
        f"{tree.dbuspolicydir}/orientd.conf",
        f"{tree.dbusservicedir}/net.hadess.SensorProxy.service",
        f"{tree.polkitactiondir}/net.hadess.SensorProxy.orientd.policy",
    }
    files |= {f"{tree.docdir}/{name}" for name in docs}
    files |= {f"{tree.docdir}/plots/{p.name}" for p in (REPO / "docs" / "plots").glob("*.svg")}
    return files


# ---------------------------------------------------------------------------
# Unit files


def unit_entries(path):
    """The (section, key, value) assignments of a unit file or drop-in, in order.

    Comments and blank lines are skipped; a key may repeat (SystemCallFilter=).
    Backslash continuation lines are joined, as systemd does.
    """
    entries = []
    section = None
    pending = ""
    for raw in Path(path).read_text().splitlines():
        line = pending + raw.strip()
        pending = ""
        if not line or line.startswith(("#", ";")):
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, _, value = line.partition("=")
        entries.append((section, key.strip(), value.strip()))
    return entries


def unit_values(path, section, key):
    """Every value assigned to `key` in `section`, in order."""
    return [v for s, k, v in unit_entries(path) if s == section and k == key]


def unit_value(path, section, key):
    """The last value assigned to `key` in `section` (what systemd uses for a plain setting), or None."""
    values = unit_values(path, section, key)
    return values[-1] if values else None


def unit_directory(tree: InstalledTree, *, with_polling_dropin=False) -> Path:
    """A directory with the installed units, ExecStart pointing into `tree`.

    `systemd-analyze verify` insists that ExecStart's binary exists; on this
    machine it exists only inside the tree. Everything else is byte for byte
    what was installed. With `with_polling_dropin`, the polling drop-in sits
    in orientd.service.d/ beside it, where systemd-analyze finds it.
    """
    directory = Path(tempfile.mkdtemp(prefix="orientd-units."))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    service = tree.path(f"{tree.unitdir}/orientd.service").read_text()
    installed_exec = f"ExecStart={tree.sbindir}/orientd"
    assert installed_exec in service, f"the installed unit does not say {installed_exec}"
    (directory / "orientd.service").write_text(
        service.replace(installed_exec, f"ExecStart={tree.path(tree.sbindir + '/orientd')}")
    )
    shutil.copy(tree.path(f"{tree.unitdir}/orientd.socket"), directory / "orientd.socket")
    if with_polling_dropin:
        (directory / "orientd.service.d").mkdir()
        shutil.copy(tree.path(f"{tree.docdir}/orientd-polling.conf"), directory / "orientd.service.d" / "polling.conf")
    return directory


OVERALL = re.compile(r"Overall exposure level for (\S+): (\d+\.\d) (\w+)")


def exposure(unit_path: Path):
    """(score, band, output) from `systemd-analyze security --offline=true UNIT`."""
    result = run(["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit_path)])
    match = OVERALL.search(result.stdout)
    if not match:
        raise AssertionError(f"no overall exposure level in:\n{result.stdout}\n{result.stderr}")
    return float(match.group(2)), match.group(3), result


def exposed_checks(unit_path: Path):
    """The names of the checks `systemd-analyze security` counts against the unit."""
    result = run(["systemd-analyze", "security", "--offline=true", "--no-pager", "--json=short", str(unit_path)])
    checks = json.loads(result.stdout)
    return {check["name"] for check in checks if not check["set"] and check["exposure"] not in (None, "0.0")}


# ---------------------------------------------------------------------------
# udev


def rule_lines(path):
    """The rule lines of a udev rules file: (line number, text), continuations joined."""
    lines = []
    pending, start = "", None
    for number, raw in enumerate(Path(path).read_text().splitlines(), start=1):
        text = raw.strip()
        if not pending and (not text or text.startswith("#")):
            continue
        if start is None:
            start = number
        if text.endswith("\\"):
            pending += text[:-1]
            continue
        lines.append((start, pending + text))
        pending, start = "", None
    return lines


UMOCKDEV_FIXTURES = {
    "buffered bma255": UMOCKDEV_DIR / "buffered" / "bma255-s12le.umockdev",
    "buffered mpu6050": UMOCKDEV_DIR / "buffered" / "mpu6050-s16be.umockdev",
    "polled mxc4005": UMOCKDEV_DIR / "devices" / "i2c-mxc4005.umockdev",
    "HID sensor hub": UMOCKDEV_DIR / "devices" / "hid-sensor-hub-accel_3d.umockdev",
    "cros-ec": UMOCKDEV_DIR / "devices" / "cros-ec-accel-display.umockdev",
}


def fixture_iio_device(fixture: Path):
    """(devpath, attributes) of the IIO device in a umockdev fixture: its first `P:` record."""
    devpath, attributes = None, {}
    for line in fixture.read_text().splitlines():
        if line.startswith("P: "):
            if devpath is not None:
                break
            devpath = line[3:]
        elif line.startswith("A: ") and devpath is not None:
            name, _, value = line[3:].partition("=")
            attributes[name] = value
    return devpath, attributes


#: The shell run inside a private mount namespace before `udevadm test`: the
#: rules directories hold only the rule under test, and /dev, /run and
#: /etc/group are private copies, so nothing on the machine changes and the
#: group orientd exists as it would after systemd-sysusers.
NAMESPACE_SETUP = r"""
set -e
w=$1; shift
mkdir -p "$w/dev" "$w/empty"
mount -t tmpfs tmpfs "$w/dev"
for n in null zero full random urandom; do touch "$w/dev/$n"; mount --bind "/dev/$n" "$w/dev/$n"; done
mkdir "$w/dev/pts"; mount -t devpts -o newinstance,ptmxmode=0666 devpts "$w/dev/pts"; ln -s pts/ptmx "$w/dev/ptmx"
mount --rbind "$w/dev" /dev
mount -t tmpfs tmpfs /run
mount --bind "$w/rules" /etc/udev/rules.d
for d in /usr/lib/udev/rules.d /lib/udev/rules.d /usr/local/lib/udev/rules.d; do
  [ -d "$d" ] && mount --bind "$w/empty" "$d"
done
cp /etc/group "$w/group"; echo 'orientd:x:990:' >> "$w/group"; mount --bind "$w/group" /etc/group
exec "$@"
"""


class UdevSandbox:
    """Runs `udevadm test` on umockdev devices with only a chosen rule file loaded."""

    def __init__(self, rule_file: Path):
        self.work = Path(tempfile.mkdtemp(prefix="orientd-udev."))
        (self.work / "rules").mkdir()
        shutil.copy(rule_file, self.work / "rules" / rule_file.name)
        (self.work / "setup.sh").write_text(NAMESPACE_SETUP)
        self.unshare = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--user", "--map-root-user", "--mount"]

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def available(self):
        """None when the sandbox works here, else why not."""
        for tool in ("unshare", "udevadm", "umockdev-run"):
            if shutil.which(tool) is None:
                return f"{tool} is not installed"
        probe = run(self.unshare + ["sh", str(self.work / "setup.sh"), str(self.work), "true"])
        if probe.returncode != 0:
            return f"no private mount namespace here ({probe.stderr.strip()[:200]})"
        return None

    def test(self, device_file: Path, devpath: str, action="add"):
        """`udevadm test --action=ACTION /sys{devpath}` under umockdev.

        Returns (properties, runs, output): the device's properties after the
        rules, the RUN commands as udev would run them (substituted), and the
        whole output for failure messages.
        """
        result = run(
            self.unshare
            + ["sh", str(self.work / "setup.sh"), str(self.work)]
            + ["umockdev-run", "-d", str(device_file), "--", "udevadm", "test", f"--action={action}", f"/sys{devpath}"],
            timeout=60,
        )
        output = result.stdout + result.stderr
        if result.returncode != 0:
            raise AssertionError(f"udevadm test failed ({result.returncode}):\n{output}")
        properties = {}
        runs = []
        for line in result.stdout.splitlines():
            if line.startswith("run: "):
                runs.append(line[len("run: '") : -1])
            elif re.match(r"^[A-Z_][A-Z0-9_]*=", line):
                key, _, value = line.partition("=")
                properties[key] = value
        return properties, runs, output
