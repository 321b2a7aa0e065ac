"""Light, proximity and the compass on the D-Bus side against the peer
(`--only sensors`): each daemon on its own private system bus, one testbed
holding the accelerometer (DEVICE), a phone's stk3310 (LIGHT_PROXIMITY:
in_illuminance_raw + scale, in_proximity_raw, udev PROXIMITY_NEAR_LEVEL) and
a HID compass (COMPASS, its /dev node replaying COMPASS_SCRIPT), one client
(SensorClaimant) on each daemon. Both ask polkit for a claim, or neither, as
the peer does (peer.orientd_polkit). First ClaimLight + ClaimProximity, the
values unchanging: CPU and wakeups over the CPU windows, then what each
polls (polls.py, strace, apart from the windows; not with `--memory-only`).
Then ClaimAccelerometer and ClaimCompass too: memory with every sensor
claimed.

- dbus_light_proximity_cpu_ms_per_min, _peer,
  dbus_light_proximity_cpu_ratio_vs_peer (goal <= 1.0): on-CPU time of
  every thread (schedstat) per minute over three 20 s windows, both daemons
  at once; the keys are the windows' medians, the ratio is of those medians
  (each window's in details.dbus_sensors.light_proximity_cpu, with each
  daemon's wakeups per second: voluntary + involuntary context switches of
  every thread). details.dbus_sensors.light_proximity_polls: what each reads,
  and how often.
- dbus_anon_kib_all_sensors, _peer, dbus_anon_kib_all_sensors_ratio_vs_peer
  (goal <= 1.0): RssAnon of each with its client claiming every sensor, at
  the moment the RSS below is read.
- dbus_rss_kib_all_sensors, _peer, dbus_rss_kib_all_sensors_ratio_vs_peer
  (figures): VmRSS of each with its client claiming every sensor (light,
  proximity, then the accelerometer and the compass), 3 s after the last
  claim; details.dbus_sensors.before_the_compass has both RSS before
  ClaimCompass, and all_sensors the split by mapping, the libraries mapped,
  the properties each daemon then reports and the compass problems orientd
  logged.
- dbus_pss_kib_all_sensors, _peer, _ratio_vs_peer and
  dbus_private_kib_all_sensors, _peer (figures): at the same moment, each
  daemon's Pss and its private pages (Private_Clean + Private_Dirty) from
  /proc/PID/smaps_rollup: VmRSS counts a library page another process maps
  too as the daemon's own, Pss a share of it, and the private pages are what
  the machine gets back when the daemon goes. The peer's GLib is shared
  (here with the bench's own Python); orientd's static Swift runtime is not.
"""

import statistics
import time

from bus import PrivateBus, SensorClaimant
from common import COMPASS, COMPASS_SCRIPT, DEVICE, LIGHT_PROXIMITY, NO_PEER, fake_device, log, spread, wait_until
from orientd import Orientd
from peer import Peer, find_peer, orientd_polkit, peer_version
from polls import strace_polls
from procfs import context_switches, cpu_ns, mapped_libraries, memory_breakdown, rollup_kib, status_kib, threads

KEYS = [
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
]
ALL_KEYS = [key for key, _ in KEYS]


def run(bench):
    binary = find_peer()
    if binary is None:
        return bench.fail(ALL_KEYS, NO_PEER)
    testbed, _, env = fake_device((DEVICE, LIGHT_PROXIMITY, COMPASS), {"/dev/iio:device4": COMPASS_SCRIPT})
    details = {"devices": f"{DEVICE.name} (accelerometer, iio-poll-accel), {LIGHT_PROXIMITY.name} (stk3310: "
                          "in_illuminance_raw + scale, in_proximity_raw, udev PROXIMITY_NEAR_LEVEL 100; "
                          "iio-poll-als iio-poll-proximity), "
                          f"{COMPASS.name} + {COMPASS_SCRIPT.name} (HID magn_3d: scan element "
                          "in_rot_from_north_magnetic_tilt_comp, 32.1 degrees, one scan a second; "
                          "iio-buffer-compass)",
               "peer": binary, "peer_version": peer_version()}
    bench.details["dbus_sensors"] = details
    buses, claimants, polkits = [], [], []
    daemon = peer = None
    try:
        for name in ("bus-sensors-orientd", "bus-sensors-peer"):
            (bench.workdir / name).mkdir(parents=True, exist_ok=True)
            buses.append(PrivateBus(bench.workdir / name))
        ours, theirs = buses
        polkit, details["polkit"] = orientd_polkit(binary, ours.address, polkits, bench.args.orientd_polkit)
        daemon = Orientd(bench.workdir / "sensors", dict(env, DBUS_SYSTEM_BUS_ADDRESS=ours.address),
                         f"[orientation]\nnatural = portrait\n[dbus]\nenable = true\npolkit = {polkit}\n",
                         "orientd (D-Bus, sensors)")
        wait_until(lambda: "serving net.hadess.SensorProxy" in daemon.log_text(), 10, "orientd to own the name")
        peer = Peer(binary, env, theirs.address, bench.workdir / "bus-sensors-peer")
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

        if not bench.args.memory_only:
            light_proximity_cpu(bench, pids, details)
        all_sensors_memory(bench, client, daemon, peer, details)
    except Exception as error:
        bench.fail(ALL_KEYS, f"{type(error).__name__}: {error}")
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


