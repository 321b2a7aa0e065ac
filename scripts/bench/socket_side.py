"""orientd's socket side against the peer (`--only umockdev`): both daemons
on the same umockdev-faked accelerometer (DEVICE) at once, orientd with
socket clients, the peer (on a private system bus) with one claimant. Runs
the idle, watched-CPU and step-latency measures (cpu.py, latency.py), then
takes the memory with 100 subscribers; `--memory-only` runs the memory
alone.

- anon_kib_100_clients, _peer, anon_kib_100_clients_ratio_vs_peer (goal
  <= 1.0): RssAnon (/proc/PID/status: heap, stack, relocated data, the
  runtime's caches, what only swap could take back) of orientd with 100
  subscribers and of the peer with its one claimant.
- rss_kib_100_clients: orientd's VmRSS with 100 subscribers (the peer's
  VmRSS, with its one claimant, in details.memory). A figure, not a goal: it
  counts clean file pages the kernel takes back by itself when memory is
  short. details.memory also splits both into RssAnon/RssFile/RssShmem and
  by mapping, and lists the libraries orientd maps and the Swift modules it
  should not link.
"""

import time

from bus import PeerWatcher, PrivateBus
from common import DEVICE, NO_PEER, ORIENTD, fake_device, log, wait_until
from cpu import idle, watched_cpu, watched_cpu_notes
from latency import step_latency, step_latency_notes
from orientd import Client, Orientd, StateWatcher
from peer import Peer, find_peer, peer_version
from procfs import linked_swift_modules, mapped_libraries, memory_breakdown, status_kib, swift_stdlib, threads

KEYS = [
    ("idle_wakeups_10s", "0"),
    ("watched_cpu_ratio_vs_peer", "≤ 1.0"),
    ("step_latency_median_ratio_vs_peer", "≤ 1.0"),
    ("step_latency_p95_ratio_vs_peer", "≤ 0.6"),
    ("anon_kib_100_clients", "(figure)"),
    ("anon_kib_100_clients_peer", "(figure)"),
    ("anon_kib_100_clients_ratio_vs_peer", "≤ 1.0"),
    ("rss_kib_100_clients", "(figure)"),
]
ALL_KEYS = [key for key, _ in KEYS]
PEER_KEYS = [key for key in ALL_KEYS if "peer" in key]


def run(bench):
    try:
        import gi
        gi.require_version("UMockdev", "1.0")
        from gi.repository import UMockdev  # noqa: F401
    except (ImportError, ValueError) as error:
        return bench.fail(ALL_KEYS, f"no umockdev Python bindings ({error}): apt-get install umockdev "
                                    "gir1.2-umockdev-1.0 python3-gi, run with /usr/bin/python3")
    testbed, syspath, env = fake_device()
    bench.details["device"] = f"{DEVICE.name} (hid-sensor-hub accel_3d, polled, IIO_SENSOR_PROXY_TYPE=iio-poll-accel)"

    bus = peer = daemon = watcher = peer_watcher = None
    extra_clients = []
    try:
        daemon = Orientd(bench.workdir / "umockdev", env,
                         "[orientation]\nnatural = portrait\n" + bench.args.orientd_config, "orientd")
        probe = Client(daemon.socket)
        sensor = probe.request("get")["sensor"]
        probe.close()
        if sensor not in ("idle", "active"):
            raise RuntimeError(f"orientd does not see the fake accelerometer (sensor {sensor!r}): "
                               f"{daemon.log_text()[-1500:]}")

        # The peer, on a private system bus, on the same testbed.
        binary = find_peer()
        if binary is None:
            bench.fail(PEER_KEYS, NO_PEER)
        else:
            try:
                bus = PrivateBus(bench.workdir)
                peer = Peer(binary, env, bus.address, bench.workdir)
                bench.details["peer"] = {"binary": binary, "version": peer_version(),
                                         "bus": "private dbus-daemon, permissive policy, DBUS_SYSTEM_BUS_ADDRESS"}
            except Exception as error:
                bench.fail(PEER_KEYS, f"iio-sensor-proxy could not be run under umockdev: {error}")
                if peer is not None:
                    peer.stop()
                peer = None

        if not bench.args.memory_only:
            idle(bench, daemon, peer)

        # One subscriber, one claimant: watched, still.
        watcher = StateWatcher(Client(daemon.socket))
        watcher.start()
        wait_until(lambda: watcher.current == "normal", 5, "orientd to publish normal")
        if peer is not None:
            peer_watcher = PeerWatcher(bus.address)
            peer_watcher.start()
            peer_watcher.ready.wait(10)
            if peer_watcher.error is not None:
                bench.fail(PEER_KEYS, f"ClaimAccelerometer failed: {peer_watcher.error}")
                peer_watcher = None
            else:
                wait_until(lambda: peer_watcher.current == "normal", 5, "iio-sensor-proxy to report normal")
        if not bench.args.memory_only:
            watched_cpu(bench, daemon, peer if peer_watcher else None)
            step_latency(bench, testbed, syspath, watcher, peer_watcher)

        # 100 subscribers.
        for _ in range(99):
            client = Client(daemon.socket)
            client.request("subscribe")
            extra_clients.append(client)
        time.sleep(1.0)
        memory_100_clients(bench, daemon, peer)
    except Exception as error:
        bench.fail(ALL_KEYS, f"{type(error).__name__}: {error}")
    finally:
        for client in extra_clients:
            client.close()
        if watcher is not None:
            watcher.stop()
        if peer_watcher is not None:
            peer_watcher.stop()
        if daemon is not None:
            daemon.stop()
            bench.details["orientd_log_tail"] = daemon.log_text().splitlines()[-5:]
        if peer is not None:
            peer.stop()
        if bus is not None:
            bus.stop()
        del testbed


def memory_100_clients(bench, daemon, peer):
    """The memory keys, with 100 subscribers (the caller's one and 99 more)."""
    rss = status_kib(daemon.pid, "VmRSS")
    bench.results["rss_kib_100_clients"] = rss
    bench.results["anon_kib_100_clients"] = status_kib(daemon.pid, "RssAnon")
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
        bench.results["anon_kib_100_clients_peer"] = peer_anon
        bench.results["anon_kib_100_clients_ratio_vs_peer"] = round(bench.results["anon_kib_100_clients"] / peer_anon, 3)
        memory["peer_vmhwm_kib"] = status_kib(peer.pid, "VmHWM")
        memory.update(memory_breakdown(peer.pid, "peer"))
        memory["peer_threads"] = threads(peer.pid)
    bench.details["memory"] = memory
    log(f"RSS: orientd {rss} KiB with 100 subscribers; peer {memory.get('peer_vmrss_kib_1_claimant')} KiB")


def notes(details):
    """The table's notes on this part's keys."""
    result = {}
    if "idle" in details:
        result["idle_wakeups_10s"] = f"peer unclaimed: {details['idle']['peer_context_switches_unclaimed']}"
    result.update(watched_cpu_notes(details))
    result.update(step_latency_notes(details))
    mem = details.get("memory")
    if mem:
        result["rss_kib_100_clients"] = f"peer {mem.get('peer_vmrss_kib_1_claimant')} KiB (1 claimant); " \
                                        f"anon/file/shmem: orientd {mem['orientd_rss_anon_file_shmem_kib']}, " \
                                        f"peer {mem.get('peer_rss_anon_file_shmem_kib')}; Swift stdlib " \
                                        f"{mem['orientd_swift_stdlib']}"
    return result
