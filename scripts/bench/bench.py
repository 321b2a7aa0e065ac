#!/usr/bin/python3
"""`make bench`: orientd's figures, side by side with iio-sensor-proxy (issue 7).

Prints a table and writes JSON to $BENCH_OUT (default .build/bench.json) with
the keys below at the top level, a `details` object (every figure
behind them: spreads, the peer's own numbers, the 1- and 100-subscriber
fan-out, the machine) and, only when a key is null, a `reasons` object saying
why.

    umockdev-wrapper /usr/bin/python3 scripts/bench/bench.py [--quick] [--only fanout|umockdev|dbus|sensors|...]

(it re-executes itself under umockdev-wrapper when started without it). It needs
the release builds of orientd (`swift build -c release`) and of the Benchmarks
package (`cd Benchmarks && swift build -c release`), Debian's umockdev,
gir1.2-umockdev-1.0, python3-gi, dbus-daemon and iio-sensor-proxy.

The peer runs on a private system bus. iio-sensor-proxy 3.7 (Debian 13) asks
polkit (net.hadess.SensorProxy.claim-sensor) for every claim and refuses
without it: python-dbusmock's polkitd then runs on the peer's bus allowing that
action, and orientd's D-Bus side asks polkit too ([dbus] polkit = required,
against a fake polkit of its own; --orientd-polkit off: it never asks). 3.0
(Debian 12) asks nothing, and neither does orientd ([dbus] polkit = off).
`scripts/trixie/bench.sh` (`make bench-trixie`) runs this script on Debian 13.

What each key measures (all peer comparisons in this one run, as ratios):

- classifier_samples_per_s: Benchmarks' `orientd-bench` (best of 5; all 5 in
  details).
- fanout_p99_ms_1000 (and _1, _100 in details): `orientd-fanout` against the
  release orientd (no --mock, no umockdev, `[limits] clients = 1100`, the sensor
  pinned to a name that does not exist so that no accelerometer on the machine
  adds states): a controller toggles a constraint, each subscriber times its
  state line. The daemon is a black box, so "publish" is the controller's send:
  the key is send -> receipt (an upper bound); details also give receipt minus
  the first subscriber's receipt (a lower bound), and the daemon's on-CPU time
  per publish (what the fan-out costs it, apart from scheduling). Median of the
  repeats' p99 (3 repeats; 200 toggles at 1 and 100 subscribers, 50 at 1000).
  Receipt is the return of the reader's epoll_wait that reported the
  subscriber's socket readable (`--receipt ready`: edge-triggered, the sockets
  read only after the timed part, and a receipt counts only if its socket then
  held exactly the expected state line; details say how many did not, as
  `unverified`). That times every one of the 1,000 sockets without the reader's
  serial recv(2)s, which no subscriber process would pay, delaying the later
  ones. The same 1,000-subscriber run timed at recv(2)'s return instead
  (`--receipt read`, the reader's cost included) is in details as
  `clients_1000_receipt_at_read`.
- idle_wakeups_10s: voluntary + involuntary context switches of every orientd
  thread over 10 s, no client connected, the fake accelerometer present.
- watched_cpu_ratio_vs_peer: one orientd subscriber and one
  ClaimAccelerometer on the peer, the device still; on-CPU time of every thread
  (/proc/PID/task/*/schedstat, ns) over three 20 s windows, per minute,
  orientd / peer (over the 60 s; each window's ratio in details).
- step_latency_{median,p95}_ratio_vs_peer: 40 turns of 300 ms (raised cosine,
  raw x and y rewritten every 10 ms, each by renaming a new file over it) from
  normal to left-up and back, alternately, with a random 0.4-1.1 s rest between
  turns (a random phase against the peer's 700 ms poll timer); latency = end of
  the turn (after the last write) -> the client has the new orientation
  (orientd: a state line on the subscriber's socket; the peer: PropertiesChanged
  AccelerometerOrientation on the claimant's bus connection). A latency can be
  negative (seen before the turn ended). Both daemons watch the same turns of the
  same fake device at once. details give a bootstrap interval of the ratios.
- anon_kib_100_clients, _peer, anon_kib_100_clients_ratio_vs_peer (goal <= 1.0):
  RssAnon (/proc/PID/status: heap, stack, relocated data, the runtime's caches,
  what only swap could take back) of orientd with 100 subscribers and of the
  peer with its one claimant.
- rss_kib_100_clients: orientd's VmRSS with 100 subscribers (the peer's VmRSS,
  with its one claimant, in details). A figure, not a goal: it counts clean
  file pages the kernel takes back by itself when memory is short.
- dbus_light_proximity_cpu_ms_per_min, _peer, dbus_light_proximity_cpu_ratio_vs_peer
  (goal <= 1.0; `--only sensors`): orientd's D-Bus side and the peer, each on its
  own private system bus, on one testbed holding the accelerometer (DEVICE), a
  phone's stk3310 (LIGHT_PROXIMITY: in_illuminance_raw + scale, in_proximity_raw,
  udev PROXIMITY_NEAR_LEVEL) and a HID compass (COMPASS, its /dev node replaying
  COMPASS_SCRIPT); one client on each claims light and proximity (ClaimLight,
  ClaimProximity), the values do not change. On-CPU time of every thread
  (schedstat) per minute over three 20 s windows, both daemons at once; the keys
  are the windows' medians, the ratio is of those medians (each window's in
  details). details.dbus_sensors.light_proximity_cpu also gives each daemon's
  wakeups per second (voluntary + involuntary context switches of every thread)
  and light_proximity_polls what each reads, and how often, from strace after the
  windows (strace slows every syscall, so never during them).
- dbus_anon_kib_all_sensors, _peer, dbus_anon_kib_all_sensors_ratio_vs_peer (goal
  <= 1.0): RssAnon of each with that client claiming every sensor, at the moment
  the RSS below is read.
- dbus_rss_kib_all_sensors, _peer, dbus_rss_kib_all_sensors_ratio_vs_peer
  (figures): VmRSS of each with that client claiming every sensor (light,
  proximity, then the accelerometer and the compass), 3 s after the last claim;
  details.dbus_sensors.before_the_compass has both RSS before ClaimCompass, and
  all_sensors the split by mapping, the libraries mapped, the properties each
  daemon then reports and the compass problems orientd logged.
- dbus_pss_kib_all_sensors, _peer, _ratio_vs_peer and dbus_private_kib_all_sensors, _peer: at
  the same moment, each daemon's Pss and its private pages (Private_Clean +
  Private_Dirty) from /proc/PID/smaps_rollup: VmRSS counts a library page
  another process maps too as the daemon's own, Pss a share of it, and the
  private pages are what the machine gets back when the daemon goes. The
  peer's GLib is shared (here with the bench's own Python); orientd's static
  Swift runtime is not.
- broad_agreement_pct, broad_agreement_pct_peer: agreement with the optical
  labels of the BROAD recordings (traces/recorded/broad) wherever a label has
  held 1.5 s; orientd replays them with --mock (z as recorded; z negated in
  details), the peer in real time on fake devices, all ten at once (broad.py).
  The step-latency turns are a glance's floor away from the peer's: orientd
  holds a turn 320 ms from crossing the boundary (docs/classifier.md).
"""

import argparse
import json
import math
import os
import platform
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ORIENTD = Path(os.environ.get("ORIENTD", REPO / ".build" / "release" / "orientd"))
BENCH_BIN = Path(os.environ.get("BENCH_BIN_DIR", REPO / "Benchmarks" / ".build" / "release"))
CLASSIFIER_BENCH = BENCH_BIN / "orientd-bench"
FANOUT = BENCH_BIN / "orientd-fanout"
DEVICE = HERE / "accel_3d.umockdev"  # hid-sensor-hub accel_3d, polled, plus the peer's udev type
LIGHT_PROXIMITY = HERE / "stk3310.umockdev"  # a phone's stk3310: illuminance and proximity, polled
COMPASS = HERE / "magn_3d.umockdev"  # hid-sensor-hub magn_3d: the tilt-compensated heading, buffered only
COMPASS_SCRIPT = HERE / "magn_3d.script"  # what its /dev/iio:device4 gives: the same scan every second
PEER_CANDIDATES = ("/usr/libexec/iio-sensor-proxy", "/usr/sbin/iio-sensor-proxy")
RAW_G = 256  # accel_3d: 256 raw x 0.038307 = 9.807 m/s^2

KEYS = [
    ("classifier_samples_per_s", "≥ 2e7"),
    ("fanout_p99_ms_1000", "≤ 2"),
    ("idle_wakeups_10s", "0"),
    ("watched_cpu_ratio_vs_peer", "≤ 1.0"),
    ("step_latency_median_ratio_vs_peer", "≤ 1.0"),
    ("step_latency_p95_ratio_vs_peer", "≤ 0.6"),
    ("anon_kib_100_clients", "(figure)"),
    ("anon_kib_100_clients_peer", "(figure)"),
    ("anon_kib_100_clients_ratio_vs_peer", "≤ 1.0"),
    ("rss_kib_100_clients", "(figure)"),
    ("dbus_step_latency_median_ratio_vs_peer", "≤ 1.0"),
    ("dbus_step_latency_p95_ratio_vs_peer", "≤ 0.6"),
    ("dbus_watched_cpu_ratio_vs_peer", "≤ 1.0"),
    ("dbus_rss_kib_10_claimers", "(figure)"),
    ("dbus_light_proximity_cpu_ms_per_min", "(figure)"),
    ("dbus_light_proximity_cpu_ms_per_min_peer", "(figure)"),
    ("dbus_light_proximity_cpu_ratio_vs_peer", "≤ 1.0"),
    ("dbus_anon_kib_all_sensors", "(figure)"),
    ("dbus_anon_kib_all_sensors_peer", "(figure)"),
    ("dbus_anon_kib_all_sensors_ratio_vs_peer", "≤ 1.0"),
    ("dbus_pss_kib_all_sensors_ratio_vs_peer", "(figure)"),
    ("dbus_rss_kib_all_sensors", "(figure)"),
    ("dbus_rss_kib_all_sensors_peer", "(figure)"),
    ("dbus_rss_kib_all_sensors_ratio_vs_peer", "(figure)"),
    ("dbus_pss_kib_all_sensors", "(figure)"),
    ("dbus_pss_kib_all_sensors_peer", "(figure)"),
    ("dbus_private_kib_all_sensors", "(figure)"),
    ("dbus_private_kib_all_sensors_peer", "(figure)"),
    ("broad_agreement_pct", "≥ 98.5"),
    ("broad_agreement_pct_peer", "(figure)"),
]


