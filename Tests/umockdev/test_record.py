"""`orientctl record` against a live sensor gives a trace that replays the same (docs/traces.md, orientctl(1))."""

import json
import os

from harness import DaemonTestCase, ORIENTD

MXC4005 = "i2c-mxc4005.umockdev"


class RecordTests(DaemonTestCase):
    def test_a_recorded_trace_replays_to_the_same_orientation(self):
        """orientctl record against the live faked sensor writes a trace that orientd --mock replays to the same orientation"""
        # The mxc4005 has a non-identity mount matrix and per-axis scales: the
        # trace must carry samples in the sensor frame and the matrix in its
        # header for the replay to agree.
        device = self.sysfs.add(MXC4005)
        self.sysfs.set_raw(device, x=0, y=1024)  # sensor upside down: panel (g, 0, 0), left-up
        self.start_daemon()
        watcher = self.connect()
        watcher.subscribe()
        live = watcher.wait_physical("left-up")

        trace = os.path.join(self.workdir, "live.trace")
        self.orientctl("record", trace, "--duration", "1")
        with open(trace) as f:
            text = f.read()
        header = [line for line in text.splitlines() if line.startswith("#")]
        samples = [line for line in text.splitlines() if line and not line.startswith("#")][1:]
        self.assertIn("# mount_matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1", header, text[:400])
        self.assertGreaterEqual(len(samples), 10, f"1 s at 20 Hz gave only {len(samples)} samples")

        replay = self.run_tool([ORIENTD, "--mock", trace, "--speed", "max", "--print", "--exit-at-end",
                                "--config", os.path.join(self.workdir, "orientd.conf"),
                                "--state-dir", os.path.join(self.workdir, "replay")])
        self.assertEqual(replay.returncode, 0, replay.stderr)
        states = [json.loads(line) for line in replay.stdout.splitlines() if line.strip()]
        self.assertTrue(states, replay.stderr)
        self.assertEqual(states[-1]["physical"], live["physical"], states[-1])
        self.assertEqual(states[-1]["orientation"], live["orientation"], states[-1])
