"""Fixtures for the calibration tests: systemd's hwdb matrices, the readings a
sensor mounted per a matrix gives, pose traces, and a driver for the wizard's
prompts. Plain Python (no numpy): 3x3 maths is a few lines."""

import math
import os
import re
import select
import subprocess
import time

HWDB = "/lib/udev/hwdb.d/60-sensor.hwdb"
G = 9.80665

#: What the panel reads in each pose and orientation (the hwdb convention, face up +z).
PANEL = {
    "upright": (0.0, -G, 0.0),
    "left-up": (G, 0.0, 0.0),
    "face-up": (0.0, 0.0, G),
    "normal": (0.0, -G, 0.0),
    "bottom-up": (0.0, G, 0.0),
    "right-up": (-G, 0.0, 0.0),
}
POSES = ("upright", "left-up", "face-up")
ORIENTATIONS = ("normal", "left-up", "bottom-up", "right-up")


def parse_matrix(text):
    """The rows of a mount matrix text (`x1, y1, z1; ...`), as floats."""
    rows = [[float(value) for value in row.split(",")] for row in text.strip().split(";")]
    assert len(rows) == 3 and all(len(row) == 3 for row in rows), text
    return [[value + 0.0 for value in row] for row in rows]  # -0 -> 0


def hwdb_matrices():
    """Every distinct ACCEL_MOUNT_MATRIX in systemd's hwdb, in order of first
    appearance: (text as written, rows). Spellings of one matrix (spaces,
    `-0`) count once."""
    seen = set()
    out = []
    with open(HWDB) as f:
        for line in f:
            match = re.match(r"^\s+ACCEL_MOUNT_MATRIX=(.*)$", line)
            if not match:
                continue
            text = match.group(1).strip()
            rows = parse_matrix(text)
            key = tuple(map(tuple, rows))
            if key not in seen:
                seen.add(key)
                out.append((text, rows))
    return out


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def norm(a):
    return math.sqrt(dot(a, a))


def determinant(m):
    return dot(m[0], cross(m[1], m[2]))


def as_daemon_reads(rows):
    """The matrix as orientd uses it: a z row in the plane of x and y (hwdb has
    two such) is rebuilt as x × y, scaled to the rows' mean length."""
    xy = cross(rows[0], rows[1])
    if abs(dot(xy, rows[2])) < 1e-3 * norm(xy) * norm(rows[2]):
        scale = (norm(rows[0]) + norm(rows[1])) / 2 / norm(xy)
        return [rows[0], rows[1], [v * scale for v in xy]]
    return rows


def inverse(m):
    det = determinant(m)
    columns = [cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1])]
    return [[columns[j][i] / det for j in range(3)] for i in range(3)]


def apply(m, v):
    return [dot(row, v) for row in m]


def sensor_reading(rows, panel):
    """What a sensor mounted per `rows` reads (m/s^2) when the panel reads `panel`."""
    return apply(inverse(as_daemon_reads(rows)), panel)


def angle(a, b):
    return math.degrees(math.acos(max(-1.0, min(1.0, dot(a, b) / (norm(a) * norm(b))))))


def equivalent(a, b, degrees=1.0):
    """Same panel reading, so the same orientation and tilt, for every direction."""
    a, b = as_daemon_reads(a), as_daemon_reads(b)
    return all(angle(apply(a, axis), apply(b, axis)) <= degrees for axis in ([1, 0, 0], [0, 1, 0], [0, 0, 1]))


def rotation_about_z(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]


def write_trace(path, segments, matrix="1, 0, 0; 0, 1, 0; 0, 0, 1", interval_ms=20):
    """A trace of `segments`, each a list of sensor-frame vectors, one every
    `interval_ms`."""
    lines = ["# orientd-trace: 1", f"# mount_matrix: {matrix}", "t_ms,x,y,z"]
    t = 0.0
    for segment in segments:
        for v in segment:
            lines.append(f"{t:g},{v[0]:.5f},{v[1]:.5f},{v[2]:.5f}")
            t += interval_ms
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class Wizard:
    """`orientctl calibrate` on pipes: what it printed so far, and answers to its prompts."""

    def __init__(self, args, env):
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env)
        self.output = b""
        self.seen = 0  # how much of `output` expect() has consumed

    def _read(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        ready, _, _ = select.select([self.process.stdout], [], [], remaining)
        if not ready:
            return False
        chunk = os.read(self.process.stdout.fileno(), 65536)
        if not chunk:
            return False
        self.output += chunk
        return True

    def expect(self, pattern, timeout=10.0):
        """Waits for `pattern` (regex) in the output after the last match; returns the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output.decode(errors="replace"), self.seen)
            if match:
                self.seen = match.end()
                return match
            if not self._read(deadline) and (time.monotonic() >= deadline or self.process.poll() is not None):
                # One last look at what is buffered.
                while self._read(time.monotonic() + 0.05):
                    pass
                match = regex.search(self.output.decode(errors="replace"), self.seen)
                if match:
                    self.seen = match.end()
                    return match
                raise AssertionError(
                    f"calibrate did not print /{pattern}/ within {timeout:g} s; it printed:\n"
                    f"{self.output.decode(errors='replace')}\nstderr: {self._stderr()}")

    def send(self, text):
        self.process.stdin.write(text.encode())
        self.process.stdin.flush()

    def finish(self, timeout=10.0):
        """Closes stdin and waits for the exit; (status, stdout, stderr)."""
        self.process.stdin.close()
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(min(deadline, time.monotonic() + 0.1))
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"calibrate did not exit within {timeout:g} s")
        while self._read(time.monotonic() + 0.05):
            pass
        return self.process.returncode, self.output.decode(errors="replace"), self._stderr()

    def _stderr(self):
        if self.process.poll() is None:
            return "(still running)"
        return self.process.stderr.read().decode(errors="replace")

    def kill(self):
        """Ends the wizard if it still runs, and closes the pipes."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            pipe.close()


def entry_in(text):
    """(key, matrix) of the hwdb entry calibrate printed."""
    match = re.search(r"^(sensor:\S.*)\n ACCEL_MOUNT_MATRIX=(.*)$", text, re.M)
    assert match, f"no hwdb entry in:\n{text}"
    return match.group(1), match.group(2)