def log(message):
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def percentile(values, p):
    """Nearest-rank percentile (p in 0..1) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def spread(values, digits=3):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"n": len(values), "min": round(min(values), digits), "median": round(statistics.median(values), digits),
            "max": round(max(values), digits)}


def bootstrap_ratios(ours, theirs, rounds=2000):
    """5th-95th percentile of the median and p95 ratios over resampled turns:
    how much the ratios move with the peer's random poll phase."""
    rng = random.Random(11)
    medians, p95s = [], []
    for _ in range(rounds):
        a = [rng.choice(ours) for _ in ours]
        b = [rng.choice(theirs) for _ in theirs]
        if statistics.median(b) > 0:
            medians.append(statistics.median(a) / statistics.median(b))
        if percentile(b, 0.95) > 0:
            p95s.append(percentile(a, 0.95) / percentile(b, 0.95))
    interval = lambda v: [round(percentile(v, 0.05), 3), round(percentile(v, 0.95), 3)] if v else None
    return {"median": interval(medians), "p95": interval(p95s)}


def clean_env(**extra):
    """The environment without umockdev's preload (for what must see the real system)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")}
    env["LC_ALL"] = "C.UTF-8"
    env.pop("ORIENTD_SOCKET", None)
    env.update(extra)
    return env


def wait_until(condition, timeout, what, interval=0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


# MARK: /proc


def stop_process(process):
    """SIGTERM, then SIGKILL after 5 s; waits for the process either way."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def context_switches(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"])
    return total


def cpu_ns(pid):
    """On-CPU ns of every live thread (schedstat), and utime+stime ticks (stat,
    which also counts threads that ended)."""
    ns = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return ns, ticks


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def rollup_kib(pid):
    """Pss and private KiB (Private_Clean + Private_Dirty) from /proc/PID/smaps_rollup."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    return fields.get("Pss"), fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)


def swift_stdlib(pid):
    """"shared" when the process maps libswiftCore.so, else "static"."""
    with open(f"/proc/{pid}/maps") as f:
        return "shared" if "libswiftCore.so" in f.read() else "static"


def rss_by_mapping(pid, top=40, field="Rss"):
    """Where the resident pages are: `field` (KiB: Rss, or Anonymous for the
    pages only swap could take back) summed per mapped file ([heap], [stack],
    anonymous mappings as "[anon]"), the largest `top` and the rest."""
    totals = {}
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):
                name = os.path.basename(fields[5]) if len(fields) > 5 and fields[5].startswith("/") \
                    else (fields[5] if len(fields) > 5 else "[anon]")
            elif fields[0] == field + ":" and int(fields[1]):
                totals[name] = totals.get(name, 0) + int(fields[1])
    ordered = sorted(totals.items(), key=lambda item: -item[1])
    result = dict(ordered[:top])
    rest = sum(kib for _, kib in ordered[top:])
    if rest:
        result["(the rest)"] = rest
    return result


def memory_breakdown(pid, who):
    """`who`'s RssAnon/RssFile/RssShmem and its RSS per mapping, as details keys."""
    return {f"{who}_rss_anon_file_shmem_kib": [status_kib(pid, f) for f in ("RssAnon", "RssFile", "RssShmem")],
            f"{who}_rss_kib_by_mapping": rss_by_mapping(pid),
            f"{who}_anon_kib_by_mapping": rss_by_mapping(pid, field="Anonymous")}


def linked_swift_modules(binary):
    """Which of the Swift modules docs/architecture.md (Memory) keeps out of
    orientd are in `binary` anyway: their mangled names, or the shared
    library's name, appear in it."""
    data = Path(binary).read_bytes()
    markers = {"_StringProcessing": (b"17_StringProcessing", b"libswift_StringProcessing"),
               "_RegexParser": (b"12_RegexParser", b"libswift_RegexParser"),
               "_Concurrency": (b"swift_task_enqueueGlobal", b"libswift_Concurrency")}
    return sorted(name for name, needles in markers.items() if any(n in data for n in needles))


def mapped_libraries(pid):
    """The shared objects mapped into the process (basenames, sorted)."""
    with open(f"/proc/{pid}/maps") as f:
        paths = {line.split()[5] for line in f if len(line.split()) > 5 and ".so" in line.split()[5]}
    return sorted(os.path.basename(p) for p in paths)


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


# MARK: orientd and its clients


class Orientd:
    def __init__(self, workdir, env, config_text, name):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.socket = str(self.workdir / "s.sock")
        (self.workdir / "state").mkdir(exist_ok=True)
        config = self.workdir / "orientd.conf"
        config.write_text(config_text)
        self.log_path = self.workdir / "orientd.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(ORIENTD), "--socket", self.socket, "--state-dir", str(self.workdir / "state"), "--config", str(config)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, env=env)
        self.pid = self.process.pid
        self.name = name
        wait_until(self._listening, 10, f"{name} to listen")

    def _listening(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {self.log_text()[-2000:]}")
        if not os.path.exists(self.socket):
            return False
        # The path exists from bind(2) on, but connections are refused until listen(2).
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(self.socket)
            return True
        except (ConnectionRefusedError, FileNotFoundError):
            return False
        finally:
            probe.close()

    def log_text(self):
        return self.log_path.read_text(errors="replace")

    def stop(self):
        stop_process(self.process)
        self._log.close()


class Client:
    """A blocking protocol client (setup only; the timed reading is done by
    StateWatcher's own thread)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buffer = b""
        hello = self.line()
        if hello.get("type") != "hello":
            raise RuntimeError(f"orientd refused a client: {hello}")

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("orientd closed the connection")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def request(self, op, **fields):
        self.sock.sendall(json.dumps({"op": op, "seq": 1, **fields}).encode() + b"\n")
        while True:
            message = self.line()
            if message.get("seq") == 1:
                return message

    def close(self):
        self.sock.close()


class StateWatcher(threading.Thread):
    """One subscriber that records (monotonic time of receipt, orientation) for
    every state line, timed right after recv() returns."""

    def __init__(self, client):
        super().__init__(daemon=True)
        self.client = client
        reply = client.request("subscribe")
        self.current = reply["orientation"]
        self.events = []
        self.client.sock.settimeout(None)
        self.stopped = False

    def run(self):
        buffer = self.client.buffer
        while not self.stopped:
            try:
                chunk = self.client.sock.recv(65536)
            except OSError:
                return
            at = time.monotonic()
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                message = json.loads(line)
                if message.get("type") == "state":
                    self.current = message["orientation"]
                    self.events.append((at, message["orientation"]))

    def stop(self):
        self.stopped = True
        try:
            self.client.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.client.close()


# MARK: The peer


DBUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"""


class PrivateBus:
    """A private D-Bus *system* bus (dbus-daemon with a permissive policy)."""

    def __init__(self, workdir):
        binary = shutil.which("dbus-daemon") or "/usr/bin/dbus-daemon"
        if not os.access(binary, os.X_OK):
            raise RuntimeError("dbus-daemon is not installed (Debian: apt-get install dbus-daemon)")
        config = Path(workdir) / "bus.conf"
        config.write_text(DBUS_CONFIG.format(socket=Path(workdir) / "bus.sock"))
        self.process = subprocess.Popen([binary, "--config-file", str(config), "--nofork", "--print-address"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=clean_env())
        self.address = self.process.stdout.readline().decode().strip()
        if not self.address:
            raise RuntimeError("dbus-daemon printed no address")

    def stop(self):
        self.process.terminate()
        self.process.wait()


def fake_device(devices=(DEVICE,), scripts=None):
    """A new umockdev testbed holding the bench's fake accelerometer (DEVICE),
    or the given device files, and `scripts` ({device node: script file}):
    (testbed, the first device's /sys path, the environment of a daemon reading it)."""
    import gi
    gi.require_version("UMockdev", "1.0")
    from gi.repository import UMockdev
    testbed = UMockdev.Testbed.new()
    texts = [Path(device).read_text() for device in devices]
    for text in texts:
        testbed.add_from_string(text)
    for node, script in (scripts or {}).items():
        testbed.load_script(node, str(script))
    env = dict(os.environ, UMOCKDEV_DIR=testbed.get_root_dir(), LC_ALL="C.UTF-8")
    env.pop("ORIENTD_SOCKET", None)
    return testbed, "/sys" + texts[0].split("\n", 1)[0][3:], env


class SensorClaimant:
    """One D-Bus client of net.hadess.SensorProxy that claims sensors and reads
    their properties (no signal handling: nothing in the bench waits for one)."""

    COMPASS_PATH = "/net/hadess/SensorProxy/Compass"
    COMPASS_INTERFACE = "net.hadess.SensorProxy.Compass"

    def __init__(self, address, what):
        from gi.repository import Gio
        self.what = what
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        self.connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)

    def _call(self, path, interface, method, parameters=None):
        from gi.repository import Gio
        return self.connection.call_sync("net.hadess.SensorProxy", path, interface, method, parameters, None,
                                         Gio.DBusCallFlags.NONE, 5000, None)

    def claim(self, sensor):
        """ClaimLight, ClaimProximity, ClaimAccelerometer or ClaimCompass (`sensor`:
        Light, Proximity, Accelerometer, Compass); RuntimeError naming the daemon."""
        compass = sensor == "Compass"
        try:
            self._call(self.COMPASS_PATH if compass else "/net/hadess/SensorProxy",
                       self.COMPASS_INTERFACE if compass else "net.hadess.SensorProxy", f"Claim{sensor}")
        except Exception as error:
            raise RuntimeError(f"Claim{sensor} on {self.what} failed: {error}") from None

    def properties(self):
        """Every property of both interfaces, as one dict."""
        from gi.repository import GLib
        values = {}
        for path, interface in (("/net/hadess/SensorProxy", "net.hadess.SensorProxy"),
                                (self.COMPASS_PATH, self.COMPASS_INTERFACE)):
            reply = self._call(path, "org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", (interface,)))
            values.update(reply.unpack()[0])
        return values

    def close(self):
        self.connection.close_sync(None)


