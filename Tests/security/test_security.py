"""Who may do what (docs/security.md), against the real daemon with clients of
three uids: root, a seat user and nobody.

Clients run as other uids through `setpriv --reuid --regid --clear-groups`
(no accounts needed: the kernel reports the uid with SO_PEERCRED). logind is
not running here, so the seat user is uid 1000 through the config fallback
`seat-users = 1000`; with logind running (`Tests/seat/check-logind-seat.sh`),
the seat comes from the active session instead.

Also: the client table cannot be exhausted by one uid, one client cannot make
the published state change faster than `changes-per-second`, raw samples are
refused or capped, and the socket and state paths are handled without
following symlinks, blocking on FIFOs or trusting directories another user owns.

Run as root: /usr/bin/python3 -m unittest discover -s Tests/security -v
"""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness
from orientd_harness import DEMO, TRACES, OrientdTestCase, stop_process, wait_until  # noqa: E402

CALL = TRACES / "call-and-dark-room.trace"
PYTHON = "/usr/bin/python3"

NOBODY = 65534
SEAT_USER = 1000
OTHER_USER = 1001

CAN_SWITCH_UID = os.geteuid() == 0 and shutil.which("setpriv") is not None and os.path.exists(PYTHON)

# The client, run as another uid: one JSON request per line on stdin, every line
# the daemon sends on stdout (hello first). Exits when stdin or the socket closes.
CLIENT = r"""
import socket, sys, threading
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
def pump():
    f = s.makefile("rb")
    for line in f:
        sys.stdout.buffer.write(line); sys.stdout.flush()
    sys.stdout.close()
reader = threading.Thread(target=pump, daemon=True)
reader.start()
for line in sys.stdin.buffer:
    s.sendall(line)
s.shutdown(socket.SHUT_WR)
reader.join(5)
"""

# Opens argv[2] connections as fast as it can and holds them: prints
# "accepted N refused M" (hello vs a `limit` error), then waits for stdin to close.
HOG = r"""
import socket, sys
accepted = refused = 0
held = []
for _ in range(int(sys.argv[2])):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.settimeout(10)
    line = s.makefile("rb").readline()
    if b'"hello"' in line:
        accepted += 1
        held.append(s)
    else:
        refused += 1
        s.close()
print("accepted", accepted, "refused", refused, flush=True)
sys.stdin.read()
"""

# Flaps a constraint and the lock as fast as it can for argv[2] seconds without
# reading replies (a thread drains them), then sets its last constraint and lock
# and prints "done", keeping the connection until stdin closes.
FLAPPER = r"""
import socket, sys, threading, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
def drain():
    while s.recv(1 << 16):
        pass
threading.Thread(target=drain, daemon=True).start()
a = b'{"op":"constrain","id":"x","allow":["bottom-up","normal"]}\n{"op":"lock","orientation":"normal"}\n'
b = b'{"op":"constrain","id":"x","allow":["left-up","normal"]}\n{"op":"lock","orientation":"bottom-up"}\n'
end = time.monotonic() + float(sys.argv[2])
sent = 0
while time.monotonic() < end:
    s.sendall(a + b)
    sent += 4
s.sendall(b'{"op":"constrain","id":"x","allow":["right-up"]}\n{"op":"lock","orientation":"right-up"}\n')
print("done", sent, flush=True)
sys.stdin.read()
"""


def read(path):
    with open(path) as f:
        return f.read()


def as_uid(uid, *argv):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]


