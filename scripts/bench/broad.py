#!/usr/bin/python3
"""BROAD agreement for `make bench`: orientd and iio-sensor-proxy on the real
hand-held recordings of traces/recorded/broad (see its README for the source
and licence).

Agreement: the share of label rows whose label is an orientation that has held
for at least 1.5 s and equals the orientation the daemon published at that
time (as docs/classifier.md defines it, and RecordedTraceTests asserts).

- orientd: `orientd --mock TRACE --speed max --exit-at-end --print` (the trace
  clock), with z as recorded and with z negated.
- the peer: each recording replayed in real time to its own fake HID
  accelerometer under umockdev, the way latency.py's turns feed it (raw
  attributes replaced by renaming, here every second reading, 42 ms), with its
  own private system bus and claimant; the ten replays run in parallel (about
  3.5 minutes). Its 4-way orientation ignores the z sign, so z is as recorded.

    umockdev-wrapper /usr/bin/python3 scripts/bench/broad.py [--orientd-only]
    umockdev-wrapper /usr/bin/python3 scripts/bench/broad.py --peer-one TRACE   (one replay; JSON on stdout)

In `make bench` (`--only broad`):

- broad_agreement_pct (goal >= 98.5), broad_agreement_pct_peer: the
  agreement of each, orientd's with z as recorded (z negated in
  details.broad).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bus import PeerWatcher, PrivateBus
from common import NO_PEER, ORIENTD, RAW_G, REPO, fake_device, log
from peer import Peer, find_peer

BROAD = REPO / "traces" / "recorded" / "broad"
HOLD_MS = 1500
ORIENTATIONS = ("normal", "left-up", "bottom-up", "right-up")
KEYS = [("broad_agreement_pct", "≥ 98.5"), ("broad_agreement_pct_peer", "(figure)")]


def read_trace(path):
    headers, samples = [], []
    for line in Path(path).read_text().splitlines():
        if line.startswith("#") or not line.strip():
            headers.append(line)
        elif not line.startswith("t_ms"):
            t, x, y, z = (float(v) for v in line.split(","))
            samples.append((t, x, y, z))
    return headers, samples


def agreement(changes, labels_path):
    """(agreeing, scored) rows; `changes` is [(t_ms, orientation)] in time order."""
    agree = scored = 0
    since, previous, index = 0.0, None, -1
    for line in Path(labels_path).read_text().splitlines():
        if line.startswith("#") or line.startswith("t_ms"):
            continue
        fields = line.split(",")
        t, label = float(fields[0]), fields[5]
        if label != previous:
            since, previous = t, label
        while index + 1 < len(changes) and changes[index + 1][0] <= t:
            index += 1
        if label in ORIENTATIONS and t - since >= HOLD_MS:
            scored += 1
            agree += index >= 0 and changes[index][1] == label
    return agree, scored


def orientd_changes(orientd, trace, negate, workdir):
    path = trace
    if negate:
        headers, samples = read_trace(trace)
        path = Path(workdir) / "negated.trace"
        path.write_text("\n".join(headers) + "\nt_ms,x,y,z\n"
                        + "".join(f"{t:g},{x:g},{y:g},{-z:g}\n" for t, x, y, z in samples))
    config = Path(workdir) / "empty.conf"
    config.write_text("")
    out = subprocess.run([str(orientd), "--mock", str(path), "--speed", "max", "--exit-at-end", "--print",
                          "--config", str(config), "--state-dir", str(workdir)],
                         capture_output=True, text=True, check=True, env=dict(os.environ, LC_ALL="C.UTF-8")).stdout
    changes = []
    for line in out.splitlines():
        state = json.loads(line)
        if not changes or changes[-1][1] != state["physical"]:
            changes.append((state["t_ms"], state["physical"]))
    return changes


def orientd_agreement(orientd):
    """{"recorded": pct, "negated": pct, "per_trace": {...}}."""
    result = {"per_trace": {}}
    with tempfile.TemporaryDirectory(prefix="orientd-broad-") as workdir:
        for negate in (False, True):
            total_agree = total_scored = 0
            for trace in sorted(BROAD.glob("*.trace")):
                changes = orientd_changes(orientd, trace, negate, workdir)
                agree, scored = agreement(changes, str(trace).replace(".trace", "_labels.csv"))
                total_agree += agree
                total_scored += scored
                key = "negated" if negate else "recorded"
                result["per_trace"].setdefault(trace.stem, {})[key] = [agree, scored]
            result["negated" if negate else "recorded"] = round(100 * total_agree / max(1, total_scored), 2)
    return result


def peer_one(trace):
    """One real-time replay to the peer under this process's umockdev testbed; prints JSON."""
    _, samples = read_trace(trace)
    testbed, syspath, env = fake_device()
    root = testbed.get_root_dir()
    device_dir = os.path.join(root, syspath.lstrip("/"))
    scratch = os.path.join(root, "broad-scratch")
    os.makedirs(scratch, exist_ok=True)
    scale = 9.80665 / RAW_G

    def set_attribute(name, value):
        temporary = os.path.join(scratch, name)
        with open(temporary, "w") as f:
            f.write(f"{value}\n")
        os.rename(temporary, os.path.join(device_dir, name))

    def write(sample):
        for axis, value in zip("xyz", sample[1:]):
            set_attribute(f"in_accel_{axis}_raw", round(value / scale))

    workdir = tempfile.mkdtemp(prefix="orientd-broad-peer-")
    bus = peer = watcher = None
    try:
        write(samples[0])
        bus = PrivateBus(workdir)
        peer = Peer(find_peer(), env, bus.address, workdir)
        watcher = PeerWatcher.claim(bus.address, "the peer")
        started = time.monotonic()
        t0 = samples[0][0]
        for index, sample in enumerate(samples):
            if index % 2:
                continue
            due = started + (sample[0] - t0) / 1000
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            write(sample)
        time.sleep(1.0)
        changes = []
        for at, orientation in watcher.events:
            changes.append((round(t0 + (at - started) * 1000, 1), orientation))
        print(json.dumps({"trace": str(trace), "changes": changes}))
    finally:
        if watcher is not None:
            watcher.stop()
        if peer is not None:
            peer.stop()
        if bus is not None:
            bus.stop()
        del testbed


