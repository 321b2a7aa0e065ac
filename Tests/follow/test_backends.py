"""`orientctl follow` with each backend's tool faked on PATH: the exact command
sequence for every orientation, then robustness (orientd and the compositor
going away and coming back, a command that hangs or fails) and clear errors
for bad options.

Run: /usr/bin/python3 -m unittest discover -s Tests/follow -v
"""
import os
import socket
import time

from support import RIGHT_UP, Constraint, FakeTools, Follow, FollowTestCase, run_follow, wait_until

HYPR_MONITORS = '[{"id":0,"name":"DP-1"},{"id":1,"name":"eDP-1","transform":0}]'
NIRI_OUTPUTS = '{"DP-2":{"name":"DP-2"},"eDP-1":{"name":"eDP-1"}}'
WLR_RANDR = 'HDMI-A-1 "Dell"\n  Enabled: yes\neDP-1 "Sharp"\n  Enabled: yes\n  Transform: normal\n'
XRANDR = ("Screen 0: minimum 320 x 200, current 1920 x 1080, maximum 16384 x 16384\n"
          "eDP1 connected primary 1920x1080+0+0 (normal left inverted right x axis y axis) 309mm x 174mm\n"
          "   1920x1080     60.01*+\nDP1 disconnected (normal left inverted right x axis y axis)\n")
XINPUT = ("⎡ Virtual core pointer                    \tid=2\t[master pointer  (3)]\n"
          "⎜   ↳ ELAN Touchscreen                     \tid=10\t[slave  pointer  (2)]\n"
          "\t\tClass originated from: 10. Type: XITouchClass\n\t\tTouch mode: direct\n"
          "⎜   ↳ SynPS/2 Synaptics TouchPad           \tid=12\t[slave  pointer  (2)]\n"
          "\t\tClass originated from: 12. Type: XITouchClass\n\t\tTouch mode: dependent\n"
          "⎜   ↳ Wacom Pen stylus                     \tid=15\t[slave  pointer  (2)]\n"
          "\t\t  Label: Abs Pressure\n\t\t  Mode: absolute\n"
          "⎣ Virtual core keyboard                   \tid=3\t[master keyboard (2)]\n"
          "    ↳ AT Translated Set 2 keyboard          \tid=13\t[slave  keyboard (3)]\n")
REPLIES = {
    "hyprctl monitors -j": HYPR_MONITORS,
    "niri msg --json outputs": NIRI_OUTPUTS,
    "wlr-randr": WLR_RANDR,
    "xrandr --query": XRANDR,
    "xinput list --long": XINPUT,
}
MATRIX = {
    "normal": "1 0 0 0 1 0 0 0 1", "left-up": "0 -1 1 1 0 0 0 0 1",
    "bottom-up": "-1 0 1 0 -1 1 0 0 1", "right-up": "0 1 0 -1 0 1 0 0 1",
}
#: left-up from the trace, then the lock moves it through the other three.
SEQUENCE = ["left-up", "normal", "bottom-up", "right-up"]


class FakeBackendTest(FollowTestCase):
    #: What the fake tools print, by command line.
    REPLIES = REPLIES

    def setUp(self):
        super().setUp()
        self.tools = FakeTools(self.workdir, self.REPLIES)
        self.start_mock()
        self.effective("left-up")

    def follow(self, args, **variables):
        env = self.tools.env(XDG_RUNTIME_DIR=self.workdir, **variables)
        follow = Follow(self.daemon, args, env)
        self.addCleanup(follow.stop)
        return follow

    def drive(self, calls_per_step):
        """Moves the orientation through SEQUENCE, waiting for each step's calls."""
        total = calls_per_step[0]
        self.tools.wait_calls(total)
        for orientation, count in zip(SEQUENCE[1:], calls_per_step[1:]):
            self.daemon.orientctl("lock", orientation)
            total += count
            self.tools.wait_calls(total)
        return self.tools.calls()


