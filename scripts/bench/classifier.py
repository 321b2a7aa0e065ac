"""Classifier throughput (`--only classifier`), in process.

- classifier_samples_per_s (goal >= 2e7): readings the classifier takes a
  second, from Benchmarks' `orientd-bench` (best of 5; all 5 in
  details.classifier).
"""

import json
import os
import subprocess

from common import BENCH_BIN, clean_env, spread

CLASSIFIER_BENCH = BENCH_BIN / "orientd-bench"
KEYS = [("classifier_samples_per_s", "≥ 2e7")]


def run(bench):
    if not os.access(CLASSIFIER_BENCH, os.X_OK):
        return bench.fail(["classifier_samples_per_s"],
                          f"{CLASSIFIER_BENCH} missing: cd Benchmarks && swift build -c release")
    out = bench.workdir / "classifier.json"
    run = subprocess.run([str(CLASSIFIER_BENCH)], env=clean_env(BENCH_OUT=str(out)), capture_output=True,
                         text=True, timeout=600)
    if run.returncode != 0 or not out.exists():
        return bench.fail(["classifier_samples_per_s"], f"orientd-bench failed: {run.stderr.strip()[-500:]}")
    data = json.loads(out.read_text())
    bench.results["classifier_samples_per_s"] = data["classifier_samples_per_s"]
    bench.details["classifier"] = {"best_of": len(data.get("runs_samples_per_s", [])),
                                   "runs_samples_per_s": spread(data.get("runs_samples_per_s", []), 0),
                                   "line": run.stdout.strip()}


def notes(details):
    """The table's notes on this part's keys."""
    if "classifier" not in details:
        return {}
    runs = details["classifier"]["runs_samples_per_s"]
    return {"classifier_samples_per_s": f"5 runs: {runs['min']:.3g}–{runs['max']:.3g}"}