def peer_agreement():
    """The peer's agreement over all BROAD recordings, replayed in parallel."""
    wrapper = "umockdev-wrapper"
    children = []
    for trace in sorted(BROAD.glob("*.trace")):
        children.append((trace, subprocess.Popen(
            [wrapper, "/usr/bin/python3", str(Path(__file__).resolve()), "--peer-one", str(trace)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "UMOCKDEV_DIR")})))
    total_agree = total_scored = 0
    per_trace = {}
    for trace, child in children:
        out, err = child.communicate(timeout=600)
        if child.returncode != 0:
            raise RuntimeError(f"peer replay of {trace.name} failed: {err[-1500:]}")
        changes = [tuple(c) for c in json.loads(out.strip().splitlines()[-1])["changes"]]
        agree, scored = agreement(changes, str(trace).replace(".trace", "_labels.csv"))
        per_trace[trace.stem] = [agree, scored]
        total_agree += agree
        total_scored += scored
    return {"recorded": round(100 * total_agree / max(1, total_scored), 2), "per_trace": per_trace}


def run(bench):
    """The keys of `make bench --only broad`."""
    try:
        ours = orientd_agreement(ORIENTD)
        bench.results["broad_agreement_pct"] = ours["recorded"]
        bench.details["broad"] = {"orientd": ours, "hold_ms": HOLD_MS}
        log(f"BROAD agreement: orientd {ours['recorded']} % (z negated {ours['negated']} %)")
    except Exception as error:
        bench.fail(["broad_agreement_pct"], f"{type(error).__name__}: {error}")
    if bench.args.quick:
        return bench.fail(["broad_agreement_pct_peer"], "not measured (--quick: the replays take 3.5 minutes)")
    if find_peer() is None:
        return bench.fail(["broad_agreement_pct_peer"], NO_PEER)
    try:
        theirs = peer_agreement()
        bench.results["broad_agreement_pct_peer"] = theirs["recorded"]
        bench.details.setdefault("broad", {})["peer"] = theirs
        log(f"BROAD agreement: peer {theirs['recorded']} %")
    except Exception as error:
        bench.fail(["broad_agreement_pct_peer"], f"{type(error).__name__}: {error}")


def notes(details):
    """The table's notes on this part's keys."""
    broad = details.get("broad") or {}
    result = {}
    if "orientd" in broad:
        result["broad_agreement_pct"] = f"z negated {broad['orientd'].get('negated')} %"
    if "peer" in broad:
        result["broad_agreement_pct_peer"] = "replayed in real time on fake devices"
    return result


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--peer-one":
        peer_one(Path(sys.argv[2]))
        return
    print(json.dumps({"orientd": orientd_agreement(ORIENTD)}, indent=1))
    if "--orientd-only" not in sys.argv:
        print(json.dumps({"peer": peer_agreement()}, indent=1))


if __name__ == "__main__":
    main()
