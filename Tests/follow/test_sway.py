"""`orientctl follow` against a real headless sway: the output's transform and
its rotated size follow every effective orientation (the sensor, an app's
constraint, the lock), touch and tablet tools are mapped to the panel, and a
restarted sway gets the orientation again.

sway refuses to run as root, so it runs as an unprivileged uid (no account
needed) through setpriv, with its own XDG_RUNTIME_DIR owned by that uid. When
sway cannot start here the tests are skipped with the reason.

Run: /usr/bin/python3 -m unittest discover -s Tests/follow -v
"""
import json
import os
import shutil
import subprocess
import unittest

from support import Constraint, Follow, FollowTestCase, stop_process, wait_until

#: A uid with no account, so sway runs unprivileged and owns nothing else.
SWAY_UID = int(os.environ.get("ORIENTD_TEST_SWAY_UID", "61414"))
WIDTH, HEIGHT = 1280, 720


class HeadlessSway:
    """sway with the headless backend and no input devices, as SWAY_UID."""

    def __init__(self, directory):
        self.runtime = os.path.join(directory, "runtime")
        os.makedirs(self.runtime, mode=0o700)
        os.chmod(directory, 0o755)
        os.chown(self.runtime, SWAY_UID, SWAY_UID)
        self.socket = os.path.join(self.runtime, "sway-ipc.sock")
        self.config = os.path.join(directory, "sway.config")
        with open(self.config, "w") as f:
            f.write(f"output HEADLESS-1 resolution {WIDTH}x{HEIGHT}\n")
        os.chmod(self.config, 0o644)
        self.log_path = os.path.join(directory, "sway.log")
        self.process = None

    def start(self):
        env = {
            "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": self.runtime, "SWAYSOCK": self.socket,
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "HOME": self.runtime,
        }
        with open(self.log_path, "a") as log:
            self.process = subprocess.Popen(
                ["setpriv", f"--reuid={SWAY_UID}", f"--regid={SWAY_UID}", "--clear-groups", "sway", "-d", "-c", self.config],
                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        try:
            wait_until(lambda: self.process.poll() is not None or self.outputs(), 20, "sway's IPC socket")
        except AssertionError:
            pass
        if self.process.poll() is not None or not self.outputs():
            self.stop()
            return self.log()[-2000:] or "no output"
        return None

    def stop(self):
        if self.process:
            stop_process(self.process)
        if os.path.exists(self.socket):
            os.unlink(self.socket)  # sway takes SWAYSOCK only when it is free

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def outputs(self):
        result = subprocess.run(["swaymsg", "-s", self.socket, "-t", "get_outputs", "--raw"],
                                capture_output=True, text=True, timeout=10)
        if result.returncode != 0:
            return None
        return json.loads(result.stdout) or None

    def panel(self):
        """(transform, width, height) of HEADLESS-1."""
        for output in self.outputs() or []:
            if output["name"] == "HEADLESS-1":
                return output["transform"], output["rect"]["width"], output["rect"]["height"]
        return None


def expected(orientation):
    """What sway reports for HEADLESS-1 showing `orientation`: sideways swaps the size."""
    transform = {"normal": "normal", "left-up": "90", "bottom-up": "180", "right-up": "270"}[orientation]
    sideways = orientation in ("left-up", "right-up")
    return (transform, HEIGHT, WIDTH) if sideways else (transform, WIDTH, HEIGHT)


def shows(sway, follow, orientation):
    """Waits until `sway` shows `orientation` on HEADLESS-1."""
    want = expected(orientation)
    wait_until(lambda: sway.panel() == want, 10, f"sway to show {orientation} {want}",
               detail=lambda: f"it shows {sway.panel()}; follow's log:\n{follow.log()}")


@unittest.skipUnless(shutil.which("sway") and shutil.which("swaymsg") and shutil.which("setpriv"),
                     "sway, swaymsg or setpriv is missing: install the Debian packages sway and util-linux (make deps)")
class SwayTests(FollowTestCase):
    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            self.skipTest("running sway as another uid needs root (setpriv)")
        self.sway = HeadlessSway(self.workdir)
        failure = self.sway.start()
        if failure:
            self.skipTest(f"headless sway cannot start here: {failure}")
        self.addCleanup(self.sway.stop)
        self.start_mock()
        self.effective("left-up")
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SWAYSOCK": self.sway.socket,
               "XDG_RUNTIME_DIR": self.sway.runtime}
        self.follow = Follow(self.daemon, ["--output", "HEADLESS-1", "--disable-keyboard", "--disable-touchpad"], env)
        self.addCleanup(self.follow.stop)

    def shows(self, orientation):
        shows(self.sway, self.follow, orientation)

    def test_sway_follows_the_sensor_a_constraint_and_the_lock(self):
        self.shows("left-up")  # the sensor
        constraint = Constraint(self.daemon, ["normal"])
        self.shows("normal")  # an app allows only normal
        constraint.release()
        self.shows("left-up")
        self.daemon.orientctl("lock", "bottom-up")
        self.shows("bottom-up")
        self.daemon.orientctl("lock", "right-up")
        self.shows("right-up")
        self.daemon.orientctl("unlock")
        self.shows("left-up")

        log = self.follow.log()
        for transform in ["90", "normal", "180", "270"]:
            self.assertIn(f"swaymsg output HEADLESS-1 transform {transform}: exit 0", log)
        # The keyboard and touchpads are off away from normal, on again in normal; sway took each command.
        sway_log = self.sway.log()
        for device in ["1:1:AT_Translated_Set_2_keyboard", "type:touchpad"]:
            for state in ["disabled", "enabled"]:
                self.assertIn(f"swaymsg input {device} events {state}: exit 0", log)
                self.assertIn(f"Handling command 'input {device} events {state}'", sway_log)
        self.assertEqual(self.follow.stop(), 0)
        print("\n--- orientctl follow's log against headless sway ---\n" + self.follow.log(), end="")

    def test_touch_and_tablet_tools_are_mapped_to_the_panel(self):
        self.shows("left-up")
        self.follow.wait_log("swaymsg input type:tablet_tool map_to_output HEADLESS-1: exit 0")
        sway_log = self.sway.log()
        self.assertIn("Handling command 'input type:touch map_to_output HEADLESS-1'", sway_log)
        self.assertIn("Handling command 'input type:tablet_tool map_to_output HEADLESS-1'", sway_log)

    def test_a_restarted_sway_gets_the_orientation_again(self):
        self.shows("left-up")
        self.follow.wait_log("swaymsg input type:tablet_tool map_to_output HEADLESS-1: exit 0")
        self.sway.stop()
        self.follow.wait_log("is gone; waiting up to 10 s for the compositor to come back")
        failure = self.sway.start()
        self.assertIsNone(failure, "sway started once; it must start again")
        self.shows("left-up")
        self.follow.wait_log("is back; applying the orientation again")
        # The transform comes first; touch is mapped again right after it, in the new sway.
        wait_until(lambda: self.sway.log().count("Handling command 'input type:touch map_to_output HEADLESS-1'") == 2,
                   10, "touch to be mapped again in the new sway")
