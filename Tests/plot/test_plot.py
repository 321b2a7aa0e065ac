"""`tracegen plot` renders a replay as an SVG that librsvg (rsvg-convert) draws."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))  # orientd_harness
from orientd_harness import TRACEGEN, TRACES  # noqa: E402


class PlotTests(unittest.TestCase):
    def test_a_recorded_trace_renders_to_a_png(self):
        with tempfile.TemporaryDirectory(prefix="orientd-plot-") as tmp:
            svg, png = os.path.join(tmp, "plot.svg"), os.path.join(tmp, "plot.png")
            trace = TRACES / "recorded" / "chromeos" / "chromeos_verticalhinge.trace"
            subprocess.run([TRACEGEN, "plot", trace, "-o", svg], check=True, timeout=120)
            text = open(svg, encoding="utf-8").read()
            self.assertIn("chromeos_verticalhinge.trace: lid open 360 deg", text)
            self.assertIn("z sign -1 (face up reads -z), assumed: trace header z_sign", text)
            for row in ("published", "raw candidate", "filtered candidate", "hold-off", "overhead latch"):
                self.assertIn(row, text)
            subprocess.run(["rsvg-convert", "-o", png, svg], check=True, timeout=120)
            with open(png, "rb") as f:
                header = f.read(24)
            self.assertEqual(header[:8], b"\x89PNG\r\n\x1a\n")
            width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
            self.assertEqual(width, 1200)
            self.assertGreater(height, 600)

    def test_a_missing_trace_is_a_clear_error(self):
        result = subprocess.run([TRACEGEN, "plot", "/nonexistent/missing.trace"], capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 66)
        self.assertIn("cannot open /nonexistent/missing.trace", result.stderr)

    def test_a_malformed_trace_names_the_file_and_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as f:
            f.write("# orientd-trace: 1\nt_ms,x,y,z\n0,1,2\n")
        try:
            result = subprocess.run([TRACEGEN, "plot", f.name], capture_output=True, text=True, timeout=60)
            self.assertEqual(result.returncode, 65)
            self.assertIn(f.name, result.stderr)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
