#!/usr/bin/python3
"""Soak test: the real orientd under minutes of churning clients.

Starts `orientd --mock traces/demo.trace --loop --speed 50` on a private socket
and state directory, with a config that raises `[limits] clients`, then drives
a few hundred clients at once from one selector loop (no threads):

- subscribers that subscribe, read every state, and leave after a few seconds
  (closing abruptly, unsubscribing first, or shutting down their write side);
- constrainers that register, update and release constraints (and release ids
  they never held), sometimes subscribed, and vanish holding constraints;
- lockers that lock (current or a named orientation) and unlock;
- getters: connect, one `get`, close, again and again;
- a few slow readers with a tiny receive buffer that read a little every few
  seconds and are never meant to be disconnected (states are coalesced).

Every reply is checked as it arrives: valid JSON, in request order, of the
expected type, `t_ms` never going back on a connection, no state after an
unsubscribe's `ok`. Every 10 s a line gives the daemon's anonymous memory
(RssAnon: what a leak grows; clean file pages come and go with the page
cache), fd count,
threads, CPU, the clients connected and the states received per second.

At the end the clients leave and the daemon must come back to the fd count it
had before any client came; then it fails (exit 1) when anonymous memory or the fd count
trend upward: the maximum of the last third of the samples may exceed the
maximum of the first third by at most SOAK_RSS_TOLERANCE (default 10 %, at
least 2 MiB) and SOAK_FD_TOLERANCE (default 10 %, at least 16 fds). Any
protocol violation, a slow reader disconnected, or the daemon exiting early
also fails it.

Environment: SOAK_MINUTES (default 5), SOAK_CLIENTS (about how many at once,
default 300), ORIENTD (the binary, default .build/release/orientd, built with
`swift build -c release` when missing), SOAK_SPEED (default 50), SOAK_KEEP=1
keeps the temporary directory (daemon log, config).

Run with the system python (stdlib only): /usr/bin/python3 scripts/soak.py

This file starts the daemon, samples /proc and judges; the clients and their
checks are soak_clients.py, the loop that drives them soak_loop.py.
"""

import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from soak_loop import Soak

REPO = Path(__file__).resolve().parent.parent
TRACE = REPO / "traces" / "demo.trace"


def env_float(name, default):
    value = os.environ.get(name)
    return float(value) if value not in (None, "") else default


MINUTES = env_float("SOAK_MINUTES", 5)
CLIENTS = int(env_float("SOAK_CLIENTS", 300))
SPEED = os.environ.get("SOAK_SPEED", "50")
RSS_TOLERANCE = env_float("SOAK_RSS_TOLERANCE", 0.10)
FD_TOLERANCE = env_float("SOAK_FD_TOLERANCE", 0.10)
SEED = int(env_float("SOAK_SEED", 1))

# Roughly how the population splits (fractions of SOAK_CLIENTS).
MIX = {"subscriber": 0.62, "constrainer": 0.27, "getter": 0.07, "locker": 0.02, "slow": 0.02}


# MARK: The daemon


def daemon_binary():
    explicit = os.environ.get("ORIENTD")
    if explicit:
        return Path(explicit)
    binary = REPO / ".build" / "release" / "orientd"
    if not os.access(binary, os.X_OK):
        print("soak: building the release daemon (swift build -c release)", flush=True)
        subprocess.run(["swift", "build", "-c", "release", "--product", "orientd"], cwd=REPO, check=True)
    return binary


