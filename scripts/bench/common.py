"""What every part of `make bench` shares: the paths of what it runs and
reads, its log, small statistics, waiting, stopping a process, the fake
devices (a umockdev testbed), and `Bench`: the keys' values, the reasons a
key is null, the details, written as one JSON object.

Standard library only at import time (the umockdev bindings are imported
when a testbed is made), so broad.py's replays and the parts load it alike.
"""

import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
ORIENTD = Path(os.environ.get("ORIENTD", REPO / ".build" / "release" / "orientd"))
BENCH_BIN = Path(os.environ.get("BENCH_BIN_DIR", REPO / "Benchmarks" / ".build" / "release"))
DEVICE = HERE / "accel_3d.umockdev"  # hid-sensor-hub accel_3d, polled, plus the peer's udev type
LIGHT_PROXIMITY = HERE / "stk3310.umockdev"  # a phone's stk3310: illuminance and proximity, polled
COMPASS = HERE / "magn_3d.umockdev"  # hid-sensor-hub magn_3d: the tilt-compensated heading, buffered only
COMPASS_SCRIPT = HERE / "magn_3d.script"  # what its /dev/iio:device4 gives: the same scan every second
RAW_G = 256  # accel_3d: 256 raw x 0.038307 = 9.807 m/s^2
NO_PEER = "iio-sensor-proxy is not installed (Debian: apt-get install iio-sensor-proxy)"


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


def stop_process(process):
    """SIGTERM, then SIGKILL after 5 s; waits for the process either way."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


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


class Bench:
    """One run: `args` (bench.py's options), a scratch `workdir`, and what
    goes into the JSON: `results` (every key, null until measured),
    `reasons` (why a key is null) and `details` (what lies behind the keys)."""

    def __init__(self, args, keys):
        self.args = args
        self.results = {key: None for key in keys}
        self.reasons = {}
        self.details = {}
        self.workdir = Path(tempfile.mkdtemp(prefix="orientd-bench-"))

    def fail(self, keys, reason):
        """Marks the keys of `keys` not measured yet with `reason` (the first
        reason given for a key is kept: it is the cause)."""
        for key in keys:
            if self.results.get(key) is None:
                self.reasons.setdefault(key, reason)
        log(f"{', '.join(keys)}: {reason}")

    def machine(self):
        stat = os.stat(ORIENTD)
        return {"cores": os.cpu_count(), "kernel": platform.release(), "loadavg_at_end": os.getloadavg(),
                "orientd": str(ORIENTD), "orientd_bytes": stat.st_size,
                "orientd_built": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stat.st_mtime)) + "Z",
                "quick": self.args.quick, "memory_only": self.args.memory_only}

    def write(self, path):
        """The JSON: the keys at the top level, then `details`, then `reasons` when a key is null."""
        data = dict(self.results)
        self.details["machine"] = self.machine()
        data["details"] = self.details
        if self.reasons:
            data["reasons"] = self.reasons
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(data, indent=2) + "\n")
