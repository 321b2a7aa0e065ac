"""CPU of a daemon nobody listens to, and of one that is watched: measured
by the socket part (socket_side.py) and, with the prefix `dbus_`, by the
D-Bus part (dbus_side.py).

- idle_wakeups_10s (goal 0): voluntary + involuntary context switches of
  every orientd thread over 10 s, no client connected, the fake
  accelerometer present (details.idle also gives the unclaimed peer's).
- watched_cpu_ratio_vs_peer (goal <= 1.0): one orientd subscriber and one
  ClaimAccelerometer on the peer, the device still; on-CPU time of every
  thread (/proc/PID/task/*/schedstat, ns; utime/stime ticks are 10 ms each,
  and the peer uses less than one in 20 s) over three 20 s windows, per
  minute, orientd / peer (over the 60 s; each window's ratio in
  details.watched_cpu). dbus_watched_cpu_ratio_vs_peer: the same through
  orientd's D-Bus side, one claimant on each.
"""

import time

from common import log, spread
from procfs import context_switches, cpu_ns


def idle(bench, daemon, peer):
    time.sleep(1.0)  # past the probe's fresh reading
    seconds = bench.args.idle_s
    before = context_switches(daemon.pid)
    peer_before = context_switches(peer.pid) if peer else None
    time.sleep(seconds)
    count = context_switches(daemon.pid) - before
    bench.results["idle_wakeups_10s"] = round(count * 10 / seconds) if seconds != 10 else count
    bench.details["idle"] = {"window_s": seconds, "orientd_context_switches": count,
                             "peer_context_switches_unclaimed": (context_switches(peer.pid) - peer_before)
                             if peer else None}
    log(f"idle: orientd {count} context switches in {seconds:g} s; peer (unclaimed) "
        f"{bench.details['idle']['peer_context_switches_unclaimed']}")


def watched_cpu(bench, daemon, peer, prefix=""):
    time.sleep(2.0)  # past the subscription's start and the claim's first reading
    windows = []
    for _ in range(bench.args.cpu_windows):
        o0, p0, t0 = cpu_ns(daemon.pid), cpu_ns(peer.pid) if peer else None, time.monotonic()
        time.sleep(bench.args.cpu_window_s)
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
            bench.results[f"{prefix}watched_cpu_ratio_vs_peer"] = round(orientd_ms / peer_ms, 3)
        else:
            bench.fail([f"{prefix}watched_cpu_ratio_vs_peer"], "the peer used no measurable CPU in the windows")
    bench.details[f"{prefix}watched_cpu"] = cpu


def watched_cpu_notes(details, prefix=""):
    """The table's note on `{prefix}watched_cpu_ratio_vs_peer`."""
    cpu = details.get(f"{prefix}watched_cpu")
    if not cpu:
        return {}
    return {f"{prefix}watched_cpu_ratio_vs_peer": f"orientd {cpu['orientd_ms_per_min']} ms/min, peer "
                                                  f"{cpu.get('peer_ms_per_min')} ms/min; per window "
                                                  f"{[w.get('ratio') for w in cpu['windows']]}"}