class Daemon:
    """The orientd under test and what /proc says about it."""

    def __init__(self, binary, workdir):
        self.socket_path = str(workdir / "orientd.sock")
        config = workdir / "orientd.conf"
        # Room for every soak client plus the churn of ones the daemon has not
        # yet seen close; the other limits stay at their defaults.
        config.write_text(f"[limits]\nclients = {max(1024, CLIENTS * 4)}\n")
        self.log_path = workdir / "orientd.log"
        self.log = open(self.log_path, "wb")
        env = dict(os.environ)
        env.pop("ORIENTD_SOCKET", None)
        env.pop("STATE_DIRECTORY", None)
        env.setdefault("SWIFT_BACKTRACE", "enable=no")
        self.argv = [
            str(binary), "--mock", str(TRACE), "--loop", "--speed", SPEED,
            "--socket", self.socket_path, "--state-dir", str(workdir / "state"),
            "--config", str(config),
        ]
        self.process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=self.log, cwd=REPO, env=env)
        self.pid = self.process.pid
        self.clock_ticks = os.sysconf("SC_CLK_TCK")
        deadline = time.monotonic() + 10
        while not os.path.exists(self.socket_path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"soak: orientd did not start listening:\n{self.log_text()}")
            time.sleep(0.02)

    def alive(self):
        return self.process.poll() is None

    def log_text(self):
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def status(self):
        """RssAnon (KiB), VmHWM (KiB) and thread count from /proc/PID/status."""
        fields = {}
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                key, _, value = line.partition(":")
                fields[key] = value.split()
        return int(fields["RssAnon"][0]), int(fields["VmHWM"][0]), int(fields["Threads"][0])

    def fds(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / self.clock_ticks  # utime + stime

    def stop(self):
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
        return self.process.returncode


# MARK: Main


def fmt_mib(kib):
    return f"{kib / 1024:.2f} MiB"


def main():
    random.seed(SEED)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, CLIENTS * 4 + 256))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    binary = daemon_binary()
    workdir = Path(tempfile.mkdtemp(prefix="orientd-soak."))
    daemon = Daemon(binary, workdir)
    print(f"soak: {binary} (pid {daemon.pid}) for {MINUTES:g} min with ~{CLIENTS} clients at once; "
          f"workdir {workdir}", flush=True)
    time.sleep(1.0)
    baseline_fds = daemon.fds()
    baseline_rss, _, baseline_threads = daemon.status()
    print(f"soak: baseline {fmt_mib(baseline_rss)} anonymous, {baseline_fds} fds, {baseline_threads} threads", flush=True)
    soak = Soak(daemon)
    samples = []  # (elapsed s, rss KiB, fds, threads, connected)
    started = time.monotonic()
    last = {"t": started, "states": 0, "cpu": daemon.cpu_seconds(), "connects": 0}

    def report():
        now = time.monotonic()
        rss, _, threads = daemon.status()
        fds = daemon.fds()
        cpu = daemon.cpu_seconds()
        connected = soak.connected()
        interval = now - last["t"]
        states_per_s = (soak.stats.states - last["states"]) / interval
        connects_per_s = (soak.stats.connects - last["connects"]) / interval
        cpu_pct = 100 * (cpu - last["cpu"]) / interval
        last.update(t=now, states=soak.stats.states, cpu=cpu, connects=soak.stats.connects)
        samples.append((now - started, rss, fds, threads, connected))
        print(f"{now - started:6.0f} s  anon {fmt_mib(rss):>9}  fds {fds:5d}  threads {threads:2d}  "
              f"clients {connected:4d}  states/s {states_per_s:7.0f}  connects/s {connects_per_s:5.0f}  "
              f"cpu {cpu_pct:4.0f} %  violations {soak.stats.violation_count}", flush=True)

    failures = []
    try:
        completed = soak.run(MINUTES * 60, report, CLIENTS, MIX)
        if not completed:
            failures.append(f"orientd exited early (status {daemon.process.returncode})")
        soak.stop_clients()
        # Every client is gone: the daemon must give back every descriptor.
        deadline = time.monotonic() + 5
        final_fds = daemon.fds() if daemon.alive() else -1
        while daemon.alive() and final_fds != baseline_fds and time.monotonic() < deadline:
            time.sleep(0.05)
            final_fds = daemon.fds()
        final_rss, hwm, final_threads = daemon.status() if daemon.alive() else (0, 0, 0)
        status = daemon.stop()
        if status not in (0, None) and completed:
            failures.append(f"orientd exited with status {status} on SIGTERM")
        elif status is None:
            failures.append("orientd did not exit within 10 s of SIGTERM")
    finally:
        if daemon.alive():
            daemon.process.kill()
    log = daemon.log_text()
    elapsed = time.monotonic() - started

    stats = soak.stats
    print()
    print(f"soak summary ({elapsed / 60:.1f} min, {binary.name}, speed {SPEED}):")
    print(f"  clients: {stats.connects} connections ({stats.connects / elapsed:.0f}/s), "
          f"{stats.requests} requests, {stats.replies} replies, {stats.states} states "
          f"({stats.states / elapsed:.0f}/s; slow readers {stats.slow_states}), "
          f"{stats.refused} refused, {stats.connect_retries} connect retries (backlog full)")
    print(f"  closed by the daemon: {stats.closed_by_daemon} (slow readers {stats.slow_disconnected})")
    if samples:
        third = max(1, len(samples) // 3)
        first, last_third = samples[:third], samples[-third:]
        rss_first, rss_last = max(s[1] for s in first), max(s[1] for s in last_third)
        fds_first, fds_last = max(s[2] for s in first), max(s[2] for s in last_third)
        rss_allowed = max(rss_first * RSS_TOLERANCE, 2048)
        fds_allowed = max(fds_first * FD_TOLERANCE, 16)
        print(f"  anonymous memory: baseline {fmt_mib(baseline_rss)}, max first third {fmt_mib(rss_first)}, "
              f"max last third {fmt_mib(rss_last)} (allowed +{fmt_mib(rss_allowed)}), "
              f"peak (VmHWM) {fmt_mib(hwm)}, after the clients left {fmt_mib(final_rss)}")
        print(f"  fds: baseline {baseline_fds}, max first third {fds_first}, max last third {fds_last} "
              f"(allowed +{fds_allowed:.0f}), after the clients left {final_fds}")
        print(f"  threads: {sorted(set(s[3] for s in samples))}")
        if rss_last > rss_first + rss_allowed:
            failures.append(f"anonymous memory trends upward: {fmt_mib(rss_first)} -> {fmt_mib(rss_last)}")
        if fds_last > fds_first + fds_allowed:
            failures.append(f"fd count trends upward: {fds_first} -> {fds_last}")
    else:
        failures.append("no sample taken (run longer than 10 s)")
    if final_fds != baseline_fds:
        failures.append(f"fds did not return to the baseline {baseline_fds} after the clients left: {final_fds}")
    if stats.violation_count:
        kinds = ", ".join(f"{kind}: {count}" for kind, count in sorted(stats.violation_kinds.items(), key=lambda kv: -kv[1]))
        if stats.backward_events:
            kinds += f" (t_ms went back in {len(stats.backward_events)} distinct published states)"
        failures.append(f"{stats.violation_count} protocol violations ({kinds}); first ones:\n    "
                        + "\n    ".join(stats.violations))
    log_lines = [line for line in log.splitlines() if line.strip()]
    notable = [line for line in log_lines if not line.startswith(("orientd: notice:", "orientd: info:"))]
    print(f"  daemon log: {len(log_lines)} lines, {len(notable)} above notice")
    for line in notable[:10]:
        print(f"    {line}")
    if notable:
        failures.append(f"the daemon logged {len(notable)} warnings or errors")
    if os.environ.get("SOAK_KEEP"):
        print(f"  kept {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    if failures:
        print("SOAK FAILED:")
        for failure in failures:
            print(f"  - {failure}")
        return 1
    print("soak passed: anonymous memory and fds flat, no protocol violation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
