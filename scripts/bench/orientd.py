"""orientd for `make bench`: the release daemon started on a private socket,
state directory and configuration (`Orientd`), a blocking protocol client
for setup (`Client`), and a subscriber that times every state line on its
own thread (`StateWatcher`).
"""

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

from common import ORIENTD, stop_process, wait_until


class Orientd:
    def __init__(self, workdir, env, config_text, name):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.socket = str(self.workdir / "s.sock")
        (self.workdir / "state").mkdir(exist_ok=True)
        config = self.workdir / "orientd.conf"
        config.write_text(config_text)
        self.log_path = self.workdir / "orientd.log"
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(ORIENTD), "--socket", self.socket, "--state-dir", str(self.workdir / "state"), "--config", str(config)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log, env=env)
        self.pid = self.process.pid
        self.name = name
        wait_until(self._listening, 10, f"{name} to listen")

    def _listening(self):
        if self.process.poll() is not None:
            raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {self.log_text()[-2000:]}")
        if not os.path.exists(self.socket):
            return False
        # The path exists from bind(2) on, but connections are refused until listen(2).
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(self.socket)
            return True
        except (ConnectionRefusedError, FileNotFoundError):
            return False
        finally:
            probe.close()

    def log_text(self):
        return self.log_path.read_text(errors="replace")

    def stop(self):
        stop_process(self.process)
        self._log.close()


class Client:
    """A blocking protocol client (setup only; the timed reading is done by
    StateWatcher's own thread)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buffer = b""
        hello = self.line()
        if hello.get("type") != "hello":
            raise RuntimeError(f"orientd refused a client: {hello}")

    def line(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("orientd closed the connection")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def request(self, op, **fields):
        self.sock.sendall(json.dumps({"op": op, "seq": 1, **fields}).encode() + b"\n")
        while True:
            message = self.line()
            if message.get("seq") == 1:
                return message

    def close(self):
        self.sock.close()


class StateWatcher(threading.Thread):
    """One subscriber that records (monotonic time of receipt, orientation) for
    every state line, timed right after recv() returns."""

    def __init__(self, client):
        super().__init__(daemon=True)
        self.client = client
        reply = client.request("subscribe")
        self.current = reply["orientation"]
        self.events = []
        self.client.sock.settimeout(None)
        self.stopped = False

    def run(self):
        buffer = self.client.buffer
        while not self.stopped:
            try:
                chunk = self.client.sock.recv(65536)
            except OSError:
                return
            at = time.monotonic()
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, _, buffer = buffer.partition(b"\n")
                message = json.loads(line)
                if message.get("type") == "state":
                    self.current = message["orientation"]
                    self.events.append((at, message["orientation"]))

    def stop(self):
        self.stopped = True
        try:
            self.client.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.client.close()
