"""Step latency: how soon after a turn of the fake accelerometer each
daemon's client has the new orientation. Measured by the socket part
(socket_side.py) and, with the prefix `dbus_`, by the D-Bus part
(dbus_side.py).

- step_latency_{median,p95}_ratio_vs_peer (goals <= 1.0, <= 0.6): 40 turns
  of 300 ms (raised cosine, raw x and y rewritten every 10 ms, each by
  renaming a new file over it) from normal to left-up and back, alternately,
  with a random 0.4-1.1 s rest between turns (a random phase against the
  peer's 700 ms poll timer); latency = end of the turn (after the last write)
  -> the client has the new orientation (orientd: a state line on the
  subscriber's socket; the peer: PropertiesChanged AccelerometerOrientation
  on the claimant's bus connection). A latency can be negative (seen before
  the turn ended). Both daemons watch the same turns of the same fake device
  at once. details.step_latency gives every turn and a bootstrap interval of
  the ratios. The turns are a glance's floor away from the peer's: orientd
  holds a turn 320 ms from crossing the boundary (docs/classifier.md).
- dbus_step_latency_{median,p95}_ratio_vs_peer: the same, orientd watched
  through its D-Bus side by the same client as the peer.
"""

import math
import os
import random
import statistics
import time

from common import RAW_G, log, percentile, spread


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


def step_latency(bench, testbed, syspath, watcher, peer_watcher, prefix=""):
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
    steps = round(bench.args.turn_ms / bench.args.step_ms)
    for turn in range(bench.args.turns):
        start_deg, end_deg = (0, 90) if turn % 2 == 0 else (90, 0)
        target = "left-up" if end_deg == 90 else "normal"
        marks = {name: len(o.events) for name, o in observers.items()}
        began = time.monotonic()
        for i in range(1, steps + 1):
            due = began + i * bench.args.step_ms / 1000
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
    step = {"turns": bench.args.turns, "turn_ms": bench.args.turn_ms, "write_every_ms": bench.args.step_ms,
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
    bench.details[f"{prefix}step_latency"] = step
    ratio_keys = [f"{prefix}step_latency_median_ratio_vs_peer", f"{prefix}step_latency_p95_ratio_vs_peer"]
    if "peer" in step:
        o, p = step["orientd"], step["peer"]
        if o["missed"] or p["missed"]:
            bench.fail(ratio_keys,
                       f"turns not seen within 3 s: orientd {o['missed']}, peer {p['missed']}")
        elif p["median_ms"] <= 0 or p["p95_ms"] <= 0:
            bench.fail(ratio_keys,
                       f"the peer's latency is not positive (median {p['median_ms']}, p95 {p['p95_ms']}): "
                       "a ratio would mean nothing")
        else:
            o_med, o_p95 = statistics.median(latencies["orientd"]), percentile(latencies["orientd"], 0.95)
            p_med, p_p95 = statistics.median(latencies["peer"]), percentile(latencies["peer"], 0.95)
            bench.results[ratio_keys[0]] = round(o_med / p_med, 3)
            bench.results[ratio_keys[1]] = round(o_p95 / p_p95, 3)
            step["ratio_bootstrap_90pct"] = bootstrap_ratios(latencies["orientd"], latencies["peer"])


def step_latency_notes(details, prefix=""):
    """The table's notes on `{prefix}step_latency_*_ratio_vs_peer`."""
    step = details.get(f"{prefix}step_latency")
    if not step:
        return {}
    o, p = step["orientd"], step.get("peer", {})
    boot = step.get("ratio_bootstrap_90pct", {})
    return {f"{prefix}step_latency_median_ratio_vs_peer": f"orientd {o['median_ms']} ms, peer {p.get('median_ms')} ms "
                                                          f"({step['turns']} turns); 90% bootstrap {boot.get('median')}",
            f"{prefix}step_latency_p95_ratio_vs_peer": f"orientd {o['p95_ms']} ms, peer {p.get('p95_ms')} ms; "
                                                       f"90% bootstrap {boot.get('p95')}"}
