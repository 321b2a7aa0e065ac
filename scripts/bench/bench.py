#!/usr/bin/python3
"""`make bench`: orientd's figures, side by side with iio-sensor-proxy (issue 7).

Prints a table and writes JSON to $BENCH_OUT (default .build/bench.json) with
the keys at the top level, a `details` object (every figure behind them:
spreads, the peer's own numbers, the 1- and 100-subscriber fan-out, the
machine) and, only when a key is null, a `reasons` object saying why.

    umockdev-wrapper /usr/bin/python3 scripts/bench/bench.py [--quick] [--only fanout|umockdev|dbus|sensors|...]

(it re-executes itself under umockdev-wrapper when started without it). It needs
the release builds of orientd (`swift build -c release`) and of the Benchmarks
package (`cd Benchmarks && swift build -c release`), Debian's umockdev,
gir1.2-umockdev-1.0, python3-gi, dbus-daemon and iio-sensor-proxy.
`scripts/trixie/bench.sh` (`make bench-trixie`) runs this script on Debian 13,
where the peer (iio-sensor-proxy 3.7) asks polkit for every claim: both
daemons then ask a fake polkit (peer.py, orientd_polkit).

This file runs the parts and prints the table. Each part is a module that
defines its keys exactly in its docstring (README.md lists them all):
classifier.py, fanout.py, socket_side.py (`--only umockdev`: idle wakeups,
watched CPU and step latency from cpu.py and latency.py, memory with 100
subscribers), dbus_side.py, sensors.py and broad.py. What they share:
common.py, procfs.py, orientd.py, bus.py, peer.py. All peer comparisons are
ratios of figures taken in this one run.
"""

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

import broad
import classifier
import dbus_side
import fanout
import sensors
import socket_side
from common import ORIENTD, REPO, Bench, log

# The parts in the order they run, by their `--only` names.
PARTS = {"classifier": classifier, "fanout": fanout, "umockdev": socket_side, "dbus": dbus_side,
         "sensors": sensors, "broad": broad}
ANNOUNCE = {
    "classifier": "classifier throughput",
    "fanout": "fan-out",
    "umockdev": "umockdev: idle, watched CPU, step latency, RSS (orientd and iio-sensor-proxy)",
    "dbus": "D-Bus: orientd's D-Bus side and iio-sensor-proxy, the same client on each, the same device",
    "sensors": "D-Bus sensors: light + proximity claimed (CPU, wakeups, polls), then every sensor (RSS), "
               "orientd and iio-sensor-proxy",
    "broad": "BROAD recordings: agreement with the optical labels (orientd and iio-sensor-proxy)",
}
KEYS = [key for part in PARTS.values() for key in part.KEYS]
# What `--memory-only` measures: every key in KiB (RssAnon, VmRSS, Pss,
# private pages, and their ratios).
MEMORY_KEYS = {key for key, _ in KEYS if "_kib_" in key}


def table(bench):
    notes = {}
    for part in PARTS.values():
        notes.update(part.notes(bench.details))
    rows = [("key", "value", "target", "notes")]
    for key, target in KEYS:
        value = bench.results[key]
        rows.append((key, "null" if value is None else f"{value:g}" if isinstance(value, float) else str(value),
                     target, notes.get(key, bench.reasons.get(key, ""))))
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
                             "$'[classifier]\\nsensitivity = 2\\n' (to measure a setting against the defaults)")
    parser.add_argument("--orientd-polkit", choices=["as-peer", "off"], default="as-peer",
                        help="the D-Bus parts: orientd asks polkit for every claim when the peer does (as-peer, "
                             "the default: iio-sensor-proxy 3.7 does, 3.0 does not), or never (off)")
    parser.add_argument("--memory-only", action="store_true",
                        help="only the memory keys (those in KiB, and their ratios; the umockdev, dbus and sensors "
                             "parts): no classifier, fan-out, idle, CPU, latency or BROAD figures (those keys stay null)")
    parser.add_argument("--turn-ms", type=float, default=300.0)
    parser.add_argument("--step-ms", type=float, default=10.0)
    parser.add_argument("--only", action="append", choices=list(PARTS),
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

    bench = Bench(args, [key for key, _ in KEYS])
    if args.memory_only:
        for key, _ in KEYS:
            if key not in MEMORY_KEYS:
                bench.reasons[key] = "not measured (--memory-only)"
    started = time.monotonic()
    try:
        parts = ["umockdev", "dbus", "sensors"] if args.memory_only else args.only or list(PARTS)
        for name, part in PARTS.items():
            if name in parts:
                log(ANNOUNCE[name])
                part.run(bench)
        skipped = [key for key, _ in KEYS if bench.results[key] is None and key not in bench.reasons]
        for key in skipped:
            bench.reasons[key] = "not measured (--memory-only)" if args.memory_only else f"not run (--only {' '.join(parts)})"
    finally:
        if args.only:
            bench.details["only"] = sorted(set(args.only))
        bench.details["duration_s"] = round(time.monotonic() - started, 1)
        bench.write(args.out)
        shutil.rmtree(bench.workdir, ignore_errors=True)
    print(table(bench))
    print(f"\nwrote {args.out}", flush=True)


if __name__ == "__main__":
    main()
