"""The soak's clients (scripts/soak.py): one connection each, a role's
script (subscriber, constrainer, locker, getter, slow reader), and every
reply checked as it arrives against the protocol's promises; `Stats` counts
what they saw and the promises broken. The loop that drives them is
soak_loop.py.
"""

import errno
import json
import random
import socket
import time

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


class Stats:
    """What the clients saw, and every broken promise of the protocol."""

    def __init__(self):
        self.states = 0
        self.replies = 0
        self.connects = 0
        self.refused = 0
        self.connect_retries = 0
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
