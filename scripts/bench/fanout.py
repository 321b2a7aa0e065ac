"""Fan-out (`--only fanout`): how long a published state takes to reach 1,
100 and 1,000 subscribers of the release orientd.

- fanout_p99_ms_1000 (goal <= 2; _1 and _100 in details.fanout):
  `orientd-fanout` against the release orientd (no --mock, no umockdev,
  `[limits] clients = 1100`, the sensor pinned to a name that does not exist
  so that no accelerometer on the machine adds states): a controller toggles
  a constraint, each subscriber times its state line. The daemon is a black
  box, so "publish" is the controller's send: the key is send -> receipt (an
  upper bound); details also give receipt minus the first subscriber's
  receipt (a lower bound), and the daemon's on-CPU time per publish (what the
  fan-out costs it, apart from scheduling). Median of the repeats' p99 (3
  repeats; 200 toggles at 1 and 100 subscribers, 50 at 1000). Receipt is the
  return of the reader's epoll_wait that reported the subscriber's socket
  readable (`--receipt ready`: edge-triggered, the sockets read only after
  the timed part, and a receipt counts only if its socket then held exactly
  the expected state line; details say how many did not, as `unverified`).
  That times every one of the 1,000 sockets without the reader's serial
  recv(2)s, which no subscriber process would pay, delaying the later ones.
  The same 1,000-subscriber run timed at recv(2)'s return instead
  (`--receipt read`, the reader's cost included) is in details as
  `clients_1000_receipt_at_read`.
"""

import json
import os
import statistics
import subprocess

from common import BENCH_BIN, clean_env, log, spread
from orientd import Orientd

FANOUT = BENCH_BIN / "orientd-fanout"
KEYS = [("fanout_p99_ms_1000", "≤ 2")]


def run(bench):
    if not os.access(FANOUT, os.X_OK):
        return bench.fail(["fanout_p99_ms_1000"], f"{FANOUT} missing: cd Benchmarks && swift build -c release")
    daemon = Orientd(bench.workdir / "fanout", clean_env(),
                     "[orientation]\nnatural = portrait\n[sensor]\ndevice = orientd-bench-no-such-sensor\n"
                     "[limits]\nclients = 1100\n", "orientd (fan-out)")
    details = {"daemon": "release orientd, no --mock, no umockdev, [limits] clients = 1100, sensor absent",
               "reader_threads": bench.args.reader_threads,
               "receipt": "the return of the reader's epoll_wait that reported the subscriber's socket readable "
                          "(edge-triggered; verified afterwards: the socket held exactly that state line)",
               "publish": "controller's send of the constrain request (upper bound); from_first: from the "
                          "first subscriber's receipt of the same state (lower bound)"}
    try:
        for clients, toggles in ((1, bench.args.toggles_small), (100, bench.args.toggles_small),
                                 (1000, bench.args.toggles_large)):
            runs = fanout_runs(bench, daemon, clients, toggles, "ready")
            p99s = [r["from_send_ms"]["p99"] for r in runs]
            details[f"clients_{clients}"] = {
                "toggles_per_repeat": toggles,
                "repeats": len(runs),
                "missing": sum(r["missing"] for r in runs),
                "unverified": sum(r["unverified"] for r in runs),
                "p99_from_send_ms": spread(p99s),
                "p50_from_send_ms": spread([r["from_send_ms"]["p50"] for r in runs]),
                "p99_from_first_ms": spread([r["from_first_ms"]["p99"] for r in runs]),
                "last_receipt_p50_ms": spread([r["last_receipt_ms"]["p50"] for r in runs]),
                "max_from_send_ms": spread([r["from_send_ms"]["max"] for r in runs]),
                "daemon_cpu_ms_per_publish": spread([r["daemon_cpu_ms_per_toggle"] for r in runs]),
                "reader_floor_ms": spread([r["reader_floor_ms"]["p50"] for r in runs]),
            }
            details[f"fanout_p99_ms_{clients}"] = round(statistics.median(p99s), 3)
            log(f"fan-out {clients}: p99 {statistics.median(p99s):.3f} ms (repeats: {p99s})")
        bench.results["fanout_p99_ms_1000"] = details["fanout_p99_ms_1000"]
        runs = fanout_runs(bench, daemon, 1000, bench.args.toggles_large, "read")
        details["clients_1000_receipt_at_read"] = {
            "receipt": "recv(2) returned the line, one socket after the other (the reader's cost included)",
            "p99_from_send_ms": spread([r["from_send_ms"]["p99"] for r in runs]),
            "p50_from_send_ms": spread([r["from_send_ms"]["p50"] for r in runs]),
            "last_receipt_p50_ms": spread([r["last_receipt_ms"]["p50"] for r in runs]),
            "daemon_cpu_ms_per_publish": spread([r["daemon_cpu_ms_per_toggle"] for r in runs]),
            "reader_floor_ms": spread([r["reader_floor_ms"]["p50"] for r in runs]),
        }
        log(f"fan-out 1000, timed at recv: p99 {details['clients_1000_receipt_at_read']['p99_from_send_ms']}")
    except Exception as error:
        bench.fail(["fanout_p99_ms_1000"], str(error))
    finally:
        daemon.stop()
        details["daemon_log_tail"] = daemon.log_text().splitlines()[-5:]
        bench.details["fanout"] = details


def fanout_runs(bench, daemon, clients, toggles, receipt):
    runs = []
    for _ in range(bench.args.repeats):
        run = subprocess.run([str(FANOUT), "--socket", daemon.socket, "--clients", str(clients),
                              "--toggles", str(toggles), "--pid", str(daemon.pid),
                              "--threads", str(bench.args.reader_threads), "--receipt", receipt],
                             capture_output=True, text=True, env=clean_env(), timeout=300)
        if run.returncode != 0:
            raise RuntimeError(f"orientd-fanout --clients {clients} --receipt {receipt}: {run.stderr.strip()}")
        runs.append(json.loads(run.stdout))
    return runs


def notes(details):
    """The table's notes on this part's keys."""
    fan = details.get("fanout", {})
    if "clients_1000" not in fan:
        return {}
    s = fan["clients_1000"]["p99_from_send_ms"]
    cpu = fan["clients_1000"]["daemon_cpu_ms_per_publish"]
    at_read = ((fan.get("clients_1000_receipt_at_read") or {}).get("p99_from_send_ms") or {}).get("median")
    return {"fanout_p99_ms_1000": f"repeats {s['min']}–{s['max']}; p99 @1 {fan.get('fanout_p99_ms_1')}, "
                                  f"@100 {fan.get('fanout_p99_ms_100')}; from first receipt "
                                  f"{fan['clients_1000']['p99_from_first_ms']['median']}; daemon CPU "
                                  f"{cpu['median'] if cpu else None} ms/publish; reader floor "
                                  f"{fan['clients_1000']['reader_floor_ms']['median']}; timed at recv {at_read}"}