def light_proximity_cpu(bench, pids, details):
    """The light + proximity CPU keys, and what each daemon polls (`pids`: {who: pid})."""
    time.sleep(1.0)  # past the claims' first readings
    windows = []
    for _ in range(bench.args.cpu_windows):
        c0 = {who: cpu_ns(pid)[0] for who, pid in pids.items()}
        s0 = {who: context_switches(pid) for who, pid in pids.items()}
        t0 = time.monotonic()
        time.sleep(bench.args.cpu_window_s)
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
    bench.results["dbus_light_proximity_cpu_ms_per_min"] = round(median["orientd_ms_per_min"], 3)
    bench.results["dbus_light_proximity_cpu_ms_per_min_peer"] = round(median["peer_ms_per_min"], 3)
    if median["peer_ms_per_min"] > 0:
        bench.results["dbus_light_proximity_cpu_ratio_vs_peer"] = \
            round(median["orientd_ms_per_min"] / median["peer_ms_per_min"], 3)
    else:
        bench.fail(["dbus_light_proximity_cpu_ratio_vs_peer"], "the peer used no measurable CPU")
    polls = strace_polls(pids, bench.args.strace_s, ["in_illuminance_raw", "in_proximity_raw"])
    details["light_proximity_polls"] = polls if polls is not None else "strace is not installed"
    if polls:
        log(f"light + proximity polls over {bench.args.strace_s:g} s (strace): {polls}")


def all_sensors_memory(bench, client, daemon, peer, details):
    """The memory keys: `client` ({who: SensorClaimant}) claims the accelerometer, then the compass."""
    pids = {"orientd": daemon.pid, "peer": peer.pid}
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
    bench.results["dbus_anon_kib_all_sensors"] = anon["orientd"]
    bench.results["dbus_anon_kib_all_sensors_peer"] = anon["peer"]
    bench.results["dbus_anon_kib_all_sensors_ratio_vs_peer"] = round(anon["orientd"] / anon["peer"], 3)
    bench.results["dbus_pss_kib_all_sensors"], bench.results["dbus_private_kib_all_sensors"] = rollup["orientd"]
    bench.results["dbus_pss_kib_all_sensors_peer"], bench.results["dbus_private_kib_all_sensors_peer"] = rollup["peer"]
    bench.results["dbus_rss_kib_all_sensors"] = rss["orientd"]
    bench.results["dbus_rss_kib_all_sensors_peer"] = rss["peer"]
    bench.results["dbus_rss_kib_all_sensors_ratio_vs_peer"] = round(rss["orientd"] / rss["peer"], 3)
    bench.results["dbus_pss_kib_all_sensors_ratio_vs_peer"] = \
        round(bench.results["dbus_pss_kib_all_sensors"] / bench.results["dbus_pss_kib_all_sensors_peer"], 3)
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


def notes(details):
    """The table's notes on this part's keys."""
    sensors = details.get("dbus_sensors", {})
    result = {}
    if sensors.get("light_proximity_cpu"):
        c = sensors["light_proximity_cpu"]
        result["dbus_light_proximity_cpu_ratio_vs_peer"] = \
            f"per window {[w['ratio'] for w in c['windows']]}; wakeups/s orientd {c['orientd_wakeups_per_s']}, " \
            f"peer {c['peer_wakeups_per_s']}"
    if sensors.get("all_sensors"):
        a = sensors["all_sensors"]
        result["dbus_rss_kib_all_sensors"] = f"anon/file/shmem {a['orientd_rss_anon_file_shmem_kib']}; compass " \
                                             f"heading {a['properties']['orientd'].get('CompassHeading')}" + \
                                             (f"; compass: {a['orientd_compass_problems'][0]}"
                                              if a["orientd_compass_problems"] else "")
        result["dbus_rss_kib_all_sensors_peer"] = f"anon/file/shmem {a['peer_rss_anon_file_shmem_kib']}; compass " \
                                                  f"heading {a['properties']['peer'].get('CompassHeading')}"
    return result