class BackendSequenceTests(FakeBackendTest):
    def test_hyprland_gets_one_batch_per_orientation_with_touch_and_tablet(self):
        follow = self.follow([], HYPRLAND_INSTANCE_SIGNATURE="sig")
        calls = self.drive([2, 1, 1, 1])
        batch = "keyword monitor eDP-1,transform,{0} ; keyword input:touchdevice:transform {0} ; keyword input:tablet:transform {0}"
        self.assertEqual(calls, [
            ["hyprctl", "monitors", "-j"],
            ["hyprctl", "--batch", batch.format(1) + " ; keyword input:touchdevice:output eDP-1 ; keyword input:tablet:output eDP-1"],
            ["hyprctl", "--batch", batch.format(0)],
            ["hyprctl", "--batch", batch.format(2)],
            ["hyprctl", "--batch", batch.format(3)],
        ])
        self.assertEqual(follow.stop(), 0)
        self.assertIn("backend hyprland", follow.log())

    def test_niri_sets_the_output_transform(self):
        self.follow([], NIRI_SOCKET=os.path.join(self.workdir, "niri.sock"), WAYLAND_DISPLAY="wayland-1")
        calls = self.drive([2, 1, 1, 1])
        self.assertEqual(calls, [["niri", "msg", "--json", "outputs"]] + [
            ["niri", "msg", "output", "eDP-1", "transform", t] for t in ["90", "normal", "180", "270"]])

    def test_wlr_randr_sets_the_output_transform(self):
        self.follow([], WAYLAND_DISPLAY="wayland-1")
        calls = self.drive([2, 1, 1, 1])
        self.assertEqual(calls, [["wlr-randr"]] + [
            ["wlr-randr", "--output", "eDP-1", "--transform", t] for t in ["90", "normal", "180", "270"]])

    def test_x11_rotates_and_sets_every_touchscreen_and_pen_matrix(self):
        self.follow(["--disable-keyboard"], DISPLAY=":97")
        calls = self.drive([7, 6, 6, 6])
        expected = [["xrandr", "--query"]]
        for orientation, rotate in zip(SEQUENCE, ["left", "normal", "inverted", "right"]):
            expected += [
                ["xinput", "list", "--long"],
                ["xrandr", "--query"],
                ["xrandr", "--output", "eDP1", "--rotate", rotate],
                ["xinput", "set-prop", "10", "Coordinate Transformation Matrix", *MATRIX[orientation].split()],
                ["xinput", "set-prop", "15", "Coordinate Transformation Matrix", *MATRIX[orientation].split()],
                ["xinput", "enable" if orientation == "normal" else "disable", "AT Translated Set 2 keyboard"],
            ]
        self.assertEqual(calls, expected)

    def test_exec_template_gets_the_values_as_placeholders_and_in_the_environment(self):
        record = os.path.join(self.workdir, "hook")
        template = ("echo {previous} {orientation} {transform} {xrandr} {output}"
                    " $PREV_ORIENTATION $ORIENTATION $ORIENTD_TRANSFORM $ORIENTD_XRANDR $ORIENTD_OUTPUT >> " + record)
        follow = self.follow(["--exec", template, "--output", "eDP-1"])

        def lines():
            if not os.path.exists(record):
                return []
            with open(record) as f:
                return f.read().splitlines()

        wait_until(lambda: len(lines()) == 1, 10, "the hook for left-up")
        for orientation, count in zip(SEQUENCE[1:], [2, 3, 4]):
            self.daemon.orientctl("lock", orientation)
            wait_until(lambda: len(lines()) == count, 10, f"the hook for {orientation}")
        self.assertEqual(lines(), [
            "undefined left-up 90 left eDP-1 undefined left-up 90 left eDP-1",
            "left-up normal 0 normal eDP-1 left-up normal 0 normal eDP-1",
            "normal bottom-up 180 inverted eDP-1 normal bottom-up 180 inverted eDP-1",
            "bottom-up right-up 270 right eDP-1 bottom-up right-up 270 right eDP-1",
        ])
        self.assertIn("backend exec", follow.log())
        self.assertEqual(self.tools.calls(), [], "no compositor tool runs with --exec alone")

    def test_a_constraint_changes_what_is_shown_and_its_release_changes_it_back(self):
        self.follow(["--backend", "niri"])
        self.tools.wait_calls(2)
        constraint = Constraint(self.daemon, ["normal"])
        self.tools.wait_calls(3)
        constraint.release()
        calls = self.tools.wait_calls(4)
        self.assertEqual([c[-1] for c in calls[1:]], ["90", "normal", "90"])


class X11MultiheadTests(FakeBackendTest):
    REPLIES = dict(REPLIES, **{"xrandr --query": XRANDR + "HDMI2 connected 1280x1024+1920+0 (normal left inverted right) 376mm x 301mm\n"})

    def test_with_a_second_monitor_touchscreens_and_pens_are_mapped_to_the_panel(self):
        self.follow([], DISPLAY=":97")
        calls = self.tools.wait_calls(6)
        self.assertEqual(calls, [
            ["xrandr", "--query"], ["xinput", "list", "--long"], ["xrandr", "--query"],
            ["xrandr", "--output", "eDP1", "--rotate", "left"],
            ["xinput", "map-to-output", "10", "eDP1"], ["xinput", "map-to-output", "15", "eDP1"],
        ])


