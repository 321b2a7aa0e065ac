"""orientd's D-Bus side against the peer through the same door (`--only
dbus`): each on its own private system bus, both reading the same fake
accelerometer (DEVICE), each watched by the same client (PeerWatcher:
ClaimAccelerometer, then PropertiesChanged). Both ask polkit for a claim, or
neither, as the peer does (peer.orientd_polkit). Runs the watched-CPU and
step-latency measures with the prefix `dbus_` (cpu.py, latency.py; not with
`--memory-only`), then takes the memory with 10 claimants on each.

- dbus_rss_kib_10_claimers: orientd's VmRSS with 10 D-Bus claimants (the
  peer's, and the split by mapping of both, in details.dbus.memory). A
  figure, not a goal.
"""

import time

from bus import PeerWatcher, PrivateBus
from common import NO_PEER, fake_device, log, wait_until
from cpu import watched_cpu, watched_cpu_notes
from latency import step_latency, step_latency_notes
from orientd import Orientd
from peer import Peer, find_peer, orientd_polkit, peer_version
from procfs import memory_breakdown, status_kib

KEYS = [
    ("dbus_step_latency_median_ratio_vs_peer", "≤ 1.0"),
    ("dbus_step_latency_p95_ratio_vs_peer", "≤ 0.6"),
    ("dbus_watched_cpu_ratio_vs_peer", "≤ 1.0"),
    ("dbus_rss_kib_10_claimers", "(figure)"),
]
ALL_KEYS = [key for key, _ in KEYS]


def run(bench):
    binary = find_peer()
    if binary is None:
        return bench.fail(ALL_KEYS, NO_PEER)
    testbed, syspath, env = fake_device()
    buses, watchers, polkits = [], [], []
    daemon = peer = None
    try:
        for name in ("bus-orientd", "bus-peer"):
            (bench.workdir / name).mkdir(parents=True, exist_ok=True)
            buses.append(PrivateBus(bench.workdir / name))
        ours, theirs = buses
        polkit, polkit_note = orientd_polkit(binary, ours.address, polkits, bench.args.orientd_polkit)
        daemon = Orientd(bench.workdir / "dbus", dict(env, DBUS_SYSTEM_BUS_ADDRESS=ours.address),
                         f"[orientation]\nnatural = portrait\n[dbus]\nenable = true\npolkit = {polkit}\n",
                         "orientd (D-Bus)")
        wait_until(lambda: "serving net.hadess.SensorProxy" in daemon.log_text(), 10, "orientd to own the name")
        peer = Peer(binary, env, theirs.address, bench.workdir)
        bench.details["dbus"] = {"peer": binary, "peer_version": peer_version(), "bus": "one private dbus-daemon "
                                 "each, permissive policy", "polkit": polkit_note}

        def claimant(address, what):
            watchers.append(PeerWatcher.claim(address, what))
            return watchers[-1]

        watcher, peer_watcher = claimant(ours.address, "orientd"), claimant(theirs.address, "the peer")
        wait_until(lambda: watcher.current == "normal" and peer_watcher.current == "normal", 5,
                   "both to report normal over D-Bus")
        if not bench.args.memory_only:
            watched_cpu(bench, daemon, peer, prefix="dbus_")
            step_latency(bench, testbed, syspath, watcher, peer_watcher, prefix="dbus_")
        for _ in range(9):
            claimant(ours.address, "orientd")
            claimant(theirs.address, "the peer")
        time.sleep(1.0)
        rss, peer_rss = status_kib(daemon.pid, "VmRSS"), status_kib(peer.pid, "VmRSS")
        bench.results["dbus_rss_kib_10_claimers"] = rss
        bench.details["dbus"]["memory"] = {
            "orientd_vmrss_kib_10_claimers": rss, "peer_vmrss_kib_10_claimers": peer_rss,
            "ratio_vs_peer": round(rss / peer_rss, 3) if peer_rss else None,
            **memory_breakdown(daemon.pid, "orientd"), **memory_breakdown(peer.pid, "peer")}
        log(f"D-Bus RSS with 10 claimers: orientd {rss} KiB, peer {peer_rss} KiB")
    except Exception as error:
        bench.fail(ALL_KEYS, f"{type(error).__name__}: {error}")
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


def notes(details):
    """The table's notes on this part's keys."""
    result = {**watched_cpu_notes(details, "dbus_"), **step_latency_notes(details, "dbus_")}
    memory = details.get("dbus", {}).get("memory")
    if memory:
        result["dbus_rss_kib_10_claimers"] = f"peer {memory['peer_vmrss_kib_10_claimers']} KiB; " \
                                             f"ratio {memory['ratio_vs_peer']}"
    return result
