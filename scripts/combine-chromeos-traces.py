#!/usr/bin/env python3
"""Joins the ChromeOS lid and base recordings into two-sensor traces.

traces/recorded/chromeos held each Chromium recording as two traces, the
display's sensor (`*_lid.trace`) and the keyboard base's (`*_base.trace`), with
the same times. orientd's trace format now carries a convertible's base in the
optional columns base_x,base_y,base_z (docs/traces.md), so each pair became one
trace, `chromeos_NAME.trace`: the lid in x,y,z, the base beside it, both as
recorded (the values' text is copied, not reformatted). The base needs no
`base_mount_matrix`: Chromium's readings already put the base in the frame the
display would have with the lid opened flat to 180° (docs/behaviour.md,
"Tablet mode").

Usage: scripts/combine-chromeos-traces.py [DIR]   (default traces/recorded/chromeos)

The pairs were removed once joined; `git show 5e126fa:traces/recorded/chromeos/
chromeos_laptopmode_lid.trace` (and so on) gives them back to run this again.
"""
import os
import sys

NAMES = ["laptopmode", "fullyopen", "verticalhinge", "verticalhinge_unstable"]


def read(path):
    """The header lines and the sample lines (t_ms,x,y,z as text) of a trace."""
    headers, rows, seen_columns = [], [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not seen_columns:
                if line.startswith("#"):
                    headers.append(line)
                    continue
                if line.strip() != "t_ms,x,y,z":
                    sys.exit(f"{path}: expected the column header t_ms,x,y,z, found {line!r}")
                seen_columns = True
                continue
            if line.strip() and not line.startswith("#"):
                fields = [field.strip() for field in line.split(",")]
                if len(fields) != 4:
                    sys.exit(f"{path}: expected 4 fields, found {line!r}")
                rows.append(fields)
    return headers, rows


def combine(directory, name):
    lid_headers, lid = read(os.path.join(directory, f"chromeos_{name}_lid.trace"))
    _, base = read(os.path.join(directory, f"chromeos_{name}_base.trace"))
    if [r[0] for r in lid] != [r[0] for r in base]:
        sys.exit(f"{name}: the lid and base traces have different times")
    out = []
    for header in lid_headers:
        if header.startswith("# device:"):
            out.append("# device: Chromebook convertible (model not stated; 2014-2015 data); x,y,z: the display (lid) "
                       "accelerometer; base_x,base_y,base_z: the keyboard base accelerometer, same times")
            out.append("# base_frame: as recorded; the frame the display would have with the lid opened flat to 180 deg, "
                       "so no base_mount_matrix (identity)")
        else:
            out.append(header)
    out.append("# joined-by: scripts/combine-chromeos-traces.py from the _lid and _base traces")
    out.append("t_ms,x,y,z,base_x,base_y,base_z")
    out += [",".join(l + b[1:]) for l, b in zip(lid, base)]
    with open(os.path.join(directory, f"chromeos_{name}.trace"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join("traces", "recorded", "chromeos")
    for name in NAMES:
        combine(directory, name)


if __name__ == "__main__":
    main()
