#!/usr/bin/python3
"""Writes Sources/orientd/orientd.order: the functions a release orientd runs,
in the order it first runs them, for lld's --symbol-ordering-file.

    umockdev-wrapper /usr/bin/python3 scripts/bench/order.py [ORIENTD] [OUT]

Why: of the ~5 MB of code in the static binary, about 400 KB runs, scattered
over it; a read fault maps 64 KiB of a file's cached pages, so the scattered
code kept ~3 MiB of the binary resident. Linked in this order, the code that
runs is contiguous (docs/architecture.md, Memory).

How: the bench's device and session (bench.py: the fake accelerometer under
umockdev, 100 subscribers, a `get`, the device turned to left-up and back,
half the clients leaving, SIGTERM) with orientd under valgrind's callgrind;
every function of the orientd binary that callgrind saw, first-seen order,
those the binary defines (nm). Needs valgrind. Rerun it after changes that
move much code, and with a new toolchain: stale names cost nothing (lld
ignores them), missing ones only memory.
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


def main():
    binary = Path(sys.argv[1] if len(sys.argv) > 1 else bench.REPO / ".build" / "release" / "orientd").resolve()
    out = Path(sys.argv[2] if len(sys.argv) > 2 else bench.REPO / "Sources" / "orientd" / "orientd.order")
    if shutil.which("valgrind") is None:
        sys.exit("order.py: valgrind is missing (Debian: apt-get install valgrind)")
    if "umockdev-preload" not in os.environ.get("LD_PRELOAD", ""):
        sys.exit("order.py: run it under umockdev-wrapper")
    import gi
    gi.require_version("UMockdev", "1.0")
    from gi.repository import UMockdev

    workdir = Path(tempfile.mkdtemp(prefix="orientd-order-"))
    try:
        profile = workdir / "callgrind.out"
        wrapper = workdir / "orientd"
        wrapper.write_text(f"#!/bin/sh\nexec valgrind --tool=callgrind --demangle=no --callgrind-out-file={profile} "
                           f"{binary} \"$@\"\n")
        wrapper.chmod(0o755)
        bench.ORIENTD = wrapper
        testbed = UMockdev.Testbed.new()
        testbed.add_from_string(bench.DEVICE.read_text())
        syspath = "/sys" + bench.DEVICE.read_text().split("\n", 1)[0][3:]
        env = dict(os.environ, UMOCKDEV_DIR=testbed.get_root_dir(), LC_ALL="C.UTF-8")
        env.pop("ORIENTD_SOCKET", None)
        daemon = bench.Orientd(workdir / "daemon", env, "[orientation]\nnatural = portrait\n", "orientd")
        clients = []
        for _ in range(100):
            client = bench.Client(daemon.socket)
            client.request("subscribe")
            clients.append(client)
        clients[0].request("get")
        for x, y in ((bench.RAW_G, 0), (0, -bench.RAW_G)):  # left-up, then normal again
            testbed.set_attribute(syspath, "in_accel_x_raw", f"{x}\n")
            testbed.set_attribute(syspath, "in_accel_y_raw", f"{y}\n")
            time.sleep(4)
        for client in clients[50:]:
            client.close()
        time.sleep(1)
        daemon.process.terminate()
        daemon.process.wait(timeout=60)
        for client in clients[:50]:
            client.close()
        functions = executed_functions(profile, binary.name)
        defined = set()
        for line in subprocess.run(["nm", str(binary)], capture_output=True, text=True, check=True).stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "tTwW":
                defined.add(parts[2])
        ordered = [f for f in functions if f in defined]
        out.write_text("".join(f + "\n" for f in ordered))
        print(f"order.py: {len(ordered)} functions ({len(functions)} seen) -> {out}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