def strace_polls(pids, seconds, attributes):
    """When each process (`pids`: {who: pid}) touched each of `attributes`
    (sysfs file names) over `seconds`, from `strace -f -ttt -y` attached to
    them all at once: the syscalls (openat, read, pread64) naming the file,
    grouped into polls (those within 50 ms of the previous are one poll).
    {who: {attribute: {"polls", "interval_ms" (median), "syscalls"}}}, or None
    without strace. Run apart from the CPU windows: ptrace slows every syscall."""
    binary = shutil.which("strace")
    if binary is None:
        return None
    runs = {}
    for who, pid in pids.items():
        out = tempfile.NamedTemporaryFile(prefix=f"strace-{who}-", suffix=".txt", delete=False)
        out.close()
        process = subprocess.Popen([binary, "-f", "-ttt", "-y", "-e", "trace=openat,read,pread64", "-o", out.name,
                                    "-p", str(pid)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=clean_env())
        runs[who] = (process, out.name)
    time.sleep(seconds)
    result = {}
    for who, (process, path) in runs.items():
        process.terminate()  # strace detaches on SIGTERM
        process.wait()
        lines = Path(path).read_text(errors="replace").splitlines()
        os.unlink(path)
        per = {}
        for attribute in attributes:
            times, syscalls = [], 0
            for line in lines:
                fields = line.split(None, 2)  # [tid] time syscall(...)
                if len(fields) < 3 or f"/{attribute}" not in fields[2]:
                    continue
                syscalls += 1
                at = float(fields[1])
                if not times or at - times[-1][-1] > 0.05:
                    times.append([at])
                else:
                    times[-1].append(at)
            starts = [group[0] for group in times]
            gaps = [(b - a) * 1000 for a, b in zip(starts, starts[1:])]
            per[attribute] = {"polls": len(starts), "syscalls": syscalls,
                              "syscalls_per_poll": round(syscalls / len(starts), 2) if starts else None,
                              "interval_ms": round(statistics.median(gaps), 1) if gaps else None}
        result[who] = per
    return result


class PeerWatcher(threading.Thread):
    """A claimant of iio-sensor-proxy's accelerometer on its own GLib main
    context and thread: records (monotonic time, orientation) for every
    PropertiesChanged carrying AccelerometerOrientation."""

    def __init__(self, address):
        super().__init__(daemon=True)
        self.address = address
        self.events = []
        self.current = None
        self.ready = threading.Event()
        self.error = None
        self.loop = None

    def run(self):
        from gi.repository import Gio, GLib
        context = GLib.MainContext.new()
        context.push_thread_default()
        try:
            flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
            self.connection = Gio.DBusConnection.new_for_address_sync(self.address, flags, None, None)

            def changed(_connection, _sender, _path, _interface, _signal, parameters):
                at = time.monotonic()
                _, properties, _ = parameters.unpack()
                if "AccelerometerOrientation" in properties:
                    self.current = properties["AccelerometerOrientation"]
                    self.events.append((at, self.current))

            self.connection.signal_subscribe("net.hadess.SensorProxy", "org.freedesktop.DBus.Properties",
                                             "PropertiesChanged", "/net/hadess/SensorProxy", None,
                                             Gio.DBusSignalFlags.NONE, changed)
            self.connection.call_sync("net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy",
                                      "ClaimAccelerometer", None, None, Gio.DBusCallFlags.NONE, 5000, None)
            reply = self.connection.call_sync(
                "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "org.freedesktop.DBus.Properties", "Get",
                GLib.Variant("(ss)", ("net.hadess.SensorProxy", "AccelerometerOrientation")), None,
                Gio.DBusCallFlags.NONE, 5000, None)
            if self.current is None:
                self.current = reply.unpack()[0]
            self.loop = GLib.MainLoop.new(context, False)
        except Exception as error:  # reported by the main thread
            self.error = error
            self.ready.set()
            return
        self.ready.set()
        self.loop.run()

    def stop(self):
        if self.loop is not None:
            self.loop.quit()

    @classmethod
    def claim(cls, address, what="the daemon", timeout=10):
        """A started watcher whose ClaimAccelerometer on `address` was answered
        (RuntimeError naming `what` when the claim failed)."""
        watcher = cls(address)
        watcher.start()
        watcher.ready.wait(timeout)
        if watcher.error is not None:
            raise RuntimeError(f"ClaimAccelerometer on {what} failed: {watcher.error}")
        return watcher


CLAIM_ACTION = "net.hadess.SensorProxy.claim-sensor"


def asks_polkit(binary):
    """Whether this iio-sensor-proxy authorises claims with polkit: 3.7
    (Debian 13) asks polkit for every claim (action CLAIM_ACTION; no polkit on
    the bus refuses), 3.0 (Debian 12) asks nothing."""
    return b"polkit_authority_check_authorization" in Path(binary).read_bytes()


class MockPolkit:
    """python-dbusmock's polkitd template on a private bus (the tests' fake
    polkit, Tests/dbus), allowing CLAIM_ACTION and nothing else: what a seat
    user's claim gets from Debian's polkit (allow_active)."""

    def __init__(self, address):
        from gi.repository import Gio, GLib
        self._log = tempfile.TemporaryFile()  # stderr, for the error below; never a pipe left unread
        self.process = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--template", "polkitd", "--system"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
                                        env=clean_env(DBUS_SYSTEM_BUS_ADDRESS=address))
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)

        def owned():
            if self.process.poll() is not None:
                self._log.seek(0)
                raise RuntimeError(f"python-dbusmock's polkitd exited with {self.process.returncode} (Debian: "
                                   f"apt-get install python3-dbusmock): {self._log.read().decode(errors='replace')[-500:]}")
            reply = connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "NameHasOwner", GLib.Variant("(s)", ("org.freedesktop.PolicyKit1",)), None,
                                         Gio.DBusCallFlags.NONE, 2000, None)
            return reply.unpack()[0]

        try:
            wait_until(owned, 15, "python-dbusmock's polkitd to own org.freedesktop.PolicyKit1")
            connection.call_sync("org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority",
                                 "org.freedesktop.DBus.Mock", "SetAllowed", GLib.Variant("(as)", ([CLAIM_ACTION],)),
                                 None, Gio.DBusCallFlags.NONE, 5000, None)
        except Exception:
            self.stop()
            raise
        finally:
            connection.close_sync(None)

    def stop(self):
        stop_process(self.process)
        self._log.close()


class Peer:
    def __init__(self, binary, env, bus_address, workdir):
        self.log_path = Path(workdir) / "iio-sensor-proxy.log"
        self.polkit = self.process = self._log = None
        try:
            self._start(binary, env, bus_address)
        except Exception:
            self.stop()
            raise

    def _start(self, binary, env, bus_address):
        # 3.7 refuses every claim without polkit's yes: a fake polkit on its bus gives it.
        self.polkit = MockPolkit(bus_address) if asks_polkit(binary) else None
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen([binary], stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log,
                                        env=dict(env, DBUS_SYSTEM_BUS_ADDRESS=bus_address))
        self.pid = self.process.pid
        from gi.repository import Gio, GLib
        flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
        connection = Gio.DBusConnection.new_for_address_sync(bus_address, flags, None, None)

        def owned():
            if self.process.poll() is not None:
                raise RuntimeError(f"iio-sensor-proxy exited with {self.process.returncode}: "
                                   f"{self.log_path.read_text(errors='replace')[-2000:]}")
            reply = connection.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "NameHasOwner", GLib.Variant("(s)", ("net.hadess.SensorProxy",)), None,
                                         Gio.DBusCallFlags.NONE, 2000, None)
            return reply.unpack()[0]

        wait_until(owned, 10, "iio-sensor-proxy to own net.hadess.SensorProxy")
        reply = connection.call_sync("net.hadess.SensorProxy", "/net/hadess/SensorProxy",
                                     "org.freedesktop.DBus.Properties", "Get",
                                     GLib.Variant("(ss)", ("net.hadess.SensorProxy", "HasAccelerometer")), None,
                                     Gio.DBusCallFlags.NONE, 2000, None)
        if not reply.unpack()[0]:
            raise RuntimeError("iio-sensor-proxy runs but reports HasAccelerometer = false")
        connection.close_sync(None)

    def stop(self):
        if self.process is not None:
            stop_process(self.process)
        if self._log is not None:
            self._log.close()
        if self.polkit is not None:
            self.polkit.stop()