class RobustnessTests(FakeBackendTest):
    def test_orientd_going_away_and_coming_back_with_another_orientation_is_followed(self):
        follow = self.follow(["--backend", "niri"])
        self.tools.wait_calls(2)
        self.daemon.stop()
        time.sleep(0.3)  # follow has nothing to do while orientd is away: no call may appear
        self.assertEqual(len(self.tools.calls()), 2)
        self.assertTrue(follow.alive(), "follow keeps running while orientd is away")
        self.start_mock(RIGHT_UP)  # normal for its first 100 ms, then right-up
        wait_until(lambda: self.tools.calls()[-1] == ["niri", "msg", "output", "eDP-1", "transform", "270"], 10,
                   "right-up to be applied after orientd's return")
        # Depending on when the client reconnects it sees the trace's first 100 ms of normal or not.
        self.assertIn([c[-1] for c in self.tools.calls()[2:]], (["270"], ["normal", "270"]))

    def test_follow_started_before_orientd_waits_for_it(self):
        self.daemon.stop()
        follow = self.follow(["--backend", "niri"])
        follow.wait_log("orientd unavailable: no socket at")
        self.assertIn("; waiting for orientd", follow.log())
        self.assertTrue(follow.alive())
        self.start_mock()
        wait_until(lambda: self.tools.calls()[-1:] == [["niri", "msg", "output", "eDP-1", "transform", "90"]], 10,
                   "left-up to be applied once orientd is there")

    def test_the_compositor_going_away_and_coming_back_gets_the_orientation_again(self):
        path = os.path.join(self.workdir, "niri.sock")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path)
        follow = self.follow([], NIRI_SOCKET=path)
        self.tools.wait_calls(2)
        listener.close()
        os.unlink(path)
        follow.wait_log("niri.sock is gone")
        again = socket.socket(socket.AF_UNIX)
        again.bind(path)
        self.addCleanup(again.close)
        calls = self.tools.wait_calls(4)
        self.assertEqual(calls[2:], [["niri", "msg", "--json", "outputs"], ["niri", "msg", "output", "eDP-1", "transform", "90"]])
        self.assertIn("niri.sock is back; applying the orientation again", follow.log())

    def test_a_compositor_that_stays_away_ends_follow(self):
        path = os.path.join(self.workdir, "niri.sock")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path)
        follow = self.follow(["--compositor-timeout", "0.5"], NIRI_SOCKET=path)
        self.tools.wait_calls(2)
        listener.close()
        os.unlink(path)
        self.assertEqual(follow.wait_exit(10), 0)
        self.assertIn("the compositor did not come back within 0.5 s; stopping", follow.log())

    def test_a_hanging_command_is_killed_and_never_holds_up_the_latest_orientation(self):
        follow = self.follow(["--backend", "niri", "--timeout", "4"])
        self.tools.wait_calls(2)
        self.tools.hang("niri")
        self.daemon.orientctl("lock", "normal")
        self.tools.wait_calls(3)  # the normal command has started and hangs
        self.daemon.orientctl("lock", "bottom-up")
        self.daemon.orientctl("lock", "right-up")
        # The stream keeps flowing while the command hangs…
        follow.wait_log("orientation right-up", timeout=3.5)
        self.assertNotIn("timed out", follow.log())
        self.tools.hang("niri", on=False)
        # …and after the kill, the newest orientation goes next; bottom-up is skipped.
        calls = self.tools.wait_calls(4)
        self.assertIn("niri msg output eDP-1 transform normal: timed out, killed", follow.log())
        self.assertEqual(calls[-1], ["niri", "msg", "output", "eDP-1", "transform", "270"])
        time.sleep(0.3)
        self.assertEqual(len(self.tools.calls()), 4, "bottom-up is never applied")

    def test_a_failing_command_is_logged_with_its_status_and_retried(self):
        follow = self.follow(["--backend", "niri"])
        self.tools.wait_calls(2)
        self.tools.fail("niri")
        self.daemon.orientctl("lock", "normal")
        follow.wait_log("niri msg output eDP-1 transform normal: exit 3")
        self.assertIn("niri: simulated failure", follow.log())
        follow.wait_log("retrying in 500 ms")
        self.tools.fail("niri", on=False)
        follow.wait_log("transform normal: exit 0")
        self.assertEqual(self.tools.calls()[-1], ["niri", "msg", "output", "eDP-1", "transform", "normal"])
        self.assertTrue(follow.alive())


class ErrorTests(FakeBackendTest):
    def check_error(self, args, message, **variables):
        result = run_follow(self.daemon, args, self.tools.env(**variables))
        self.assertEqual(result.returncode, 64, result.stderr)
        self.assertIn(message, result.stderr)

    def test_a_bad_template_is_a_usage_error_naming_the_placeholder(self):
        self.check_error(["--exec", "echo {rotation}"], "unknown placeholder '{rotation}' at column 6")
        self.check_error(["--exec", "echo {orientation"], "'{' at column 6 is not closed")

    def test_a_bad_output_name_is_a_usage_error(self):
        self.check_error(["--backend", "niri", "--output", "eDP-1;reboot"], "bad output name 'eDP-1;reboot'")

    def test_an_output_the_compositor_does_not_have_is_an_error_listing_what_it_has(self):
        self.check_error(["--output", "eDP-9"], "output 'eDP-9' is not among the compositor's outputs (DP-1, eDP-1)",
                         HYPRLAND_INSTANCE_SIGNATURE="sig")

    def test_no_compositor_in_the_environment_is_an_error_saying_which_variables(self):
        self.check_error([], "no compositor found (none of SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE")

    def test_an_unknown_backend_and_an_unsupported_option_are_usage_errors(self):
        self.check_error(["--backend", "gnome"], "unknown backend 'gnome'")
        self.check_error(["--backend", "niri", "--disable-keyboard"], "--disable-keyboard works with sway and x11, not niri")
