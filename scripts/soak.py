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
"""

import errno
import heapq
import json
import os
import random
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRACE = REPO / "traces" / "demo.trace"
ORIENTATIONS = ["normal", "left-up", "bottom-up", "right-up"]
MASKS = ORIENTATIONS + ["portrait", "landscape", "all", "all-but-upside-down"]
REPLY_OF = {
    "get": "state",
    "subscribe": "state",
    "unsubscribe": "ok",
    "constrain": "ok",
    "release": "ok",
    "lock": "ok",
    "unlock": "ok",
}
REPORT_EVERY_S = 10.0


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


# MARK: Clients


class Stats:
    def __init__(self):
        self.states = 0
        self.replies = 0
        self.connects = 0
        self.refused = 0
        self.connect_retries = 0
        self.closed_by_us = 0
        self.closed_by_daemon = 0
        self.requests = 0
        self.slow_disconnected = 0
        self.violations = []
        self.violation_count = 0
        self.violation_kinds = {}
        self.backward_events = set()  # distinct (before, after) t_ms pairs
        self.slow_states = 0

    def violation(self, client, what, kind=None):
        """Records a broken promise of the protocol; `kind` groups them in the summary."""
        self.violation_count += 1
        kind = kind or what
        self.violation_kinds[kind] = self.violation_kinds.get(kind, 0) + 1
        if len(self.violations) < 12:
            self.violations.append(f"{client.role} #{client.ident}: {what}")


class Client:
    """One connection and its role's script; driven by the Soak loop."""

    counter = 0

    def __init__(self, soak, role):
        Client.counter += 1
        self.ident = Client.counter
        self.soak = soak
        self.role = role
        self.sock = None
        self.rbuf = b""
        self.wbuf = b""
        self.hello = False
        self.read_timer_only = False
        self.subscribed = False
        self.unsubscribed = False  # an unsubscribe's ok arrived: no more states
        self.pending = []  # (seq, op, expectation) in request order
        self.seq = 0
        self.last_t = None
        self.ids = []
        self.closing = False
        self.half_closed = False
        self.done = False
        self.end_at = None

    # Connection

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if self.role == "slow":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        try:
            sock.connect(self.soak.daemon.socket_path)
        except (BlockingIOError, InterruptedError):
            # AF_UNIX: the listen backlog is full. Try again shortly.
            sock.close()
            self.soak.stats.connect_retries += 1
            self.soak.later(0.01, self.connect)
            return
        except OSError as error:
            sock.close()
            if error.errno in (errno.EAGAIN, errno.ECONNREFUSED):
                self.soak.stats.connect_retries += 1
                self.soak.later(0.05, self.connect)
                return
            raise
        self.sock = sock
        self.soak.stats.connects += 1
        self.soak.register(self)

    def close(self, by_daemon=False):
        if self.done:
            return
        self.done = True
        if self.sock is not None:
            self.soak.unregister(self)
            self.sock.close()
            self.sock = None
        if by_daemon:
            self.soak.stats.closed_by_daemon += 1
            if self.role == "slow":
                self.soak.stats.slow_disconnected += 1
                self.soak.stats.violation(self, "slow reader disconnected by the daemon")
            elif not self.half_closed:
                self.soak.stats.violation(self, "connection closed by the daemon")
        else:
            self.soak.stats.closed_by_us += 1
        self.soak.replace(self)

    # Requests

    def send(self, op, expect=None, **fields):
        if self.done or self.closing or self.half_closed:
            return
        self.seq += 1
        request = {"op": op, **fields, "seq": self.seq}
        self.pending.append((self.seq, op, expect or REPLY_OF[op]))
        self.soak.stats.requests += 1
        self.write((json.dumps(request, separators=(",", ":")) + "\n").encode())

    def write(self, data):
        self.wbuf += data
        self.flush()

    def flush(self):
        while self.wbuf and self.sock is not None:
            try:
                sent = self.sock.send(self.wbuf)
            except BlockingIOError:
                break
            except (BrokenPipeError, ConnectionResetError):
                self.close(by_daemon=True)
                return
            self.wbuf = self.wbuf[sent:]
        if self.sock is not None:
            self.soak.want_write(self, bool(self.wbuf))

    # Reading

    def on_readable(self, limit=65536):
        try:
            data = self.sock.recv(limit)
        except BlockingIOError:
            return
        except ConnectionResetError:
            self.close(by_daemon=True)
            return
        if not data:
            self.on_eof()
            return
        self.rbuf += data
        while True:
            line, newline, rest = self.rbuf.partition(b"\n")
            if not newline:
                break
            self.rbuf = rest
            self.on_line(line)
            if self.done:
                return

    def on_eof(self):
        if self.half_closed:
            # We shut our write side: every request must have been answered.
            if self.pending:
                self.soak.stats.violation(self, f"EOF with {len(self.pending)} replies missing after shutdown", kind="replies missing at EOF")
            self.close()
        else:
            self.close(by_daemon=True)

    def on_line(self, line):
        try:
            message = json.loads(line)
        except ValueError:
            self.soak.stats.violation(self, f"not JSON: {line[:120]!r}", kind="not JSON")
            return
        kind = message.get("type")
        if not self.hello:
            if kind == "hello" and message.get("protocol") == 1:
                self.hello = True
                self.on_hello()
            elif kind == "error" and message.get("code") == "limit":
                self.soak.stats.refused += 1
                self.close()
            else:
                self.soak.stats.violation(self, f"first line is not hello: {line[:120]!r}", kind="no hello")
                self.close()
            return
        if kind == "state":
            self.check_state(message)
        if "seq" in message:
            self.soak.stats.replies += 1
            if not self.pending:
                self.soak.stats.violation(self, f"reply to no request: {line[:120]!r}", kind="reply to no request")
                return
            seq, op, expect = self.pending.pop(0)
            if message["seq"] != seq:
                self.soak.stats.violation(self, f"reply out of order: seq {message['seq']}, expected {seq}", kind="reply out of order")
            got = kind if kind != "error" else f"error:{message.get('code')}"
            if got != expect:
                self.soak.stats.violation(self, f"{op} got {got}, expected {expect}: {line[:160]!r}",
                                          kind=f"{op}: {got} instead of {expect}")
            self.on_reply(op, message)
        elif kind == "state":
            if not self.subscribed:
                self.soak.stats.violation(self, "pushed state without a subscription")
            elif self.unsubscribed:
                self.soak.stats.violation(self, "pushed state after the unsubscribe's ok")
        elif kind in ("ok", "error"):
            self.soak.stats.violation(self, f"reply without seq: {line[:120]!r}", kind="reply without seq")

    def check_state(self, message):
        self.soak.stats.states += 1
        if self.role == "slow":
            self.soak.stats.slow_states += 1
        t = message.get("t_ms")
        if not isinstance(t, (int, float)):
            self.soak.stats.violation(self, f"state without t_ms: {message}", kind="state without t_ms")
            return
        if message.get("orientation") not in message.get("allowed", []):
            self.soak.stats.violation(self, f"orientation not in allowed: {message}", kind="orientation not allowed")
        if self.last_t is not None and t < self.last_t:
            self.soak.stats.backward_events.add((self.last_t, t))
            self.soak.stats.violation(self, f"t_ms went back from {self.last_t} to {t}", kind="t_ms went back")
        self.last_t = t

    # Scripts per role

    def start(self):
        lifetimes = {
            "subscriber": (2, 30),
            "constrainer": (3, 40),
            "locker": (10, 60),
            "getter": (0, 0),
            "slow": (60, 180),
        }
        low, high = lifetimes[self.role]
        self.end_at = time.monotonic() + random.uniform(low, high)
        self.connect()

    def on_hello(self):
        if self.role == "subscriber":
            self.subscribed = True
            self.send("subscribe")
            self.soak.at(self.end_at, self.leave)
        elif self.role == "constrainer":
            if random.random() < 0.5:
                self.subscribed = True
                self.send("subscribe")
            self.soak.later(random.uniform(0, 1), self.constrain_step)
            self.soak.at(self.end_at, self.leave)
        elif self.role == "locker":
            self.soak.later(random.uniform(0, 2), self.lock_step)
            self.soak.at(self.end_at, self.leave)
        elif self.role == "getter":
            self.send("get")
        elif self.role == "slow":
            self.subscribed = True
            self.send("subscribe")
            self.soak.unregister_read(self)  # from now on read only on its timer
            self.soak.later(random.uniform(2, 5), self.slow_read)
            self.soak.at(self.end_at, self.leave)

    def on_reply(self, op, message):
        if self.role == "getter" and not self.pending:
            self.close()
        elif op == "unsubscribe":
            self.unsubscribed = True
            if self.closing and not self.pending:
                self.close()

    def constrain_step(self):
        if self.done or self.closing or self.half_closed:
            return
        roll = random.random()
        if roll < 0.35 and len(self.ids) < 5:
            ident = f"c{self.ident}-{random.randrange(1 << 30)}"
            self.ids.append(ident)
            self.send("constrain", id=ident, allow=random.sample(MASKS, random.randint(1, 3)))
        elif roll < 0.65 and self.ids:
            self.send("constrain", id=random.choice(self.ids), allow=random.sample(MASKS, random.randint(1, 3)))
        elif roll < 0.85 and self.ids:
            ident = self.ids.pop(random.randrange(len(self.ids)))
            self.send("release", id=ident)
        elif roll < 0.92:
            self.send("release", expect="error:unknown-id", id=f"never-{random.randrange(1 << 30)}")
        else:
            self.send("get")
        self.soak.later(random.uniform(0.2, 1.5), self.constrain_step)

    def lock_step(self):
        if self.done or self.closing or self.half_closed:
            return
        roll = random.random()
        if roll < 0.3:
            self.send("lock", orientation="current")
        elif roll < 0.6:
            self.send("lock", orientation=random.choice(ORIENTATIONS))
        else:
            self.send("unlock")
        self.soak.later(random.uniform(1, 4), self.lock_step)

    def slow_read(self):
        if self.done:
            return
        self.on_readable(limit=1024)
        if not self.done:
            self.soak.later(random.uniform(2, 5), self.slow_read)

    def leave(self):
        if self.done or self.closing:
            return
        roll = random.random()
        if self.role == "subscriber" and roll < 0.2:
            # Unsubscribe, wait for the ok (no state may follow it), then close.
            self.send("unsubscribe")
            self.closing = True
            self.soak.later(10, self.close)  # in case the ok never comes (a violation then)
        elif self.role in ("subscriber", "constrainer") and roll < 0.3:
            # End of file: the daemon must still answer what it read, then close.
            if self.role == "constrainer":
                self.send("get")
            self.half_closed = True
            try:
                self.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            self.soak.later(10, self.timeout_half_closed)
        else:
            self.close()

    def timeout_half_closed(self):
        if not self.done:
            self.soak.stats.violation(self, "no EOF within 10 s of shutting down the write side")
            self.close()