def find_peer():
    if "BENCH_PEER" in os.environ:  # another build of the peer (or a missing one, to test the null path)
        return os.environ["BENCH_PEER"] if os.access(os.environ["BENCH_PEER"], os.X_OK) else None
    for candidate in (shutil.which("iio-sensor-proxy"), *PEER_CANDIDATES):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def peer_version():
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "iio-sensor-proxy"], capture_output=True,
                             text=True, env=clean_env()).stdout.strip()
        return out or None
    except OSError:
        return None


# MARK: The benchmark


class Bench:
    def __init__(self, args):
        self.args = args
        self.results = {key: None for key, _ in KEYS}
        self.reasons = {}
        self.details = {}
        self.workdir = Path(tempfile.mkdtemp(prefix="orientd-bench-"))

    def fail(self, keys, reason):
        for key in keys:
            if self.results.get(key) is None:
                self.reasons[key] = reason
        log(f"{', '.join(keys)}: {reason}")

    # classifier_samples_per_s

    def classifier(self):
        if not os.access(CLASSIFIER_BENCH, os.X_OK):
            return self.fail(["classifier_samples_per_s"],
                             f"{CLASSIFIER_BENCH} missing: cd Benchmarks && swift build -c release")
        out = self.workdir / "classifier.json"
        run = subprocess.run([str(CLASSIFIER_BENCH)], env=clean_env(BENCH_OUT=str(out)), capture_output=True,
                             text=True, timeout=600)
        if run.returncode != 0 or not out.exists():
            return self.fail(["classifier_samples_per_s"], f"orientd-bench failed: {run.stderr.strip()[-500:]}")
        data = json.loads(out.read_text())
        self.results["classifier_samples_per_s"] = data["classifier_samples_per_s"]
        self.details["classifier"] = {"best_of": len(data.get("runs_samples_per_s", [])),
                                      "runs_samples_per_s": spread(data.get("runs_samples_per_s", []), 0),
                                      "line": run.stdout.strip()}

    # fanout_p99_ms_*

    def fanout(self):
        if not os.access(FANOUT, os.X_OK):
            return self.fail(["fanout_p99_ms_1000"], f"{FANOUT} missing: cd Benchmarks && swift build -c release")
        daemon = Orientd(self.workdir / "fanout", clean_env(),
                         "[orientation]\nnatural = portrait\n[sensor]\ndevice = orientd-bench-no-such-sensor\n"
                         "[limits]\nclients = 1100\n", "orientd (fan-out)")
        details = {"daemon": "release orientd, no --mock, no umockdev, [limits] clients = 1100, sensor absent",
                   "reader_threads": self.args.reader_threads,
                   "receipt": "the return of the reader's epoll_wait that reported the subscriber's socket readable "
                              "(edge-triggered; verified afterwards: the socket held exactly that state line)",
                   "publish": "controller's send of the constrain request (upper bound); from_first: from the "
                              "first subscriber's receipt of the same state (lower bound)"}
        try:
            for clients, toggles in ((1, self.args.toggles_small), (100, self.args.toggles_small),
                                     (1000, self.args.toggles_large)):
                runs = self.fanout_runs(daemon, clients, toggles, "ready")
                p99s = [r["from_send_ms"]["p99"] for r in runs]
                details[f"clients_{clients}"] = {
                    "toggles_per_repeat": toggles,
                    "repeats": len(runs),
                    "missing": sum(r["missing"] for r in runs),
                    "unverified": sum(r["unverified"] for r in runs),
                    "p99_from_send_ms": spread(p99s),
                    "p50_from_send_ms": spread([r["from_send_ms"]["p50"] for r in runs]),
                    "p99_from_first_ms": spread([r["from_first_ms"]["p99"] for r in runs]),
                    "last_receipt_p50_ms": spread([r["last_receipt_ms"]["p50"] for r in runs]),
                    "max_from_send_ms": spread([r["from_send_ms"]["max"] for r in runs]),
                    "daemon_cpu_ms_per_publish": spread([r["daemon_cpu_ms_per_toggle"] for r in runs]),
                    "reader_floor_ms": spread([r["reader_floor_ms"]["p50"] for r in runs]),
                }
                details[f"fanout_p99_ms_{clients}"] = round(statistics.median(p99s), 3)
                log(f"fan-out {clients}: p99 {statistics.median(p99s):.3f} ms (repeats: {p99s})")
            self.results["fanout_p99_ms_1000"] = details["fanout_p99_ms_1000"]
            runs = self.fanout_runs(daemon, 1000, self.args.toggles_large, "read")
            details["clients_1000_receipt_at_read"] = {
                "receipt": "recv(2) returned the line, one socket after the other (the reader's cost included)",
                "p99_from_send_ms": spread([r["from_send_ms"]["p99"] for r in runs]),
                "p50_from_send_ms": spread([r["from_send_ms"]["p50"] for r in runs]),
                "last_receipt_p50_ms": spread([r["last_receipt_ms"]["p50"] for r in runs]),
                "daemon_cpu_ms_per_publish": spread([r["daemon_cpu_ms_per_toggle"] for r in runs]),
                "reader_floor_ms": spread([r["reader_floor_ms"]["p50"] for r in runs]),
            }
            log(f"fan-out 1000, timed at recv: p99 {details['clients_1000_receipt_at_read']['p99_from_send_ms']}")
        except Exception as error:
            self.fail(["fanout_p99_ms_1000"], str(error))
        finally:
            daemon.stop()
            details["daemon_log_tail"] = daemon.log_text().splitlines()[-5:]
            self.details["fanout"] = details

    def fanout_runs(self, daemon, clients, toggles, receipt):
        runs = []
        for _ in range(self.args.repeats):
            run = subprocess.run([str(FANOUT), "--socket", daemon.socket, "--clients", str(clients),
                                  "--toggles", str(toggles), "--pid", str(daemon.pid),
                                  "--threads", str(self.args.reader_threads), "--receipt", receipt],
                                 capture_output=True, text=True, env=clean_env(), timeout=300)
            if run.returncode != 0:
                raise RuntimeError(f"orientd-fanout --clients {clients} --receipt {receipt}: {run.stderr.strip()}")
            runs.append(json.loads(run.stdout))
        return runs

    # Everything on the fake accelerometer

    def broad(self):
        import broad
        try:
            ours = broad.orientd_agreement(ORIENTD)
            self.results["broad_agreement_pct"] = ours["recorded"]
            self.details["broad"] = {"orientd": ours, "hold_ms": broad.HOLD_MS}
            log(f"BROAD agreement: orientd {ours['recorded']} % (z negated {ours['negated']} %)")
        except Exception as error:
            self.fail(["broad_agreement_pct"], f"{type(error).__name__}: {error}")
        if self.args.quick:
            return self.fail(["broad_agreement_pct_peer"], "not measured (--quick: the replays take 3.5 minutes)")
        if find_peer() is None:
            return self.fail(["broad_agreement_pct_peer"],
                             "iio-sensor-proxy is not installed (Debian: apt-get install iio-sensor-proxy)")
        try:
            theirs = broad.peer_agreement()
            self.results["broad_agreement_pct_peer"] = theirs["recorded"]
            self.details.setdefault("broad", {})["peer"] = theirs
            log(f"BROAD agreement: peer {theirs['recorded']} %")
        except Exception as error:
            self.fail(["broad_agreement_pct_peer"], f"{type(error).__name__}: {error}")

    def umockdev(self):
        umockdev_keys = ["idle_wakeups_10s", "watched_cpu_ratio_vs_peer", "step_latency_median_ratio_vs_peer",
                         "step_latency_p95_ratio_vs_peer", "rss_kib_100_clients"]
        peer_keys = ["watched_cpu_ratio_vs_peer", "step_latency_median_ratio_vs_peer",
                     "step_latency_p95_ratio_vs_peer"]
        try:
            import gi
            gi.require_version("UMockdev", "1.0")
            from gi.repository import UMockdev  # noqa: F401
        except (ImportError, ValueError) as error:
            return self.fail(umockdev_keys, f"no umockdev Python bindings ({error}): apt-get install umockdev "
                                            "gir1.2-umockdev-1.0 python3-gi, run with /usr/bin/python3")
        testbed, syspath, env = fake_device()
        self.details["device"] = f"{DEVICE.name} (hid-sensor-hub accel_3d, polled, IIO_SENSOR_PROXY_TYPE=iio-poll-accel)"

        bus = peer = daemon = watcher = peer_watcher = None
        extra_clients = []
        try:
            daemon = Orientd(self.workdir / "umockdev", env,
                             "[orientation]\nnatural = portrait\n" + self.args.orientd_config, "orientd")
            probe = Client(daemon.socket)
            sensor = probe.request("get")["sensor"]
            probe.close()
            if sensor not in ("idle", "active"):
                raise RuntimeError(f"orientd does not see the fake accelerometer (sensor {sensor!r}): "
                                   f"{daemon.log_text()[-1500:]}")

            # The peer, on a private system bus, on the same testbed.
            binary = find_peer()
            if binary is None:
                self.fail(peer_keys, "iio-sensor-proxy is not installed (Debian: apt-get install iio-sensor-proxy)")
            else:
                try:
                    bus = PrivateBus(self.workdir)
                    peer = Peer(binary, env, bus.address, self.workdir)
                    self.details["peer"] = {"binary": binary, "version": peer_version(),
                                            "bus": "private dbus-daemon, permissive policy, DBUS_SYSTEM_BUS_ADDRESS"}
                except Exception as error:
                    self.fail(peer_keys, f"iio-sensor-proxy could not be run under umockdev: {error}")
                    if peer is not None:
                        peer.stop()
                    peer = None

            if not self.args.memory_only:
                self.idle(daemon, peer)

            # One subscriber, one claimant: watched, still.
            watcher = StateWatcher(Client(daemon.socket))
            watcher.start()
            wait_until(lambda: watcher.current == "normal", 5, "orientd to publish normal")
            if peer is not None:
                peer_watcher = PeerWatcher(bus.address)
                peer_watcher.start()
                peer_watcher.ready.wait(10)
                if peer_watcher.error is not None:
                    self.fail(peer_keys, f"ClaimAccelerometer failed: {peer_watcher.error}")
                    peer_watcher = None
                else:
                    wait_until(lambda: peer_watcher.current == "normal", 5, "iio-sensor-proxy to report normal")
            if not self.args.memory_only:
                self.watched_cpu(daemon, peer if peer_watcher else None)
                self.step_latency(testbed, syspath, watcher, peer_watcher)

            # 100 subscribers.
            for _ in range(99):
                client = Client(daemon.socket)
                client.request("subscribe")
                extra_clients.append(client)
            time.sleep(1.0)
            rss = status_kib(daemon.pid, "VmRSS")
            self.results["rss_kib_100_clients"] = rss
            self.results["anon_kib_100_clients"] = status_kib(daemon.pid, "RssAnon")
            memory = {"orientd_vmrss_kib_100_subscribers": rss, "orientd_vmhwm_kib": status_kib(daemon.pid, "VmHWM"),
                      **memory_breakdown(daemon.pid, "orientd"),
                      "orientd_threads": threads(daemon.pid), "orientd_swift_stdlib": swift_stdlib(daemon.pid),
                      "orientd_libraries": mapped_libraries(daemon.pid),
                      "orientd_links_swift_modules_kept_out": linked_swift_modules(ORIENTD),
                      "note": "VmRSS counts the file-backed pages of the binary and its libraries that are mapped, "
                              "which also depends on what the page cache holds (fault-around): see RssFile"}
            if peer is not None and peer.process.poll() is None:
                memory["peer_vmrss_kib_1_claimant"] = status_kib(peer.pid, "VmRSS")
                peer_anon = status_kib(peer.pid, "RssAnon")
                self.results["anon_kib_100_clients_peer"] = peer_anon
                self.results["anon_kib_100_clients_ratio_vs_peer"] = round(self.results["anon_kib_100_clients"] / peer_anon, 3)
                memory["peer_vmhwm_kib"] = status_kib(peer.pid, "VmHWM")
                memory.update(memory_breakdown(peer.pid, "peer"))
                memory["peer_threads"] = threads(peer.pid)
            self.details["memory"] = memory
            log(f"RSS: orientd {rss} KiB with 100 subscribers; peer {memory.get('peer_vmrss_kib_1_claimant')} KiB")
        except Exception as error:
            self.fail(umockdev_keys, f"{type(error).__name__}: {error}")
        finally:
            for client in extra_clients:
                client.close()
            if watcher is not None:
                watcher.stop()
            if peer_watcher is not None:
                peer_watcher.stop()
            if daemon is not None:
                daemon.stop()
                self.details["orientd_log_tail"] = daemon.log_text().splitlines()[-5:]
            if peer is not None:
                peer.stop()
            if bus is not None:
                bus.stop()
            del testbed

    def dbus(self):
        """orientd's D-Bus side against iio-sensor-proxy through the same door:
        each on its own private system bus, both reading the same fake device,
        each watched by the same client (PeerWatcher: ClaimAccelerometer, then
        PropertiesChanged)."""
        keys = ["dbus_step_latency_median_ratio_vs_peer", "dbus_step_latency_p95_ratio_vs_peer",
                "dbus_watched_cpu_ratio_vs_peer", "dbus_rss_kib_10_claimers"]
        binary = find_peer()
        if binary is None:
            return self.fail(keys, "iio-sensor-proxy is not installed (Debian: apt-get install iio-sensor-proxy)")
        testbed, syspath, env = fake_device()
        buses, watchers, polkits = [], [], []
        daemon = peer = None
        try:
            for name in ("bus-orientd", "bus-peer"):
                (self.workdir / name).mkdir(parents=True, exist_ok=True)
                buses.append(PrivateBus(self.workdir / name))
            ours, theirs = buses
            polkit, polkit_note = self.orientd_polkit(binary, ours.address, polkits)
            daemon = Orientd(self.workdir / "dbus", dict(env, DBUS_SYSTEM_BUS_ADDRESS=ours.address),
                             f"[orientation]\nnatural = portrait\n[dbus]\nenable = true\npolkit = {polkit}\n",
                             "orientd (D-Bus)")
            wait_until(lambda: "serving net.hadess.SensorProxy" in daemon.log_text(), 10, "orientd to own the name")
            peer = Peer(binary, env, theirs.address, self.workdir)
            self.details["dbus"] = {"peer": binary, "peer_version": peer_version(), "bus": "one private dbus-daemon "
                                    "each, permissive policy", "polkit": polkit_note}

            def claimant(address, what):
                watchers.append(PeerWatcher.claim(address, what))
                return watchers[-1]

            watcher, peer_watcher = claimant(ours.address, "orientd"), claimant(theirs.address, "the peer")
            wait_until(lambda: watcher.current == "normal" and peer_watcher.current == "normal", 5,
                       "both to report normal over D-Bus")
            if not self.args.memory_only:
                self.watched_cpu(daemon, peer, prefix="dbus_")
                self.step_latency(testbed, syspath, watcher, peer_watcher, prefix="dbus_")
            for _ in range(9):
                claimant(ours.address, "orientd")
                claimant(theirs.address, "the peer")
            time.sleep(1.0)
            rss, peer_rss = status_kib(daemon.pid, "VmRSS"), status_kib(peer.pid, "VmRSS")
            self.results["dbus_rss_kib_10_claimers"] = rss
            self.details["dbus"]["memory"] = {
                "orientd_vmrss_kib_10_claimers": rss, "peer_vmrss_kib_10_claimers": peer_rss,
                "ratio_vs_peer": round(rss / peer_rss, 3) if peer_rss else None,
                **memory_breakdown(daemon.pid, "orientd"), **memory_breakdown(peer.pid, "peer")}
            log(f"D-Bus RSS with 10 claimers: orientd {rss} KiB, peer {peer_rss} KiB")
        except Exception as error:
            self.fail(keys, f"{type(error).__name__}: {error}")
        finally:
            for watcher in watchers:
                watcher.stop()
            if daemon is not None:
                daemon.stop()
            if peer is not None:
                peer.stop()
            for polkit in polkits:
                polkit.stop()
            for bus in buses:
                bus.stop()
            del testbed

    def orientd_polkit(self, binary, address, polkits):
        """orientd's [dbus] polkit against the peer `binary`: asking polkit for
        every claim when the peer does (iio-sensor-proxy 3.7), against a fake
        polkit on orientd's bus (appended to `polkits`, stopped by the caller)
        giving the same answer as the peer's; never when the peer does not
        (3.0), or with --orientd-polkit off. (the setting, a note for details)"""
        if not asks_polkit(binary):
            return "off", "neither asks polkit: the peer has no polkit check, orientd [dbus] polkit = off"
        if self.args.orientd_polkit == "off":
            return "off", (f"the peer asks polkit ({CLAIM_ACTION}, python-dbusmock's polkitd on its bus allowing it); "
                           "orientd [dbus] polkit = off (--orientd-polkit off): orientd asks nothing")
        polkits.append(MockPolkit(address))
        return "required", (f"both ask polkit for every claim ({CLAIM_ACTION}), each against python-dbusmock's "
                            "polkitd on its own bus allowing it; orientd [dbus] polkit = required")

    def sensors(self):
        """Light, proximity and compass on the D-Bus side against the peer:
        both on their own private system bus, reading the same fake devices
        (DEVICE, LIGHT_PROXIMITY, COMPASS with COMPASS_SCRIPT), one client on
        each. First ClaimLight + ClaimProximity, the devices at rest: CPU and
        context switches of both over the CPU windows, then what each polls
        (strace, apart from the windows). Then ClaimAccelerometer and
        ClaimCompass too: RSS with every sensor claimed."""
        cpu_keys = ["dbus_light_proximity_cpu_ms_per_min", "dbus_light_proximity_cpu_ms_per_min_peer",
                    "dbus_light_proximity_cpu_ratio_vs_peer"]
        rss_keys = ["dbus_rss_kib_all_sensors", "dbus_rss_kib_all_sensors_peer", "dbus_rss_kib_all_sensors_ratio_vs_peer",
                    "dbus_pss_kib_all_sensors", "dbus_pss_kib_all_sensors_peer", "dbus_private_kib_all_sensors",
                    "dbus_private_kib_all_sensors_peer"]
        binary = find_peer()
        if binary is None:
            return self.fail(cpu_keys + rss_keys,
                             "iio-sensor-proxy is not installed (Debian: apt-get install iio-sensor-proxy)")
        testbed, _, env = fake_device((DEVICE, LIGHT_PROXIMITY, COMPASS), {"/dev/iio:device4": COMPASS_SCRIPT})
        details = {"devices": f"{DEVICE.name} (accelerometer, iio-poll-accel), {LIGHT_PROXIMITY.name} (stk3310: "
                              "in_illuminance_raw + scale, in_proximity_raw, udev PROXIMITY_NEAR_LEVEL 100; "
                              "iio-poll-als iio-poll-proximity), "
                              f"{COMPASS.name} + {COMPASS_SCRIPT.name} (HID magn_3d: scan element "
                              "in_rot_from_north_magnetic_tilt_comp, 32.1 degrees, one scan a second; "
                              "iio-buffer-compass)",
                   "peer": binary, "peer_version": peer_version()}
        self.details["dbus_sensors"] = details
        buses, claimants, polkits = [], [], []
        daemon = peer = None
        try:
            for name in ("bus-sensors-orientd", "bus-sensors-peer"):
                (self.workdir / name).mkdir(parents=True, exist_ok=True)
                buses.append(PrivateBus(self.workdir / name))
            ours, theirs = buses
            polkit, details["polkit"] = self.orientd_polkit(binary, ours.address, polkits)
            daemon = Orientd(self.workdir / "sensors", dict(env, DBUS_SYSTEM_BUS_ADDRESS=ours.address),
                             f"[orientation]\nnatural = portrait\n[dbus]\nenable = true\npolkit = {polkit}\n",
                             "orientd (D-Bus, sensors)")
            wait_until(lambda: "serving net.hadess.SensorProxy" in daemon.log_text(), 10, "orientd to own the name")
            peer = Peer(binary, env, theirs.address, self.workdir / "bus-sensors-peer")
            pids = {"orientd": daemon.pid, "peer": peer.pid}
            client = {"orientd": SensorClaimant(ours.address, "orientd"),
                      "peer": SensorClaimant(theirs.address, "the peer")}
            claimants.extend(client.values())
            for who in client:
                for sensor in ("Light", "Proximity"):
                    client[who].claim(sensor)
            time.sleep(1.0)
            seen = {who: c.properties() for who, c in client.items()}
            details["light_proximity_properties"] = {
                who: {k: v for k, v in props.items() if k in ("HasAmbientLight", "LightLevelUnit", "LightLevel",
                                                             "HasProximity", "ProximityNear")}
                for who, props in seen.items()}
            for who, props in seen.items():
                if not (props.get("HasAmbientLight") and props.get("HasProximity")):
                    raise RuntimeError(f"{who} does not see the fake light and proximity sensor: {props}")

            if not self.args.memory_only:
                time.sleep(1.0)  # past the claims' first readings
                windows = []
                for _ in range(self.args.cpu_windows):
                    c0 = {who: cpu_ns(pid)[0] for who, pid in pids.items()}
                    s0 = {who: context_switches(pid) for who, pid in pids.items()}
                    t0 = time.monotonic()
                    time.sleep(self.args.cpu_window_s)
                    c1 = {who: cpu_ns(pid)[0] for who, pid in pids.items()}
                    s1 = {who: context_switches(pid) for who, pid in pids.items()}
                    t1 = time.monotonic()
                    window = {"seconds": round(t1 - t0, 3)}
                    for who in pids:
                        window[f"{who}_ms_per_min"] = round((c1[who] - c0[who]) / 1e6 * 60 / (t1 - t0), 3)
                        window[f"{who}_wakeups_per_s"] = round((s1[who] - s0[who]) / (t1 - t0), 2)
                    window["ratio"] = round(window["orientd_ms_per_min"] / window["peer_ms_per_min"], 3) \
                        if window["peer_ms_per_min"] > 0 else None
                    windows.append(window)
                    log(f"light + proximity CPU window: {window}")
                median = {key: statistics.median(w[key] for w in windows)
                          for key in ("orientd_ms_per_min", "peer_ms_per_min", "orientd_wakeups_per_s",
                                      "peer_wakeups_per_s")}
                details["light_proximity_cpu"] = {
                    "method": "one client claims light and proximity on each daemon (ClaimLight, ClaimProximity), "
                              "the devices at rest; sum of /proc/PID/task/*/schedstat on-CPU ns over each window, "
                              "per minute; wakeups: voluntary + involuntary context switches of every thread "
                              "(/proc/PID/task/*/status) per second; the keys are the windows' medians",
                    "windows": windows, **{k: round(v, 3) for k, v in median.items()},
                    "ratio_per_window": spread([w["ratio"] for w in windows])}
                self.results["dbus_light_proximity_cpu_ms_per_min"] = round(median["orientd_ms_per_min"], 3)
                self.results["dbus_light_proximity_cpu_ms_per_min_peer"] = round(median["peer_ms_per_min"], 3)
                if median["peer_ms_per_min"] > 0:
                    self.results["dbus_light_proximity_cpu_ratio_vs_peer"] = \
                        round(median["orientd_ms_per_min"] / median["peer_ms_per_min"], 3)
                else:
                    self.fail(["dbus_light_proximity_cpu_ratio_vs_peer"], "the peer used no measurable CPU")
                polls = strace_polls(pids, self.args.strace_s, ["in_illuminance_raw", "in_proximity_raw"])
                details["light_proximity_polls"] = polls if polls is not None else "strace is not installed"
                if polls:
                    log(f"light + proximity polls over {self.args.strace_s:g} s (strace): {polls}")

            # Every sensor claimed: the accelerometer first, to tell the compass's share.
            for who in client:
                client[who].claim("Accelerometer")
            time.sleep(2.0)
            details["before_the_compass"] = {
                "claimed": "Light, Proximity, Accelerometer",
                "vmrss_kib": {who: status_kib(pid, "VmRSS") for who, pid in pids.items()},
                **memory_breakdown(daemon.pid, "orientd"), **memory_breakdown(peer.pid, "peer")}
            for who in client:
                client[who].claim("Compass")
            time.sleep(3.0)
            seen = {who: c.properties() for who, c in client.items()}
            rss = {who: status_kib(pid, "VmRSS") for who, pid in pids.items()}
            anon = {who: status_kib(pid, "RssAnon") for who, pid in pids.items()}
            rollup = {who: rollup_kib(pid) for who, pid in pids.items()}
            self.results["dbus_anon_kib_all_sensors"] = anon["orientd"]
            self.results["dbus_anon_kib_all_sensors_peer"] = anon["peer"]
            self.results["dbus_anon_kib_all_sensors_ratio_vs_peer"] = round(anon["orientd"] / anon["peer"], 3)
            self.results["dbus_pss_kib_all_sensors"], self.results["dbus_private_kib_all_sensors"] = rollup["orientd"]
            self.results["dbus_pss_kib_all_sensors_peer"], self.results["dbus_private_kib_all_sensors_peer"] = rollup["peer"]
            self.results["dbus_rss_kib_all_sensors"] = rss["orientd"]
            self.results["dbus_rss_kib_all_sensors_peer"] = rss["peer"]
            self.results["dbus_rss_kib_all_sensors_ratio_vs_peer"] = round(rss["orientd"] / rss["peer"], 3)
            self.results["dbus_pss_kib_all_sensors_ratio_vs_peer"] = \
                round(self.results["dbus_pss_kib_all_sensors"] / self.results["dbus_pss_kib_all_sensors_peer"], 3)
            compass_problems = sorted({line.split("compass: ", 1)[1] for line in daemon.log_text().splitlines()
                                       if "compass: " in line and "warning" in line})
            details["all_sensors"] = {
                "claimed": "Light, Proximity, Accelerometer, Compass (one client on each daemon)",
                "properties": seen,
                "orientd_compass_problems": compass_problems,
                "orientd_vmrss_kib": rss["orientd"], "peer_vmrss_kib": rss["peer"],
                "orientd_libraries": mapped_libraries(daemon.pid), "peer_libraries": mapped_libraries(peer.pid),
                **memory_breakdown(daemon.pid, "orientd"), **memory_breakdown(peer.pid, "peer"),
                "orientd_threads": threads(daemon.pid), "peer_threads": threads(peer.pid)}
            log(f"RSS with every sensor claimed: orientd {rss['orientd']} KiB, peer {rss['peer']} KiB "
                f"(before the compass: {details['before_the_compass']['vmrss_kib']}); "
                f"compass heading: orientd {seen['orientd'].get('CompassHeading')}, "
                f"peer {seen['peer'].get('CompassHeading')}")
            if compass_problems:
                log(f"orientd's compass: {compass_problems}")
        except Exception as error:
            self.fail(cpu_keys + rss_keys, f"{type(error).__name__}: {error}")
        finally:
            for claimant in claimants:
                claimant.close()
            if daemon is not None:
                daemon.stop()
                details["orientd_log_tail"] = daemon.log_text().splitlines()[-8:]
            if peer is not None:
                peer.stop()
            for polkit in polkits:
                polkit.stop()
            for bus in buses:
                bus.stop()
            del testbed

    def idle(self, daemon, peer):
        time.sleep(1.0)  # past the probe's fresh reading
        seconds = self.args.idle_s
        before = context_switches(daemon.pid)
        peer_before = context_switches(peer.pid) if peer else None
        time.sleep(seconds)
        count = context_switches(daemon.pid) - before
        self.results["idle_wakeups_10s"] = round(count * 10 / seconds) if seconds != 10 else count
        self.details["idle"] = {"window_s": seconds, "orientd_context_switches": count,
                                "peer_context_switches_unclaimed": (context_switches(peer.pid) - peer_before)
                                if peer else None}
        log(f"idle: orientd {count} context switches in {seconds:g} s; peer (unclaimed) "
            f"{self.details['idle']['peer_context_switches_unclaimed']}")

    def watched_cpu(self, daemon, peer, prefix=""):
        time.sleep(2.0)  # past the subscription's start and the claim's first reading
        windows = []
        for _ in range(self.args.cpu_windows):
            o0, p0, t0 = cpu_ns(daemon.pid), cpu_ns(peer.pid) if peer else None, time.monotonic()
            time.sleep(self.args.cpu_window_s)
            o1, p1, t1 = cpu_ns(daemon.pid), cpu_ns(peer.pid) if peer else None, time.monotonic()
            window = {"seconds": round(t1 - t0, 3),
                      "orientd_ms_per_min": round((o1[0] - o0[0]) / 1e6 * 60 / (t1 - t0), 3),
                      "orientd_ticks": o1[1] - o0[1]}
            if peer:
                window["peer_ms_per_min"] = round((p1[0] - p0[0]) / 1e6 * 60 / (t1 - t0), 3)
                window["peer_ticks"] = p1[1] - p0[1]
                window["ratio"] = round(window["orientd_ms_per_min"] / window["peer_ms_per_min"], 3) \
                    if window["peer_ms_per_min"] > 0 else None
            windows.append(window)
            log(f"watched CPU window: {window}")
        total_s = sum(w["seconds"] for w in windows)
        orientd_ms = sum(w["orientd_ms_per_min"] * w["seconds"] for w in windows) / total_s
        cpu = {"method": "sum of /proc/PID/task/*/schedstat on-CPU ns over each window, scaled to a minute; "
                         "ticks: utime+stime from /proc/PID/stat (10 ms each)",
               "windows": windows, "orientd_ms_per_min": round(orientd_ms, 3)}
        if peer:
            peer_ms = sum(w["peer_ms_per_min"] * w["seconds"] for w in windows) / total_s
            cpu["peer_ms_per_min"] = round(peer_ms, 3)
            cpu["ratio_per_window"] = spread([w["ratio"] for w in windows])
            if peer_ms > 0:
                self.results[f"{prefix}watched_cpu_ratio_vs_peer"] = round(orientd_ms / peer_ms, 3)
            else:
                self.fail([f"{prefix}watched_cpu_ratio_vs_peer"], "the peer used no measurable CPU in the windows")
        self.details[f"{prefix}watched_cpu"] = cpu

    def step_latency(self, testbed, syspath, watcher, peer_watcher, prefix=""):
        # Testbed.set_attribute goes through g_file_set_contents, which fsyncs
        # an existing file: under load a turn's 60 writes then took 450-900 ms
        # instead of 300. Each attribute is replaced the same way (a whole new
        # file renamed over it, so a reader never sees it half written), minus
        # the fsync: a few tens of microseconds.
        root = testbed.get_root_dir()
        device_dir = os.path.join(root, syspath.lstrip("/"))
        scratch = os.path.join(root, "bench-scratch")
        os.makedirs(scratch, exist_ok=True)

        def set_attribute(name, text):
            temporary = os.path.join(scratch, name)
            with open(temporary, "w") as f:
                f.write(text)
            os.rename(temporary, os.path.join(device_dir, name))

        def write(theta_deg):
            theta = math.radians(theta_deg)
            x, y = round(RAW_G * math.sin(theta)), round(-RAW_G * math.cos(theta))
            set_attribute("in_accel_x_raw", f"{x}\n")
            set_attribute("in_accel_y_raw", f"{y}\n")

        observers = {"orientd": watcher}
        if peer_watcher is not None:
            observers["peer"] = peer_watcher
        latencies = {name: [] for name in observers}
        from_start = {name: [] for name in observers}
        durations = []
        # Per turn: how long orientd had been still before the turn began (from
        # its last commit, after which its sampling policy counts `still-after`
        # down) and the turn's latency, to tell turns begun at the still rate.
        still_before = []
        last_commit = None
        missed = {name: 0 for name in observers}
        rng = random.Random(7)
        steps = round(self.args.turn_ms / self.args.step_ms)
        for turn in range(self.args.turns):
            start_deg, end_deg = (0, 90) if turn % 2 == 0 else (90, 0)
            target = "left-up" if end_deg == 90 else "normal"
            marks = {name: len(o.events) for name, o in observers.items()}
            began = time.monotonic()
            for i in range(1, steps + 1):
                due = began + i * self.args.step_ms / 1000
                delay = due - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                write(start_deg + (end_deg - start_deg) * (1 - math.cos(math.pi * i / steps)) / 2)
            ended = time.monotonic()
            durations.append((ended - began) * 1000)
            still_before.append(round((began - last_commit) * 1000, 1) if last_commit is not None else None)
            deadline = ended + 3.0
            while time.monotonic() < deadline and not all(
                    any(o == target for _, o in obs.events[marks[name]:]) for name, obs in observers.items()):
                time.sleep(0.005)
            for name, obs in observers.items():
                seen = next((t for t, o in obs.events[marks[name]:] if o == target), None)
                if seen is None:
                    missed[name] += 1
                else:
                    latencies[name].append((seen - ended) * 1000)
                    from_start[name].append((seen - began) * 1000)
                if name == "orientd":
                    last_commit = seen
            # Rest, for a random time as wide as the peer's 700 ms poll period, so
            # that the turns fall at a uniformly random phase of its timer.
            time.sleep(rng.uniform(0.4, 1.1))
        step = {"turns": self.args.turns, "turn_ms": self.args.turn_ms, "write_every_ms": self.args.step_ms,
                "profile": "raised cosine, 0 deg (normal) <-> 90 deg (left-up), z = 0, alternating",
                "latency": "end of the turn (after its last write) -> the client has the new orientation; "
                           "negative: seen before the turn ended",
                "turn_duration_ms": spread(durations, 1),
                "orientd_still_before_ms": still_before}
        for name, values in latencies.items():
            step[name] = {"missed": missed[name], "n": len(values),
                          "median_ms": round(statistics.median(values), 1) if values else None,
                          "p95_ms": round(percentile(values, 0.95), 1) if values else None,
                          "min_ms": round(min(values), 1) if values else None,
                          "max_ms": round(max(values), 1) if values else None,
                          "from_turn_start_median_ms": round(statistics.median(from_start[name]), 1) if values else None,
                          "from_turn_start_p95_ms": round(percentile(from_start[name], 0.95), 1) if values else None,
                          "all_ms": [round(v, 1) for v in values]}
            log(f"step latency {name}: median {step[name]['median_ms']} ms, p95 {step[name]['p95_ms']} ms, "
                f"missed {missed[name]}")
        self.details[f"{prefix}step_latency"] = step
        ratio_keys = [f"{prefix}step_latency_median_ratio_vs_peer", f"{prefix}step_latency_p95_ratio_vs_peer"]
        if "peer" in step:
            o, p = step["orientd"], step["peer"]
            if o["missed"] or p["missed"]:
                self.fail(ratio_keys,
                          f"turns not seen within 3 s: orientd {o['missed']}, peer {p['missed']}")
            elif p["median_ms"] <= 0 or p["p95_ms"] <= 0:
                self.fail(ratio_keys,
                          f"the peer's latency is not positive (median {p['median_ms']}, p95 {p['p95_ms']}): "
                          "a ratio would mean nothing")
            else:
                o_med, o_p95 = statistics.median(latencies["orientd"]), percentile(latencies["orientd"], 0.95)
                p_med, p_p95 = statistics.median(latencies["peer"]), percentile(latencies["peer"], 0.95)
                self.results[ratio_keys[0]] = round(o_med / p_med, 3)
                self.results[ratio_keys[1]] = round(o_p95 / p_p95, 3)
                step["ratio_bootstrap_90pct"] = bootstrap_ratios(latencies["orientd"], latencies["peer"])

    # Output

    def machine(self):
        stat = os.stat(ORIENTD)
        return {"cores": os.cpu_count(), "kernel": platform.release(), "loadavg_at_end": os.getloadavg(),
                "orientd": str(ORIENTD), "orientd_bytes": stat.st_size,
                "orientd_built": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stat.st_mtime)) + "Z",
                "quick": self.args.quick, "memory_only": self.args.memory_only}

    def write(self, path):
        data = dict(self.results)
        self.details["machine"] = self.machine()
        data["details"] = self.details
        if self.reasons:
            data["reasons"] = self.reasons
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(data, indent=2) + "\n")

    def table(self):
        d = self.details
        notes = {}
        if "classifier" in d:
            notes["classifier_samples_per_s"] = f"5 runs: {d['classifier']['runs_samples_per_s']['min']:.3g}–" \
                                                f"{d['classifier']['runs_samples_per_s']['max']:.3g}"
        fan = d.get("fanout", {})
        if "clients_1000" in fan:
            s = fan["clients_1000"]["p99_from_send_ms"]
            cpu = fan["clients_1000"]["daemon_cpu_ms_per_publish"]
            notes["fanout_p99_ms_1000"] = (f"repeats {s['min']}–{s['max']}; p99 @1 {fan.get('fanout_p99_ms_1')}, "
                                           f"@100 {fan.get('fanout_p99_ms_100')}; from first receipt "
                                           f"{fan['clients_1000']['p99_from_first_ms']['median']}; daemon CPU "
                                           f"{cpu['median'] if cpu else None} ms/publish; reader floor "
                                           f"{fan['clients_1000']['reader_floor_ms']['median']}; timed at recv "
                                           f"{((fan.get('clients_1000_receipt_at_read') or {}).get('p99_from_send_ms') or {}).get('median')}")
        if "idle" in d:
            notes["idle_wakeups_10s"] = f"peer unclaimed: {d['idle']['peer_context_switches_unclaimed']}"
        cpu = d.get("watched_cpu")
        if cpu:
            notes["watched_cpu_ratio_vs_peer"] = f"orientd {cpu['orientd_ms_per_min']} ms/min, peer " \
                                                 f"{cpu.get('peer_ms_per_min')} ms/min; per window " \
                                                 f"{[w.get('ratio') for w in cpu['windows']]}"
        step = d.get("step_latency")
        if step:
            o, p = step["orientd"], step.get("peer", {})
            boot = step.get("ratio_bootstrap_90pct", {})
            notes["step_latency_median_ratio_vs_peer"] = f"orientd {o['median_ms']} ms, peer {p.get('median_ms')} ms " \
                                                         f"({step['turns']} turns); 90% bootstrap {boot.get('median')}"
            notes["step_latency_p95_ratio_vs_peer"] = f"orientd {o['p95_ms']} ms, peer {p.get('p95_ms')} ms; " \
                                                      f"90% bootstrap {boot.get('p95')}"
        mem = d.get("memory")
        if mem:
            notes["rss_kib_100_clients"] = f"peer {mem.get('peer_vmrss_kib_1_claimant')} KiB (1 claimant); " \
                                           f"anon/file/shmem: orientd {mem['orientd_rss_anon_file_shmem_kib']}, " \
                                           f"peer {mem.get('peer_rss_anon_file_shmem_kib')}; Swift stdlib " \
                                           f"{mem['orientd_swift_stdlib']}"
        dbus = d.get("dbus", {})
        for prefix, step in (("dbus_", d.get("dbus_step_latency")),):
            if step and "peer" in step:
                notes[f"{prefix}step_latency_median_ratio_vs_peer"] = f"orientd {step['orientd']['median_ms']} ms, peer " \
                                                                      f"{step['peer']['median_ms']} ms ({step['turns']} turns)"
                notes[f"{prefix}step_latency_p95_ratio_vs_peer"] = f"orientd {step['orientd']['p95_ms']} ms, peer " \
                                                                   f"{step['peer']['p95_ms']} ms"
        if d.get("dbus_watched_cpu"):
            c = d["dbus_watched_cpu"]
            notes["dbus_watched_cpu_ratio_vs_peer"] = f"orientd {c['orientd_ms_per_min']} ms/min, peer {c.get('peer_ms_per_min')} ms/min"
        if dbus.get("memory"):
            m = dbus["memory"]
            notes["dbus_rss_kib_10_claimers"] = f"peer {m['peer_vmrss_kib_10_claimers']} KiB; ratio {m['ratio_vs_peer']}"
        sensors = d.get("dbus_sensors", {})
        if sensors.get("light_proximity_cpu"):
            c = sensors["light_proximity_cpu"]
            notes["dbus_light_proximity_cpu_ratio_vs_peer"] = \
                f"per window {[w['ratio'] for w in c['windows']]}; wakeups/s orientd {c['orientd_wakeups_per_s']}, " \
                f"peer {c['peer_wakeups_per_s']}"
        if sensors.get("all_sensors"):
            a = sensors["all_sensors"]
            notes["dbus_rss_kib_all_sensors"] = f"anon/file/shmem {a['orientd_rss_anon_file_shmem_kib']}; compass " \
                                                f"heading {a['properties']['orientd'].get('CompassHeading')}" + \
                                                (f"; compass: {a['orientd_compass_problems'][0]}"
                                                 if a["orientd_compass_problems"] else "")
            notes["dbus_rss_kib_all_sensors_peer"] = f"anon/file/shmem {a['peer_rss_anon_file_shmem_kib']}; compass " \
                                                     f"heading {a['properties']['peer'].get('CompassHeading')}"
        broad = d.get("broad")
        if broad and "orientd" in broad:
            notes["broad_agreement_pct"] = f"z negated {broad['orientd'].get('negated')} %"
        if broad and "peer" in broad:
            notes["broad_agreement_pct_peer"] = "replayed in real time on fake devices"
        rows = [("key", "value", "target", "notes")]
        for key, target in KEYS:
            value = self.results[key]
            rows.append((key, "null" if value is None else f"{value:g}" if isinstance(value, float) else str(value),
                         target, notes.get(key, self.reasons.get(key, ""))))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = []
        for i, r in enumerate(rows):
            lines.append("  ".join(r[j].ljust(widths[j]) for j in range(3)) + "  " + r[3])
            if i == 0:
                lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 5)
        return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.environ.get("BENCH_OUT") or str(REPO / ".build" / "bench.json"))
    parser.add_argument("--quick", action="store_true", help="short windows, few turns (a smoke test, not figures)")
    parser.add_argument("--repeats", type=int, default=3, help="fan-out repeats per size (default 3)")
    parser.add_argument("--toggles-small", type=int, default=200, help="toggles per repeat for 1 and 100 subscribers")
    parser.add_argument("--toggles-large", type=int, default=50, help="toggles per repeat for 1000 subscribers")
    parser.add_argument("--reader-threads", type=int, default=max(1, min(4, (os.cpu_count() or 2) - 1)),
                        help="orientd-fanout's reader threads (default: cores - 1, at most 4)")
    parser.add_argument("--idle-s", type=float, default=10.0)
    parser.add_argument("--cpu-window-s", type=float, default=20.0)
    parser.add_argument("--cpu-windows", type=int, default=3)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--strace-s", type=float, default=6.0,
                        help="how long `--only sensors` watches what each daemon polls (strace), after the CPU windows")
    parser.add_argument("--orientd-config", default="",
                        help="appended to orientd's configuration for the umockdev part, e.g. "
                             "$'[sensor]\\nstill-interval = 250\\n' (to measure a setting against the defaults)")
    parser.add_argument("--orientd-polkit", choices=["as-peer", "off"], default="as-peer",
                        help="the D-Bus parts: orientd asks polkit for every claim when the peer does (as-peer, "
                             "the default: iio-sensor-proxy 3.7 does, 3.0 does not), or never (off)")
    parser.add_argument("--memory-only", action="store_true",
                        help="only rss_kib_100_clients (and the peer's RSS): no classifier, fan-out, idle, CPU or "
                             "latency figures (those keys stay null)")
    parser.add_argument("--turn-ms", type=float, default=300.0)
    parser.add_argument("--step-ms", type=float, default=10.0)
    parser.add_argument("--only", action="append", choices=["classifier", "fanout", "umockdev", "dbus", "sensors", "broad"],
                        help="run only this part (repeatable; default: all). `--only umockdev` gives idle wakeups, "
                             "watched CPU, step latency and RSS; the other keys stay null")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.toggles_small, args.toggles_large = 1, 20, 10
        args.idle_s, args.cpu_window_s, args.cpu_windows, args.turns, args.strace_s = 2.0, 3.0, 1, 4, 2.0

    if "umockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
        wrapper = shutil.which("umockdev-wrapper")
        if wrapper is None:
            sys.exit("bench.py: umockdev-wrapper is missing (Debian: apt-get install umockdev)")
        os.execv(wrapper, [wrapper, "/usr/bin/python3", str(Path(__file__).resolve()), *sys.argv[1:]])
    if not os.access(ORIENTD, os.X_OK):
        sys.exit(f"bench.py: {ORIENTD} is missing: run `swift build -c release` first")

    bench = Bench(args)
    if args.memory_only:
        for key, _ in KEYS:
            if key not in ("anon_kib_100_clients", "anon_kib_100_clients_peer", "anon_kib_100_clients_ratio_vs_peer",
                           "dbus_anon_kib_all_sensors", "dbus_anon_kib_all_sensors_peer",
                           "dbus_anon_kib_all_sensors_ratio_vs_peer", "dbus_pss_kib_all_sensors_ratio_vs_peer",
                           "rss_kib_100_clients", "dbus_rss_kib_10_claimers", "dbus_rss_kib_all_sensors",
                           "dbus_rss_kib_all_sensors_peer", "dbus_rss_kib_all_sensors_ratio_vs_peer",
                           "dbus_pss_kib_all_sensors", "dbus_pss_kib_all_sensors_peer",
                           "dbus_private_kib_all_sensors", "dbus_private_kib_all_sensors_peer"):
                bench.reasons[key] = "not measured (--memory-only)"
    started = time.monotonic()
    try:
        parts = ["umockdev", "dbus", "sensors"] if args.memory_only else \
            args.only or ["classifier", "fanout", "umockdev", "dbus", "sensors", "broad"]
        if "classifier" in parts:
            log("classifier throughput")
            bench.classifier()
        if "fanout" in parts:
            log("fan-out")
            bench.fanout()
        if "umockdev" in parts:
            log("umockdev: idle, watched CPU, step latency, RSS (orientd and iio-sensor-proxy)")
            bench.umockdev()
        if "dbus" in parts:
            log("D-Bus: orientd's D-Bus side and iio-sensor-proxy, the same client on each, the same device")
            bench.dbus()
        if "sensors" in parts:
            log("D-Bus sensors: light + proximity claimed (CPU, wakeups, polls), then every sensor (RSS), "
                "orientd and iio-sensor-proxy")
            bench.sensors()
        if "broad" in parts:
            log("BROAD recordings: agreement with the optical labels (orientd and iio-sensor-proxy)")
            bench.broad()
        skipped = [key for key, _ in KEYS if bench.results[key] is None and key not in bench.reasons]
        for key in skipped:
            bench.reasons[key] = "not measured (--memory-only)" if args.memory_only else f"not run (--only {' '.join(parts)})"
    finally:
        if args.only:
            bench.details["only"] = sorted(set(args.only))
        bench.details["duration_s"] = round(time.monotonic() - started, 1)
        bench.write(args.out)
        shutil.rmtree(bench.workdir, ignore_errors=True)
    print(bench.table())
    print(f"\nwrote {args.out}", flush=True)


if __name__ == "__main__":
    main()
