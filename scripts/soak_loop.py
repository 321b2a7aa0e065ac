"""The soak's loop (scripts/soak.py): one selector and a heap of timers,
no threads; it spawns the clients of soak_clients.py in the mix asked for,
replaces each one that leaves, and reports every REPORT_EVERY_S.
"""

import heapq
import random
import selectors
import time

from soak_clients import Client, Stats

REPORT_EVERY_S = 10.0


class Soak:
    def __init__(self, daemon):
        self.daemon = daemon
        self.stats = Stats()
        self.selector = selectors.DefaultSelector()
        self.timers = []  # heap of (when, n, callback)
        self.timer_n = 0
        self.clients = set()
        self.running = True

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

    def run(self, seconds, report, clients, mix):
        """About `clients` clients at once, split by `mix` ({role: share}),
        for `seconds`, calling `report` every REPORT_EVERY_S: False when the
        daemon exited early."""
        for role, share in mix.items():
            for _ in range(max(1, round(clients * share))):
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
