"""What a daemon reads from sysfs, and how often, for the sensors part
(sensors.py): strace attached to both daemons at once, apart from the CPU
windows, since ptrace slows every syscall.
"""

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from common import clean_env


def strace_polls(pids, seconds, attributes):
    """When each process (`pids`: {who: pid}) touched each of `attributes`
    (sysfs file names) over `seconds`, from `strace -f -ttt -y` attached to
    them all at once: the syscalls (openat, read, pread64) naming the file,
    grouped into polls (those within 50 ms of the previous are one poll).
    {who: {attribute: {"polls", "interval_ms" (median), "syscalls"}}}, or None
    without strace. Run apart from the CPU windows: ptrace slows every syscall."""
    binary = shutil.which("strace")
    if binary is None:
        return None
    runs = {}
    for who, pid in pids.items():
        out = tempfile.NamedTemporaryFile(prefix=f"strace-{who}-", suffix=".txt", delete=False)
        out.close()
        process = subprocess.Popen([binary, "-f", "-ttt", "-y", "-e", "trace=openat,read,pread64", "-o", out.name,
                                    "-p", str(pid)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=clean_env())
        runs[who] = (process, out.name)
    time.sleep(seconds)
    result = {}
    for who, (process, path) in runs.items():
        process.terminate()  # strace detaches on SIGTERM
        process.wait()
        lines = Path(path).read_text(errors="replace").splitlines()
        os.unlink(path)
        per = {}
        for attribute in attributes:
            times, syscalls = [], 0
            for line in lines:
                fields = line.split(None, 2)  # [tid] time syscall(...)
                if len(fields) < 3 or f"/{attribute}" not in fields[2]:
                    continue
                syscalls += 1
                at = float(fields[1])
                if not times or at - times[-1][-1] > 0.05:
                    times.append([at])
                else:
                    times[-1].append(at)
            starts = [group[0] for group in times]
            gaps = [(b - a) * 1000 for a, b in zip(starts, starts[1:])]
            per[attribute] = {"polls": len(starts), "syscalls": syscalls,
                              "syscalls_per_poll": round(syscalls / len(starts), 2) if starts else None,
                              "interval_ms": round(statistics.median(gaps), 1) if gaps else None}
        result[who] = per
    return result
