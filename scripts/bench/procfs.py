"""What /proc says about a daemon, for every part of `make bench`: its
context switches and on-CPU time (per thread), its memory (/proc/PID/status,
smaps, smaps_rollup), its threads and the libraries it maps; and which Swift
modules the binary links that it should not.
"""

import os
from pathlib import Path


def context_switches(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        except (FileNotFoundError, ProcessLookupError):
            continue
        total += int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"])
    return total


def cpu_ns(pid):
    """On-CPU ns of every live thread (schedstat), and utime+stime ticks (stat,
    which also counts threads that ended)."""
    ns = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return ns, ticks


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def rollup_kib(pid):
    """Pss and private KiB (Private_Clean + Private_Dirty) from /proc/PID/smaps_rollup."""
    fields = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                fields[parts[0][:-1]] = int(parts[1])
    return fields.get("Pss"), fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)


def swift_stdlib(pid):
    """"shared" when the process maps libswiftCore.so, else "static"."""
    with open(f"/proc/{pid}/maps") as f:
        return "shared" if "libswiftCore.so" in f.read() else "static"


def rss_by_mapping(pid, top=40, field="Rss"):
    """Where the resident pages are: `field` (KiB: Rss, or Anonymous for the
    pages only swap could take back) summed per mapped file ([heap], [stack],
    anonymous mappings as "[anon]"), the largest `top` and the rest."""
    totals = {}
    name = None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if "-" in fields[0] and not fields[0].endswith(":"):
                name = os.path.basename(fields[5]) if len(fields) > 5 and fields[5].startswith("/") \
                    else (fields[5] if len(fields) > 5 else "[anon]")
            elif fields[0] == field + ":" and int(fields[1]):
                totals[name] = totals.get(name, 0) + int(fields[1])
    ordered = sorted(totals.items(), key=lambda item: -item[1])
    result = dict(ordered[:top])
    rest = sum(kib for _, kib in ordered[top:])
    if rest:
        result["(the rest)"] = rest
    return result


def memory_breakdown(pid, who):
    """`who`'s RssAnon/RssFile/RssShmem and its RSS per mapping, as details keys."""
    return {f"{who}_rss_anon_file_shmem_kib": [status_kib(pid, f) for f in ("RssAnon", "RssFile", "RssShmem")],
            f"{who}_rss_kib_by_mapping": rss_by_mapping(pid),
            f"{who}_anon_kib_by_mapping": rss_by_mapping(pid, field="Anonymous")}


def linked_swift_modules(binary):
    """Which of the Swift modules docs/architecture.md (Memory) keeps out of
    orientd are in `binary` anyway: their mangled names, or the shared
    library's name, appear in it."""
    data = Path(binary).read_bytes()
    markers = {"_StringProcessing": (b"17_StringProcessing", b"libswift_StringProcessing"),
               "_RegexParser": (b"12_RegexParser", b"libswift_RegexParser"),
               "_Concurrency": (b"swift_task_enqueueGlobal", b"libswift_Concurrency")}
    return sorted(name for name, needles in markers.items() if any(n in data for n in needles))


def mapped_libraries(pid):
    """The shared objects mapped into the process (basenames, sorted)."""
    with open(f"/proc/{pid}/maps") as f:
        paths = {line.split()[5] for line in f if len(line.split()) > 5 and ".so" in line.split()[5]}
    return sorted(os.path.basename(p) for p in paths)


def threads(pid):
    return len(os.listdir(f"/proc/{pid}/task"))
