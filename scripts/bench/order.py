#!/usr/bin/python3
"""Writes Sources/orientd/orientd.order: the functions a release orientd runs,
those of its steady state first, for lld's --symbol-ordering-file.

    umockdev-wrapper /usr/bin/python3 scripts/bench/order.py [ORIENTD] [OUT]

Why: of the ~5 MB of code in the static binary, about 400 KB runs, scattered
over it; a read fault maps 64 KiB of a file's cached pages, so the scattered
code kept ~3 MiB of the binary resident. Linked in this order, the code that
runs is contiguous (docs/architecture.md, Memory).

How: the bench's device and sessions (bench.py: the fake accelerometer under
umockdev, with a light and proximity sensor and a HID compass, its D-Bus side
on a private system bus with 10 claimers and a claimer of each other sensor, 100
socket subscribers, a `get`, the device turned to left-up and back, half the
clients leaving, SIGTERM) with orientd under valgrind's callgrind, its profile
dumped (callgrind_control) once the claims and subscriptions are made and
again after the steady state (ten seconds at rest, the turns, the `get`);
every function of the orientd binary that callgrind saw, those the binary
defines (nm): first those the steady state ran, then the rest, each in
first-seen order. orientd releases the pages start-up ran through
(docs/architecture.md, Memory); what the steady state runs then faults back
in from a few 64 KiB windows instead of being spread over the code that
start-up, claims and subscriptions ran. lld orders whole input sections, and the
static Swift runtime keeps most of the standard library in one 1.6 MB `.text`
section (Swift.o in libswiftCore.a): a function of such a section listed
early would pull the whole section ahead of everything listed after it, so
those functions go last, after every function that has a section of its own.
Needs valgrind. Rerun it after changes that move much code, and with a new
toolchain: stale names cost nothing (lld ignores them), missing ones only
memory.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench  # noqa: E402  (the testbed, Orientd and Client)


def executed_functions(callgrind_out, binary_name):
    """Function names of `binary_name` in a callgrind file, in first-seen order."""
    objects, functions = {}, {}
    current, seen, order = None, set(), []

    def name(table, spec):
        m = re.match(r"\((\d+)\)(?: (.*))?", spec)
        if not m:
            return spec
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1))

    with open(callgrind_out) as f:
        for line in f:
            if line.startswith("ob="):
                current = name(objects, line[3:].strip())
            elif line.startswith("cob="):
                name(objects, line[4:].strip())
            elif line.startswith(("fn=", "cfn=")):
                is_call = line.startswith("cfn=")
                function = name(functions, line[4 if is_call else 3:].strip())
                if is_call or not current or os.path.basename(current) != binary_name:
                    continue
                function = re.sub(r"'\d+$", "", function)  # callgrind's recursion depth
                if function not in seen:
                    seen.add(function)
                    order.append(function)
    return order


def shared_section_functions(threshold=64 * 1024):
    """Functions the static Swift libraries define in a `.text` section of at
    least `threshold` bytes shared with other functions (readelf on the
    toolchain's libswift*.a)."""
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        return set()
    static = Path(os.path.realpath(swiftc)).parent.parent / "lib" / "swift_static" / "linux"
    names = set()
    for archive in sorted(static.glob("libswift*.a")):
        big, member = set(), None
        sections = subprocess.run(["readelf", "-SW", str(archive)], capture_output=True, text=True, check=True).stdout
        for line in sections.splitlines():
            if line.startswith("File: "):
                member = line
            m = re.match(r"\s*\[\s*(\d+)\] \.text\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-f]+)", line)
            if m and int(m.group(2), 16) >= threshold:
                big.add((member, m.group(1)))
        if not big:
            continue
        symbols = subprocess.run(["readelf", "-sW", str(archive)], capture_output=True, text=True, check=True).stdout
        for line in symbols.splitlines():
            if line.startswith("File: "):
                member = line
                continue
            parts = line.split()
            if len(parts) >= 8 and parts[3] == "FUNC" and (member, parts[6]) in big:
                names.add(parts[7])
    return names


def main():
    binary = Path(sys.argv[1] if len(sys.argv) > 1 else bench.REPO / ".build" / "release" / "orientd").resolve()
    out = Path(sys.argv[2] if len(sys.argv) > 2 else bench.REPO / "Sources" / "orientd" / "orientd.order")
    if shutil.which("valgrind") is None:
        sys.exit("order.py: valgrind is missing (Debian: apt-get install valgrind)")
    if "umockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
        sys.exit("order.py: run it under umockdev-wrapper")

    workdir = Path(tempfile.mkdtemp(prefix="orientd-order-"))
    bus, watchers = None, []
    try:
        profile = workdir / "callgrind.out"
        wrapper = workdir / "orientd"
        wrapper.write_text(f"#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --callgrind-out-file={profile} "
                           f"{binary} \"$@\"\n")
        wrapper.chmod(0o755)
        bench.ORIENTD = wrapper
        testbed, syspath, env = bench.fake_device(
            (bench.DEVICE, bench.LIGHT_PROXIMITY, bench.COMPASS), {"/dev/iio:device4": bench.COMPASS_SCRIPT})
        (workdir / "bus").mkdir()
        bus = bench.PrivateBus(workdir / "bus")
        daemon = bench.Orientd(workdir / "daemon", dict(env, DBUS_SYSTEM_BUS_ADDRESS=bus.address),
                               "[orientation]\nnatural = portrait\n[dbus]\nenable = true\npolkit = off\n", "orientd")
        bench.wait_until(lambda: "serving net.hadess.SensorProxy" in daemon.log_text(), 60, "orientd to own the name")
        for _ in range(10):
            watchers.append(bench.PeerWatcher.claim(bus.address, "orientd under valgrind", timeout=60))
        # The other sensors, claimed as GNOME, Phosh and GeoClue do.
        sensors = bench.SensorClaimant(bus.address, "orientd under valgrind")
        for sensor in ("Light", "Proximity", "Compass"):
            sensors.claim(sensor)
        sensors.properties()
        clients = []
        for _ in range(100):
            client = bench.Client(daemon.socket)
            client.request("subscribe")
            clients.append(client)
        time.sleep(2)
        # The steady state, in a dump of its own: at rest with every sensor
        # claimed, then turned to left-up and back, then a `get`.
        subprocess.run(["callgrind_control", "--dump=claims", str(daemon.process.pid)], check=True, capture_output=True)
        time.sleep(10)
        for x, y in ((bench.RAW_G, 0), (0, -bench.RAW_G)):  # left-up, then normal again
            testbed.set_attribute(syspath, "in_accel_x_raw", f"{x}\n")
            testbed.set_attribute(syspath, "in_accel_y_raw", f"{y}\n")
            time.sleep(4)
        clients[0].request("get")
        subprocess.run(["callgrind_control", "--dump=steady", str(daemon.process.pid)], check=True, capture_output=True)
        for client in clients[50:]:
            client.close()
        for watcher in watchers[5:]:  # claimers leaving the bus: their claims are released
            watcher.stop()
            watcher.connection.close_sync(None)
        time.sleep(1)
        daemon.process.terminate()
        daemon.process.wait(timeout=60)
        for client in clients[:50]:
            client.close()
        dumps = sorted(workdir.glob("callgrind.out.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
        if len(dumps) != 2:
            sys.exit(f"order.py: expected two dumps from callgrind_control, found {[p.name for p in dumps]}")
        steady = executed_functions(dumps[1], binary.name)
        functions = list(dict.fromkeys(steady + executed_functions(dumps[0], binary.name)
                                       + executed_functions(profile, binary.name)))
        defined = set()
        for line in subprocess.run(["nm", str(binary)], capture_output=True, text=True, check=True).stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                defined.add(parts[2])
        shared = shared_section_functions()
        ordered = sorted((f for f in functions if f in defined), key=lambda f: f in shared)  # stable: first-seen order within each
        out.write_text("".join(f + "\n" for f in ordered))
        print(f"order.py: {len(ordered)} functions ({len(functions)} seen, {sum(f in defined for f in steady)} "
              f"of them in the steady state, first; {sum(f in shared for f in ordered)} in the runtime's shared "
              f"sections, last) -> {out}")
    finally:
        for watcher in watchers:
            watcher.stop()
        if bus is not None:
            bus.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