class Client:
    """A protocol client running as `uid` (a setpriv'd python process)."""

    def __init__(self, socket_path, uid):
        self.process = subprocess.Popen(
            as_uid(uid, PYTHON, "-c", CLIENT, socket_path),
            # Unbuffered: readline() takes one line and leaves the next in the
            # pipe, where select() sees it.
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.hello = self.line()
        if self.hello.get("type") != "hello":
            raise AssertionError(f"uid {uid} got {self.hello} instead of hello")

    def line(self, timeout=10.0):
        """The next line from the daemon, parsed (times out rather than hang)."""
        import select
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            raise AssertionError("no reply within the deadline")
        raw = self.process.stdout.readline()
        if not raw:
            raise AssertionError(f"connection closed; client stderr: {self.process.stderr.read().decode()}")
        return json.loads(raw)

    def request(self, **fields):
        self.process.stdin.write((json.dumps(fields) + "\n").encode())
        self.process.stdin.flush()
        return self.line()

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                stop_process(self.process, signal.SIGKILL)
        self.process.stdout.close()
        self.process.stderr.close()


def write_still_trace(path, rate_hz, seconds):
    """A trace of the device held upright and still, at `rate_hz`."""
    period = 1000.0 / rate_hz
    with open(path, "w") as f:
        f.write(f"# orientd-trace: 1\n# rate_hz: {rate_hz}\n# description: still, upright\nt_ms,x,y,z\n")
        for i in range(int(rate_hz * seconds)):
            f.write(f"{i * period:.3f},0.0000,-9.7000,1.7000\n")


@unittest.skipUnless(CAN_SWITCH_UID, "needs root, setpriv and /usr/bin/python3 to run clients as other uids")
class SecurityTestCase(OrientdTestCase):
    """Starts one daemon per test in a private directory reachable by every uid."""

    def setUp(self):
        super().setUp()
        os.chmod(self.workdir, 0o755)
        self.socket_path = os.path.join(self.workdir, "orientd.sock")
        self.state_dir = os.path.join(self.workdir, "state")
        self.config_path = os.path.join(self.workdir, "orientd.conf")
        self.children = []
        self.addCleanup(self._end_children)

    def _end_children(self):
        for child in self.children:
            stop_process(child, signal.SIGKILL)
            for stream in (child.stdin, child.stdout):
                if stream:
                    stream.close()

    def start(self, config="", trace=DEMO, socket_path=None, state_dir=None, wait=True, umask=0o077):
        with open(self.config_path, "w") as f:
            f.write(config)
        self.socket_path = socket_path or self.socket_path
        self.start_daemon("--mock", trace, "--loop", "--config", self.config_path, socket=self.socket_path,
                          state_dir=state_dir or self.state_dir, wait=wait, umask=umask)

    def stop(self):
        self.daemon.stop()

    def stderr(self):
        return self.daemon.log()

    def client(self, uid):
        client = Client(self.socket_path, uid)
        self.clients.append(client)
        return client

    def spawn(self, uid, code, *args):
        child = subprocess.Popen(
            as_uid(uid, PYTHON, "-c", code, self.socket_path, *map(str, args)),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.children.append(child)
        return child

    def reload(self, config):
        with open(self.config_path, "w") as f:
            f.write(config)
        before = self.stderr().count("configuration reloaded")
        self.daemon.process.send_signal(signal.SIGHUP)
        self.daemon.wait_for_log("configuration reloaded", timeout=10, count=before + 1)

    def assertRefused(self, reply, key):
        self.assertEqual((reply.get("type"), reply.get("code")), ("error", "not-permitted"), reply)
        self.assertIn(key, reply["message"])
        self.assertIn(self.config_path, reply["message"], "the refusal must say where to change the policy")


SEAT_CONFIG = f"[daemon]\nseat-users = {SEAT_USER}\n"


class PolicyTests(SecurityTestCase):
    def test_anyone_may_get_and_subscribe(self):
        """get and subscribe are for every uid"""
        self.start(SEAT_CONFIG)
        for uid in (0, SEAT_USER, NOBODY):
            client = self.client(uid)
            self.assertEqual(client.request(op="get", seq=1)["type"], "state")
            self.assertEqual(client.request(op="subscribe", seq=2)["type"], "state")

    def test_constrain_is_for_root_and_the_seat(self):
        """nobody's constrain is refused, naming constrain-permission; the seat user's and root's apply"""
        self.start(SEAT_CONFIG)
        root, seat, nobody = self.client(0), self.client(SEAT_USER), self.client(NOBODY)
        self.assertRefused(nobody.request(op="constrain", id="x", allow=["bottom-up"], seq=1), "constrain-permission")
        self.assertEqual(root.request(op="get")["allowed"], ["normal", "left-up", "bottom-up", "right-up"])
        self.assertEqual(seat.request(op="constrain", id="x", allow=["left-up", "bottom-up"]), {"type": "ok"})
        self.assertEqual(root.request(op="constrain", id="r", allow=["left-up"]), {"type": "ok"})
        wait_until(lambda: root.request(op="get")["allowed"] == ["left-up"], 10, "both constraints to apply")
        # Releasing is always allowed: it only removes the caller's own constraint.
        self.assertEqual(nobody.request(op="release", id="x")["code"], "unknown-id")

    def test_lock_is_for_root_and_the_seat(self):
        """nobody may neither lock nor unlock; the seat user and root may"""
        self.start(SEAT_CONFIG)
        root, seat, nobody = self.client(0), self.client(SEAT_USER), self.client(NOBODY)
        self.assertRefused(nobody.request(op="lock", orientation="bottom-up"), "lock-permission")
        self.assertEqual(seat.request(op="lock", orientation="left-up"), {"type": "ok"})
        self.assertRefused(nobody.request(op="unlock"), "lock-permission")
        self.assertEqual(root.request(op="get")["locked"], "left-up")
        self.assertEqual(seat.request(op="unlock"), {"type": "ok"})
        self.assertIsNone(root.request(op="get")["locked"])
        self.assertEqual(root.request(op="lock", orientation="normal"), {"type": "ok"})

    def test_same_user_lock_cannot_be_squatted(self):
        """lock-permission = same-user: nobody cannot take the lock; another seat user cannot take
        the owner's lock until the owner leaves the seat"""
        self.start(f"[daemon]\nlock-permission = same-user\nseat-users = {SEAT_USER}, {OTHER_USER}\n")
        nobody = self.client(NOBODY)
        self.assertRefused(nobody.request(op="lock", orientation="bottom-up"), "lock-permission")
        seat = self.client(SEAT_USER)
        self.assertEqual(seat.request(op="lock", orientation="left-up"), {"type": "ok"})
        other = self.client(OTHER_USER)
        refusal = other.request(op="unlock")
        self.assertRefused(refusal, "lock-permission")
        self.assertIn(f"uid {SEAT_USER}", refusal["message"])
        # The owner leaves the seat: the one who holds it now may change the lock.
        self.reload(f"[daemon]\nlock-permission = same-user\nseat-users = {OTHER_USER}\n")
        self.assertEqual(other.request(op="unlock"), {"type": "ok"})
        self.assertRefused(seat.request(op="lock", orientation="normal"), "lock-permission")

    def test_the_seat_is_checked_per_request(self):
        """a connection opened before its uid held the seat may constrain once it does, and its
        constraints stop counting when the seat moves on"""
        self.start("")
        root, user = self.client(0), self.client(SEAT_USER)
        self.assertRefused(user.request(op="constrain", id="x", allow=["right-up"]), "constrain-permission")
        self.reload(SEAT_CONFIG)
        self.assertEqual(user.request(op="constrain", id="x", allow=["right-up"]), {"type": "ok"})
        wait_until(lambda: root.request(op="get")["allowed"] == ["right-up"], 10, "the seat user's constraint")
        self.reload("")
        wait_until(lambda: root.request(op="get")["allowed"] == ["normal", "left-up", "bottom-up", "right-up"], 10,
                   "the former seat user's constraint to stop counting")

    def test_policies_can_be_opened_and_closed(self):
        """constrain-permission = anyone lets nobody constrain; samples-permission = off refuses even root"""
        self.start("[daemon]\nconstrain-permission = anyone\nsamples-permission = off\n")
        nobody, root = self.client(NOBODY), self.client(0)
        self.assertEqual(nobody.request(op="constrain", id="x", allow=["bottom-up"]), {"type": "ok"})
        wait_until(lambda: root.request(op="get")["allowed"] == ["bottom-up"], 10, "nobody's constraint")
        self.assertRefused(root.request(op="samples"), "samples-permission")

    def test_sensors_are_for_root_and_the_seat(self):
        """watch-sensors: nobody is refused, naming sensors-permission (a proximity sensor tells when a
        phone is at an ear); the seat user and root get the readings; stopping is always allowed"""
        self.start(SEAT_CONFIG, trace=CALL)
        nobody = self.client(NOBODY)
        self.assertRefused(nobody.request(op="watch-sensors", sensors=["proximity"], seq=1), "sensors-permission")
        self.assertEqual(nobody.request(op="watch-sensors", sensors=[]), {"type": "ok", "sensors": []})
        for uid in (0, SEAT_USER):
            reply = self.client(uid).request(op="watch-sensors", sensors=["light", "proximity"])
            self.assertEqual(reply["type"], "ok", reply)
            self.assertEqual([entry["sensor"] for entry in reply["sensors"]], ["light", "proximity"])
            self.assertTrue(all(entry["present"] for entry in reply["sensors"]), reply)

    def test_a_watcher_that_leaves_the_seat_gets_no_more_readings(self):
        """the seat is checked at every pushed reading too: after the seat moves on, the former seat
        user's watch stays registered but nothing is pushed to it, while root's readings go on"""
        self.start(SEAT_CONFIG, trace=CALL)
        root, user = self.client(0), self.client(SEAT_USER)
        for client in (root, user):
            self.assertEqual(client.request(op="watch-sensors", sensors=["light", "proximity"])["type"], "ok")
        def drain(client, seq):
            """Reads past the readings already sent, up to the reply to a get."""
            client.process.stdin.write((json.dumps({"op": "get", "seq": seq}) + "\n").encode())
            client.process.stdin.flush()
            while (line := client.line()).get("seq") != seq:
                self.assertEqual(line.get("type"), "sensor", line)

        self.reload("")
        drain(user, 4)  # what was pushed before the reload took effect
        pushed = 0
        while pushed < 2:
            line = root.line(timeout=20)
            if line.get("type") == "sensor":
                pushed += 1
        # The next line the former seat user gets is the reply to its get, not a reading.
        self.assertEqual(user.request(op="get", seq=5)["type"], "state")
        self.assertRefused(user.request(op="watch-sensors", sensors=["light"]), "sensors-permission")

    def test_samples_are_for_root_by_default(self):
        """samples: root gets them; the seat user and nobody are refused, naming samples-permission"""
        self.start(SEAT_CONFIG)
        for uid in (SEAT_USER, NOBODY):
            self.assertRefused(self.client(uid).request(op="samples"), "samples-permission")
        reply = self.client(0).request(op="samples")
        self.assertEqual(reply["type"], "ok", reply)


class SampleCapTests(SecurityTestCase):
    def test_samples_to_others_than_root_are_capped(self):
        """samples-permission = seat: the seat user gets at most samples-rate a second (sensor clock),
        root every sample of a 200 Hz sensor"""
        trace = os.path.join(self.workdir, "still-200hz.trace")
        write_still_trace(trace, 200, 10)
        self.start(SEAT_CONFIG + "samples-permission = seat\n[limits]\nsamples-rate = 50\n", trace=trace)
        seat, root = self.client(SEAT_USER), self.client(0)
        self.assertEqual(seat.request(op="samples")["rate_hz"], 50)
        self.assertEqual(root.request(op="samples")["rate_hz"], 200)

        def times(client, count):
            found = []
            while len(found) < count:
                line = client.line()
                if line.get("type") == "sample":
                    found.append(line["t_ms"])
            return found

        seat_times, root_times = times(seat, 40), times(root, 40)
        seat_gaps = [b - a for a, b in zip(seat_times, seat_times[1:])]
        root_gaps = [b - a for a, b in zip(root_times, root_times[1:])]
        self.assertGreaterEqual(min(seat_gaps), 18, seat_gaps)
        self.assertAlmostEqual(sum(seat_gaps) / len(seat_gaps), 20, delta=1, msg=seat_gaps)
        self.assertAlmostEqual(max(root_gaps), 5, delta=0.01, msg=root_gaps)


class ClientTableTests(SecurityTestCase):
    def hog(self, uid, count):
        child = self.spawn(uid, HOG, count)
        line = child.stdout.readline().split()
        self.assertEqual(line[0::2], ["accepted", "refused"], line)
        return int(line[1]), int(line[3])

    def test_one_uid_gets_at_most_clients_per_uid(self):
        """a 300-connection hog from nobody gets clients-per-uid (64) slots; another uid still connects"""
        self.start(SEAT_CONFIG)
        self.assertEqual(self.hog(NOBODY, 300), (64, 236))
        self.assertEqual(self.client(OTHER_USER).request(op="get")["type"], "state")

    def test_the_last_slots_are_reserved_for_root_and_the_seat(self):
        """with no per-uid cap to speak of, a 300-connection hog from nobody still leaves
        reserved-clients slots that root and the seat user can take and no other uid can"""
        self.start(SEAT_CONFIG + "[limits]\nclients = 256\nclients-per-uid = 1000\nreserved-clients = 32\n")
        self.assertEqual(self.hog(NOBODY, 300), (224, 76))
        self.assertEqual(self.hog(OTHER_USER, 1), (0, 1))
        self.assertEqual(self.client(SEAT_USER).request(op="get")["type"], "state")
        self.assertEqual(self.client(0).request(op="get")["type"], "state")
        # 77 refusals: the log says so in a line or two, not 77.
        refusals = [line for line in self.stderr().splitlines() if "refused" in line]
        self.assertTrue(1 <= len(refusals) <= 2, refusals)
        self.assertIn("reserved-clients", refusals[0])


class RateLimitTests(SecurityTestCase):
    def test_a_flapping_client_changes_the_state_at_most_changes_per_second(self):
        """a seat client flapping constraints and the lock for 2 s makes subscribers see at most
        changes-per-second changes a second, the lock file is rewritten at most once a second,
        and its last requests win"""
        # A reply buffer large enough that the flapper, whose replies a Python
        # thread drains, is never disconnected for not reading them.
        self.start(SEAT_CONFIG + "[limits]\nchanges-per-second = 10\nreply-buffer = 16777216\n",
                   trace=TRACES / "cardinal-normal.trace")
        subscriber = self.client(0)
        subscriber.request(op="subscribe")
        flapper = self.spawn(SEAT_USER, FLAPPER, 2)
        lock_file = os.path.join(self.state_dir, "lock")
        inodes = set()
        states = []
        import select
        started = time.monotonic()
        while flapper.poll() is None and time.monotonic() - started < 2.2:
            try:
                inodes.add(os.stat(lock_file).st_ino)
            except FileNotFoundError:
                pass
            ready, _, _ = select.select([subscriber.process.stdout], [], [], 0.001)
            if ready:
                states.append(subscriber.line())
        done = flapper.stdout.readline().split()
        self.assertEqual(done[:1], ["done"])
        sent = int(done[1])

        # Latest wins: soon after the flapping ends, right-up everywhere.
        def final(state):
            return state["allowed"] == ["right-up"] and state["locked"] == "right-up"

        # (The daemon may still be working through the requests the kernel
        # buffered; on a loaded machine that takes a while.)
        deadline = time.monotonic() + 15
        while not (states and final(states[-1])):
            if time.monotonic() >= deadline:
                now = self.client(0).request(op="get")
                self.fail(f"the last constraint and lock never applied: {states[-2:]}; now {now}; log: {self.stderr()[-1000:]}")
            try:
                states.append(subscriber.line(timeout=max(0.01, deadline - time.monotonic())))
            except AssertionError:
                pass  # reported below, with what the daemon says now
        elapsed = time.monotonic() - started
        # 10 changes a second, a burst of 10, the trace's own states: far from the
        # tens of thousands an unbounded client causes.
        self.assertLessEqual(len(states), 10 * elapsed + 10 + 5, f"{len(states)} states in {elapsed:.1f} s")
        self.assertLessEqual(len(inodes), elapsed + 2, f"the lock file was rewritten {len(inodes)} times")
        wait_until(lambda: read(lock_file).startswith("right-up\n"), 10, "the last lock on disk")
        print(f"\nsecurity/flap: {sent} requests in 2 s gave {len(states)} states and "
              f"{len(inodes)} lock file rewrites in {elapsed:.1f} s", flush=True)


class FileTests(SecurityTestCase):
    def test_the_socket_is_created_0666_whatever_the_umask(self):
        """the socket is mode 0666 under the daemon's umask 077, without a chmod"""
        self.start("", umask=0o077)
        self.assertEqual(stat.S_IMODE(os.lstat(self.socket_path).st_mode), 0o666)

    def test_a_socket_directory_owned_by_another_user_is_refused(self):
        """the daemon will not listen in a directory nobody owns"""
        directory = os.path.join(self.workdir, "foreign")
        os.mkdir(directory)
        os.chown(directory, NOBODY, NOBODY)
        self.start("", socket_path=os.path.join(directory, "orientd.sock"), wait=False)
        self.assertEqual(self.daemon.wait_exit(10), 73)
        self.assertIn(f"{directory} is owned by uid {NOBODY}", self.stderr())
        self.assertFalse(os.path.exists(os.path.join(directory, "orientd.sock")))

    def test_a_world_writable_socket_directory_needs_the_sticky_bit(self):
        """0777 is refused, 1777 (like /tmp) is not"""
        directory = os.path.join(self.workdir, "shared")
        os.mkdir(directory)
        os.chmod(directory, 0o777)
        self.start("", socket_path=os.path.join(directory, "orientd.sock"), wait=False)
        self.assertEqual(self.daemon.wait_exit(10), 73)
        self.assertIn("without the sticky bit", self.stderr())
        self.stop()
        os.chmod(directory, 0o1777)
        self.start("", socket_path=os.path.join(directory, "orientd.sock"))

    def test_a_symlink_at_the_socket_path_is_left_alone(self):
        """a symlink planted at the socket path is not followed, replaced or chmodded"""
        victim = os.path.join(self.workdir, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.chmod(victim, 0o600)
        os.symlink(victim, self.socket_path)
        self.start("", wait=False)
        self.assertEqual(self.daemon.wait_exit(10), 73)
        self.assertEqual(stat.S_IMODE(os.stat(victim).st_mode), 0o600)
        self.assertTrue(os.path.islink(self.socket_path))

    def lock_as(self, uid, orientation):
        self.assertEqual(self.client(uid).request(op="lock", orientation=orientation), {"type": "ok"})

    def test_a_fifo_as_the_lock_does_not_hang_the_start(self):
        """a FIFO at the lock path: the daemon starts unlocked at once, warns, and replaces it on lock"""
        os.mkdir(self.state_dir, 0o700)
        os.mkfifo(os.path.join(self.state_dir, "lock"))
        self.start("")
        self.assertIn("not a regular file", self.stderr())
        self.assertIsNone(self.client(0).request(op="get")["locked"])
        self.lock_as(0, "left-up")
        lock = os.path.join(self.state_dir, "lock")
        wait_until(lambda: stat.S_ISREG(os.lstat(lock).st_mode), 10, "a regular lock file")

    def plant_symlink(self, name, target_text):
        """A state directory whose `name` is a symlink to a file outside it holding `target_text`."""
        os.mkdir(self.state_dir, 0o700)
        target = os.path.join(self.workdir, "outside")
        with open(target, "w") as f:
            f.write(target_text)
        os.symlink(target, os.path.join(self.state_dir, name))
        return target

    def test_a_symlink_planted_as_the_temp_file_is_not_followed(self):
        """a .lock.tmp symlink to a victim: the victim is untouched, the lock is a fresh 0600 file"""
        victim = self.plant_symlink(".lock.tmp", "precious\n")
        self.start("")
        self.lock_as(0, "left-up")
        lock = os.path.join(self.state_dir, "lock")
        wait_until(lambda: os.path.exists(lock), 10, "the lock file")
        self.assertEqual(read(victim), "precious\n")
        info = os.lstat(lock)
        self.assertTrue(stat.S_ISREG(info.st_mode))
        self.assertEqual(stat.S_IMODE(info.st_mode), 0o600)

    def test_a_symlink_as_the_lock_is_not_followed(self):
        """a lock symlinked to a file saying left-up is not read; the daemon starts unlocked"""
        self.plant_symlink("lock", "left-up\n")
        self.start("")
        self.assertIn("symlink", self.stderr())
        self.assertIsNone(self.client(0).request(op="get")["locked"])

    def test_the_lock_file_contents_never_reach_the_log(self):
        """a corrupt lock is reported by path and line, not by what it holds"""
        os.mkdir(self.state_dir, 0o700)
        with open(os.path.join(self.state_dir, "lock"), "w") as f:
            f.write("SECRET-WORDS-FROM-ELSEWHERE\n")
        self.start("")
        wait_until(lambda: "not an orientation name" in self.stderr(), 10, "the warning")
        self.assertNotIn("SECRET", self.stderr())

    def test_state_directories_another_user_could_write_are_not_used(self):
        """a state directory owned by nobody, group- or world-writable, or a symlink, is neither read nor
        written: the daemon starts unlocked, says why, and keeps serving"""
        real = os.path.join(self.workdir, "real-state")
        os.mkdir(real, 0o700)
        cases = {
            "owned by nobody": lambda path: (os.mkdir(path, 0o700), os.chown(path, NOBODY, NOBODY)),
            "group-writable": lambda path: (os.mkdir(path), os.chmod(path, 0o770)),
            "a symlink": lambda path: os.symlink(real, path),
        }
        for name, make in cases.items():
            with self.subTest(name):
                path = os.path.join(self.workdir, name.replace(" ", "-"))
                make(path)
                target = real if os.path.islink(path) else path
                with open(os.path.join(target, "lock"), "w") as f:
                    f.write("left-up\n")
                self.start("", state_dir=path)
                self.assertIn(f"state directory {path}", self.stderr())
                client = self.client(0)
                self.assertIsNone(client.request(op="get")["locked"])
                self.assertEqual(client.request(op="lock", orientation="bottom-up"), {"type": "ok"})
                wait_until(lambda: "rotation lock not persisted" in self.stderr(), 10, "the refusal to persist")
                self.assertEqual(read(os.path.join(target, "lock")), "left-up\n")
                client.close()
                self.clients.remove(client)
                self.stop()

    def test_a_new_state_directory_is_0700_and_the_lock_0600(self):
        """the daemon creates a missing state directory 0700 and writes the lock 0600"""
        self.start("", umask=0)
        self.lock_as(0, "right-up")
        lock = os.path.join(self.state_dir, "lock")
        wait_until(lambda: os.path.exists(lock), 10, "the lock file")
        self.assertEqual(stat.S_IMODE(os.stat(self.state_dir).st_mode), 0o700)
        self.assertEqual(stat.S_IMODE(os.stat(lock).st_mode), 0o600)


if __name__ == "__main__":
    unittest.main()