# MARK: The loop


class Soak:
    def __init__(self, daemon):
        self.daemon = daemon
        self.stats = Stats()
        self.selector = selectors.DefaultSelector()
        self.timers = []  # heap of (when, n, callback)
        self.timer_n = 0
        self.clients = set()
        self.running = True
        self.writers = set()

    def at(self, when, callback):
        self.timer_n += 1
        heapq.heappush(self.timers, (when, self.timer_n, callback))

    def later(self, delay, callback):
        self.at(time.monotonic() + delay, callback)

    def register(self, client):
        self.clients.add(client)
        self.selector.register(client.sock, selectors.EVENT_READ, client)

    def unregister(self, client):
        self.clients.discard(client)
        self.writers.discard(client)
        try:
            self.selector.unregister(client.sock)
        except (KeyError, ValueError):
            pass

    def unregister_read(self, client):
        # A slow reader: keep it in the selector only while it has bytes to write.
        client.read_timer_only = True
        self.want_write(client, bool(client.wbuf))

    def want_write(self, client, wanted):
        events = (0 if client.read_timer_only else selectors.EVENT_READ) | (selectors.EVENT_WRITE if wanted else 0)
        registered = client.sock in self.selector.get_map()
        if events == 0:
            if registered:
                self.selector.unregister(client.sock)
        elif registered:
            self.selector.modify(client.sock, events, client)
        else:
            self.selector.register(client.sock, events, client)

    def replace(self, client):
        if not self.running:
            return
        delay = random.uniform(0.05, 0.5) if client.role == "getter" else random.uniform(0, 0.5)
        self.later(delay, lambda: self.spawn(client.role))

    def spawn(self, role):
        if self.running:
            Client(self, role).start()

    def connected(self):
        return sum(1 for client in self.clients if client.hello and not client.done)

    def run(self, seconds, report):
        for role, share in MIX.items():
            for _ in range(max(1, round(CLIENTS * share))):
                # Stagger the start over the first two seconds.
                self.later(random.uniform(0, 2), lambda role=role: self.spawn(role))
        end = time.monotonic() + seconds
        next_report = time.monotonic() + REPORT_EVERY_S
        while time.monotonic() < end:
            now = time.monotonic()
            while self.timers and self.timers[0][0] <= now:
                _, _, callback = heapq.heappop(self.timers)
                callback()
            timeout = min(0.05, max(0.0, (self.timers[0][0] - now) if self.timers else 0.05))
            for key, events in self.selector.select(timeout):
                client = key.data
                if events & selectors.EVENT_WRITE and not client.done:
                    client.flush()
                if events & selectors.EVENT_READ and not client.done:
                    client.on_readable()
            if time.monotonic() >= next_report:
                next_report += REPORT_EVERY_S
                report()
            if not self.daemon.alive():
                return False
        return True

    def stop_clients(self):
        self.running = False
        for client in list(self.clients):
            client.close()
        self.timers.clear()


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
        completed = soak.run(MINUTES * 60, report)
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
