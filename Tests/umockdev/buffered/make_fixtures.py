#!/usr/bin/env python3
"""Writes the umockdev fixtures of the buffered-capture tests (test_buffered.py).

    python3 Tests/umockdev/buffered/make_fixtures.py           # (re)write them
    python3 Tests/umockdev/buffered/make_fixtures.py --check   # exit 1 if stale

Every file in this directory except this script is generated here; edit the
tables below, never the fixtures. The output is deterministic (seeded noise), so
a regenerated tree is byte-identical and `--check` (also run by the test suite)
catches a hand edit or a forgotten regeneration.

Devices (`*.umockdev`, `umockdev-run -d`), modelled on real drivers:

  bma255-s12le       Bosch BMA255 through bmc150-accel on I2C (ACPI BOSC0200):
                     scan elements `le:s12/16>>4` (the 12-bit value in the top of
                     a little-endian word; bit 0 of the low byte is the chip's
                     new_data flag and is set in every scan, so an unshifted or
                     unmasked decode is wrong), no timestamp element: 6-byte
                     scans. Per-axis `in_accel_{x,y,z}_scale` (the driver has one
                     shared scale; per-axis here so buffered reads cover that
                     calibration path too).
  mpu6050-s16be      InvenSense MPU-6050 (inv_mpu6050): scan elements
                     `be:s16/16>>0`, shared `in_accel_scale`, the temperature and
                     gyroscope elements present but left disabled (the daemon must
                     enable only the accelerometer). The real driver also has a
                     timestamp element (index 7); it is left out here so this
                     fixture isolates big-endian decoding. 6-byte scans.
  bmc150-s12le-timestamp
                     bmc150-accel as it really is: `le:s12/16>>4` plus
                     `in_timestamp` `le:s64/64>>0` at index 3, shared
                     `in_accel_scale`: x, y, z at bytes 0, 2, 4, padding at 6–7,
                     the timestamp at 8–15: 16-byte scans.
  bma255-s12le-rawleft
                     bma255-s12le with its raw attributes holding a left-up
                     reading: for the fallback to polling.

In the first three, the raw attributes (`in_accel_*_raw`, the polled path) hold a
bottom-up reading that no script ever delivers: a daemon that polls instead of
reading the buffer publishes bottom-up and fails the test.

Scripts (`*.script`, `umockdev-run -s /dev/iio:device0=FILE`; format in
/usr/share/doc/umockdev/script-format.txt): one `r <delay ms> <bytes>` line per
scan, 50 ms apart (20 Hz). Bytes below 32 are written `^` + chr(byte + 64), `^`
itself as ``^` ``, everything else verbatim (bytes ≥ 128 as single bytes). umockdev
drops a space that opens a line's data, so no scan may start with byte 32: the
generator draws that scan's noise again (and refuses such data elsewhere).

  *-turns.script     normal (y ≈ −g) for 0.8 s, left-up (x ≈ +g) for 1 s, then
                     right-up (x ≈ −g) for 3 s; the device leans back 10° (z ≈
                     −1.7 m/s²) and every axis carries ±0.05 m/s² of noise, so
                     negative values occur on every axis.
  empty.script       nothing at all.
  late.script        one normal scan after 5 s: the buffer stays silent far past
                     the daemon's 500 ms grace.

HID sensor hub light and compass (`hid-sensor-*`, Tests/dbus/test_hid_buffered.py
and Tests/umockdev/test_buffered_sensors.py), modelled on an Intel ISH sensor hub
(HID `001F:8087:0AC2`), each IIO device under its `HID-SENSOR-<usage>.N.auto`
platform device, with the data-ready trigger the hub's common code registers
(`<name>-dev<N>`, hid-sensor-trigger.c) as a sibling `triggerN`, and an empty
`trigger/current_trigger` (so the daemon must attach that trigger itself):

  hid-sensor-als     iio:device0 `als` (hid-sensor-als, usage 0x200041), as the
                     driver was before it gained its illuminance channel: one
                     channel, IIO_INTENSITY with modifier BOTH. Scan elements
                     `in_intensity_both` `le:s32/32>>0` (the driver's sign 's',
                     realbits = the 32-bit HID report field, storage u32) at
                     index 0 and `in_timestamp` `le:s64/64>>0` at index 1: the
                     value at bytes 0–3, padding, the timestamp at 8–15: 16-byte
                     scans. Scale and offset shared by type (the driver's
                     info_mask_shared_by_type): `in_intensity_scale=0.100000`,
                     `in_intensity_offset=10` (non-zero so that a daemon leaving
                     the offset out reads 1 lux low per 10 raw). Trigger
                     `trigger0` named `als-dev0`. `in_intensity_both_raw` holds
                     a level (7777 lux) no script delivers, and there is no
                     `in_illuminance*` attribute, so only iio-buffer-als reads it.
  hid-sensor-magn-3d iio:device1 `magn_3d` (hid-sensor-magn-3d, usage 0x200083):
                     magn x, y, z and the tilt-compensated heading, each
                     `le:s32/32>>0` with scan indices compacted as the driver
                     assigns them (0–3), `in_timestamp` at 4. The daemon enables
                     only `in_rot_from_north_magnetic_tilt_comp` and the
                     timestamp: heading at 0–3, the timestamp at 8–15: 16-byte
                     scans. `in_rot_scale=0.100000` (tenths of a degree) and
                     `in_rot_offset=-50` (the real driver reports 0; -50 here so
                     that a dropped offset shows, 5° off), `in_magn_scale`
                     beside them. Trigger `trigger1` named `magn_3d-dev1`.
                     `in_rot_from_north_magnetic_tilt_comp_raw` holds 123.4°,
                     which no script delivers.

  hid-sensor-als.script      one scan every 100 ms: 500 lux for 3 s, 80 lux for
                             1 s, 3000 lux for 3 s (LIGHT_SEQUENCE).
  hid-sensor-magn-3d.script  one scan every 100 ms: 90° for 3 s, 359.5° for
                             1 s, a raw value giving exactly 360° (published as
                             0°) for 1 s, then 180° for 3 s (COMPASS_SEQUENCE).
                             The first value is held 3 s: umockdev's script clock
                             starts when the script is loaded (umockdev-run: at
                             start), not when the daemon opens the node, and the
                             daemon opens it only when claimed.
"""

import math
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
G = 9.80665
SCAN_PERIOD_MS = 50
TILT_DEG = 10.0
NOISE = 0.05  # m/s², uniform on each axis

# Gravity in the sensor frame, m/s², for each held orientation (identity mount
# matrix; y up the screen, x to the right, z out of the screen).
_LEAN = math.radians(TILT_DEG)
POSE = {
    "normal": (0.0, -G * math.cos(_LEAN), -G * math.sin(_LEAN)),
    "left-up": (G * math.cos(_LEAN), 0.0, -G * math.sin(_LEAN)),
    "right-up": (-G * math.cos(_LEAN), 0.0, -G * math.sin(_LEAN)),
    "bottom-up": (0.0, G * math.cos(_LEAN), -G * math.sin(_LEAN)),
}
# (orientation, number of scans) in the order the turns script delivers them.
TURNS = [("normal", 16), ("left-up", 20), ("right-up", 60)]
TURN_SEQUENCE = [name for name, _ in TURNS]


class ScanType:
    """`[be|le]:[s|u]BITS/STORAGE>>SHIFT`, as in scan_elements/*_type."""

    def __init__(self, text):
        self.text = text
        endian, rest = text.split(":")
        self.big_endian = endian == "be"
        self.signed = rest[0] == "s"
        bits, rest = rest[1:].split("/")
        storage, shift = rest.split(">>")
        self.bits, self.storage, self.shift = int(bits), int(storage), int(shift)

    def encode(self, value, low_bits=0):
        """The stored word for `value`, with `low_bits` in the bits below the shift."""
        lo = -(1 << (self.bits - 1)) if self.signed else 0
        hi = (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1
        if not lo <= value <= hi:
            raise ValueError(f"{value} does not fit {self.text}")
        word = ((value & ((1 << self.bits) - 1)) << self.shift) | (low_bits & ((1 << self.shift) - 1))
        return word.to_bytes(self.storage // 8, "big" if self.big_endian else "little")


class Device:
    """One IIO accelerometer: sysfs attributes, udev properties, scan elements."""

    def __init__(self, name, *, syspath, parents, chip, scan_elements, scales, raw_pose,
                 extra_attributes=(), low_bits=0, minor=0):
        self.name = name
        self.syspath = syspath
        self.parents = parents  # [(syspath, [(kind, key, value)])]
        self.chip = chip
        # (channel, index, type text, enabled-by-the-daemon expected)
        self.scan_elements = scan_elements
        self.scales = scales  # {"x": s, "y": s, "z": s} (per axis) or {"": s} (shared)
        self.raw_pose = raw_pose
        self.extra_attributes = list(extra_attributes)
        self.low_bits = low_bits
        self.minor = minor

    def scale(self, axis):
        return self.scales.get(axis, self.scales.get(""))

    def raw(self, vector):
        return [round(v / self.scale(axis)) for axis, v in zip("xyz", vector)]

    def umockdev(self):
        lines = [f"P: {self.syspath}", "N: iio:device0", "E: DEVNAME=/dev/iio:device0",
                 "E: DEVTYPE=iio_device", "E: MAJOR=241", f"E: MINOR={self.minor}", "E: SUBSYSTEM=iio",
                 f"A: dev=241:{self.minor}\\n", f"A: name={self.chip}\\n"]
        for axis, value in zip("xyz", self.raw(POSE[self.raw_pose])):
            lines.append(f"A: in_accel_{axis}_raw={value}\\n")
        for axis, value in self.scales.items():
            lines.append(f"A: in_accel{'_' + axis if axis else ''}_scale={value:.6f}\\n")
        lines += [f"A: {key}={value}\\n" for key, value in self.extra_attributes]
        for channel, index, type_text, _ in self.scan_elements:
            lines += [f"A: scan_elements/{channel}_en=0\\n", f"A: scan_elements/{channel}_index={index}\\n",
                      f"A: scan_elements/{channel}_type={type_text}\\n"]
        lines += ["A: buffer/enable=0\\n", "A: buffer/length=2\\n", "A: buffer/watermark=1\\n"]
        for syspath, entries in self.parents:
            lines += ["", f"P: {syspath}"]
            lines += [f"{kind}: {key}={value}" + ("\\n" if kind == "A" else "") for kind, key, value in entries]
        return "\n".join(lines) + "\n"

    def enabled_layout(self):
        """[(channel, offset, ScanType)] of the elements the daemon enables, and the scan size."""
        placed, offset, largest = [], 0, 1
        for channel, index, type_text, enabled in sorted(self.scan_elements, key=lambda e: e[1]):
            if not enabled:
                continue
            scan_type = ScanType(type_text)
            size = scan_type.storage // 8
            offset = (offset + size - 1) // size * size
            placed.append((channel, offset, scan_type))
            offset += size
            largest = max(largest, size)
        return placed, (offset + largest - 1) // largest * largest

    def scan(self, vector, timestamp_ns):
        placed, size = self.enabled_layout()
        data = bytearray(size)
        raw = dict(zip(("in_accel_x", "in_accel_y", "in_accel_z"), self.raw(vector)))
        for channel, offset, scan_type in placed:
            if channel == "in_timestamp":
                value, low = timestamp_ns, 0
            else:
                value, low = raw[channel], self.low_bits
            encoded = scan_type.encode(value, low)
            data[offset:offset + len(encoded)] = encoded
        return bytes(data)


def accel_elements(type_text, timestamp_index=None):
    elements = [(f"in_accel_{axis}", i, type_text, True) for i, axis in enumerate("xyz")]
    if timestamp_index is not None:
        elements.append(("in_timestamp", timestamp_index, "le:s64/64>>0", True))
    return elements


BMC150_PARENTS = [
    ("/devices/pci0000:00/808622C1:03/i2c-3/i2c-BOSC0200:00",
     [("E", "DRIVER", "bmc150_accel_i2c"), ("E", "MODALIAS", "acpi:BOSC0200:"), ("E", "SUBSYSTEM", "i2c"),
      ("A", "modalias", "acpi:BOSC0200:"), ("A", "name", "BOSC0200:00")]),
    ("/devices/pci0000:00/808622C1:03/i2c-3", [("E", "SUBSYSTEM", "i2c"), ("A", "name", "Synopsys DesignWare I2C adapter")]),
]
BMC150_PATH = "/devices/pci0000:00/808622C1:03/i2c-3/i2c-BOSC0200:00/iio:device0"
BMC150_ATTRIBUTES = [
    ("in_accel_sampling_frequency", "15.620000"),
    ("in_accel_filter_low_pass_3db_frequency", "7.810000"),
    ("sampling_frequency_available", "15.620000 31.260000 62.500000 125 250 500 1000 2000"),
    ("in_accel_scale_available", "0.009582 0.019163 0.038326 0.076652"),
    ("in_accel_mount_matrix", "1, 0, 0; 0, 1, 0; 0, 0, 1"),
    ("in_temp_raw", "-12"),
    ("in_temp_scale", "500"),
    ("in_temp_offset", "46"),
]
# The BMA255's new_data flag: bit 0 of each axis's LSB register, below the 12-bit value.
NEW_DATA = 0x1


def bma255(raw_pose, name):
    return Device(
        name, syspath=BMC150_PATH, parents=BMC150_PARENTS, chip="bma255",
        scan_elements=accel_elements("le:s12/16>>4"),
        scales={"x": 0.009571, "y": 0.009582, "z": 0.009597},
        raw_pose=raw_pose, extra_attributes=BMC150_ATTRIBUTES, low_bits=NEW_DATA)


DEVICES = {
    "bma255-s12le": bma255("bottom-up", "bma255-s12le"),
    "bma255-s12le-rawleft": bma255("left-up", "bma255-s12le-rawleft"),
    "mpu6050-s16be": Device(
        "mpu6050-s16be",
        syspath="/devices/platform/soc/1c2b000.i2c/i2c-1/1-0068/iio:device0",
        parents=[("/devices/platform/soc/1c2b000.i2c/i2c-1/1-0068",
                  [("E", "DRIVER", "inv-mpu6050-i2c"), ("E", "MODALIAS", "of:Nimu@68T(null)Cinvensense,mpu6050"),
                   ("E", "OF_COMPATIBLE_0", "invensense,mpu6050"), ("E", "SUBSYSTEM", "i2c"),
                   ("A", "name", "mpu6050")])],
        chip="mpu6050",
        scan_elements=accel_elements("be:s16/16>>0") + [
            ("in_temp", 3, "be:s16/16>>0", False),
            ("in_anglvel_x", 4, "be:s16/16>>0", False),
            ("in_anglvel_y", 5, "be:s16/16>>0", False),
            ("in_anglvel_z", 6, "be:s16/16>>0", False)],
        scales={"": 0.000598},
        raw_pose="bottom-up",
        extra_attributes=[
            ("sampling_frequency", "50"),
            ("sampling_frequency_available", "10 20 50 100 200 500"),
            ("in_accel_scale_available", "0.000598 0.001196 0.002392 0.004785"),
            ("in_accel_mount_matrix", "1, 0, 0; 0, 1, 0; 0, 0, 1"),
            ("in_anglvel_x_raw", "-3"), ("in_anglvel_y_raw", "5"), ("in_anglvel_z_raw", "-1"),
            ("in_anglvel_scale", "0.001064724"),
            ("in_temp_raw", "-1880"), ("in_temp_scale", "2.941176"), ("in_temp_offset", "12420"),
        ]),
    "bmc150-s12le-timestamp": Device(
        "bmc150-s12le-timestamp", syspath=BMC150_PATH, parents=BMC150_PARENTS, chip="bmc150_accel",
        scan_elements=accel_elements("le:s12/16>>4", timestamp_index=3),
        scales={"": 0.009582},
        raw_pose="bottom-up", extra_attributes=BMC150_ATTRIBUTES, low_bits=NEW_DATA),
}

# A HID sensor hub's accelerometer (hid-sensor-accel-3d): it reports only on
# change (it has in_accel_hysteresis), so the daemon gives its buffer a longer
# grace and keeps it when that passes. Its raw attributes hold left-up; its
# late script's scans, normal, begin 3 s after the buffer opens.
HID_ACCEL_PATH = ("/devices/pci0000:00/0000:00:12.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0001/"
                  "HID-SENSOR-200073.2.auto/iio:device0")
DEVICES["hid-sensor-accel-3d-onchange"] = Device(
    "hid-sensor-accel-3d-onchange", syspath=HID_ACCEL_PATH,
    parents=[("/devices/pci0000:00/0000:00:12.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0001/HID-SENSOR-200073.2.auto",
              [("E", "DRIVER", "hid_sensor_accel_3d"), ("E", "MODALIAS", "platform:HID-SENSOR-200073"),
               ("E", "SUBSYSTEM", "platform")])],
    chip="accel_3d", scan_elements=accel_elements("le:s32/32>>0", timestamp_index=3),
    scales={"": 0.000098}, raw_pose="left-up",
    extra_attributes=[("in_accel_hysteresis", "0.000000"), ("in_accel_sampling_frequency", "10.000000")])
HID_ACCEL_LATE_MS = 3000

# MARK: HID sensor hub light and compass

HID_HUB = "/devices/pci0000:00/0000:00:12.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}/001F:8087:0AC2.0001"
HID_HUB_PARENTS = [
    (HID_HUB, [("E", "DRIVER", "hid-sensor-hub"), ("E", "HID_ID", "001F:00008087:00000AC2"),
               ("E", "HID_NAME", "hid-ishtp 8087:0AC2"), ("E", "MODALIAS", "hid:b001Fg0001v00008087p00000AC2"),
               ("E", "SUBSYSTEM", "hid"), ("A", "modalias", "hid:b001Fg0001v00008087p00000AC2")]),
    ("/devices/pci0000:00/0000:00:12.0/{33AECD58-B679-4E54-9BD9-A04D34F0C226}",
     [("E", "DRIVER", "ishtp-hid"), ("E", "SUBSYSTEM", "ishtp")]),
    ("/devices/pci0000:00/0000:00:12.0",
     [("E", "DRIVER", "intel_ish_ipc"), ("E", "PCI_ID", "8086:A0FC"), ("E", "SUBSYSTEM", "pci"),
      ("A", "vendor", "0x8086"), ("A", "device", "0xa0fc")]),
]
#: (lux, scans) the light script delivers, one scan every HID_SCAN_PERIOD_MS.
LIGHT_SEQUENCE = [(500.0, 30), (80.0, 10), (3000.0, 30)]
#: (degrees as computed, scans) the compass script delivers; 360 is published as 0.
COMPASS_SEQUENCE = [(90.0, 30), (359.5, 10), (360.0, 10), (180.0, 30)]
HID_SCAN_PERIOD_MS = 100


class HidSensor:
    """One HID sensor hub IIO device with one channel the daemon captures
    (`channel`, scaled by `scale` and `offset`) beside others it must leave
    disabled, plus the timestamp; and its trigger."""

    def __init__(self, name, *, usage, instance, sysname, chip, channel, elements, scale, offset,
                 attributes, sequence, idle_value):
        self.name = name
        self.platform = f"{HID_HUB}/HID-SENSOR-{usage}.{instance}.auto"
        self.usage = usage
        self.sysname = sysname
        self.number = int(sysname.removeprefix("iio:device"))
        self.chip = chip
        self.channel = channel
        self.elements = elements  # [(channel, index, type text)], the captured one among them
        self.scale, self.offset = scale, offset
        self.attributes = attributes  # [(name, text)], scale and offset among them
        self.sequence = sequence
        self.idle_value = idle_value

    def raw(self, value):
        """The raw word that reads `value`: value = (raw + offset) × scale."""
        raw = round(value / self.scale - self.offset)
        if abs((raw + self.offset) * self.scale - value) > 1e-9:
            raise ValueError(f"{value} is not a whole raw value at scale {self.scale}")
        return raw

    def umockdev(self):
        driver = {"als": "hid_sensor_als", "magn_3d": "hid_sensor_magn_3d"}[self.chip]
        lines = [f"P: {self.platform}/{self.sysname}", f"N: {self.sysname}", f"E: DEVNAME=/dev/{self.sysname}",
                 "E: DEVTYPE=iio_device", "E: MAJOR=236", f"E: MINOR={self.number}", "E: SUBSYSTEM=iio",
                 f"A: dev=236:{self.number}\\n", f"A: name={self.chip}\\n",
                 f"A: {self.channel}_raw={self.raw(self.idle_value)}\\n"]
        lines += [f"A: {key}={value}\\n" for key, value in self.attributes]
        for channel, index, type_text in self.elements:
            lines += [f"A: scan_elements/{channel}_en=0\\n", f"A: scan_elements/{channel}_index={index}\\n",
                      f"A: scan_elements/{channel}_type={type_text}\\n"]
        lines += ["A: buffer/enable=0\\n", "A: buffer/length=2\\n", "A: buffer/watermark=1\\n",
                  "A: trigger/current_trigger=\\n"]
        lines += ["", f"P: {self.platform}", f"E: DRIVER={driver}", f"E: MODALIAS=platform:HID-SENSOR-{self.usage}",
                  "E: SUBSYSTEM=platform", f"A: modalias=platform:HID-SENSOR-{self.usage}\\n"]
        for syspath, entries in HID_HUB_PARENTS:
            lines += ["", f"P: {syspath}"]
            lines += [f"{kind}: {key}={value}" + ("\\n" if kind == "A" else "") for kind, key, value in entries]
        # The data-ready trigger, a sibling of the IIO device (iio_trigger_alloc(parent, "%s-dev%d", ...)).
        lines += ["", f"P: {self.platform}/trigger{self.number}", "E: SUBSYSTEM=iio",
                  f"A: name={self.chip}-dev{self.number}\\n"]
        return "\n".join(lines) + "\n"

    def scan(self, value, timestamp_ns):
        """The captured channel (le:s32 at 0) and the timestamp (le:s64 at 8): 16 bytes."""
        data = ScanType("le:s32/32>>0").encode(self.raw(value)) + bytes(4) + ScanType("le:s64/64>>0").encode(timestamp_ns)
        assert len(data) == 16
        return data

    def script(self):
        lines = [f"# generated by make_fixtures.py for {self.name}.umockdev: "
                 + ", ".join(f"{value:g} x{count}" for value, count in self.sequence)
                 + f", one scan every {HID_SCAN_PERIOD_MS} ms"]
        n = 0
        for value, count in self.sequence:
            for _ in range(count):
                scan = self.scan(value, FIRST_TIMESTAMP_NS + n * HID_SCAN_PERIOD_MS * 1_000_000)
                lines.append(f"r {HID_SCAN_PERIOD_MS} {escape(scan)}")
                n += 1
        return "\n".join(lines) + "\n"


HID_SENSORS = {
    "hid-sensor-als": HidSensor(
        "hid-sensor-als", usage="200041", instance=3, sysname="iio:device0", chip="als",
        channel="in_intensity_both",
        elements=[("in_intensity_both", 0, "le:s32/32>>0"), ("in_timestamp", 1, "le:s64/64>>0")],
        scale=0.1, offset=10,
        attributes=[("in_intensity_scale", "0.100000"), ("in_intensity_offset", "10"),
                    ("in_intensity_sampling_frequency", "10.000000"), ("in_intensity_hysteresis", "0.000000")],
        sequence=LIGHT_SEQUENCE, idle_value=7777.0),
    "hid-sensor-magn-3d": HidSensor(
        "hid-sensor-magn-3d", usage="200083", instance=4, sysname="iio:device1", chip="magn_3d",
        channel="in_rot_from_north_magnetic_tilt_comp",
        elements=[("in_magn_x", 0, "le:s32/32>>0"), ("in_magn_y", 1, "le:s32/32>>0"), ("in_magn_z", 2, "le:s32/32>>0"),
                  ("in_rot_from_north_magnetic_tilt_comp", 3, "le:s32/32>>0"), ("in_timestamp", 4, "le:s64/64>>0")],
        scale=0.1, offset=-50,
        attributes=[("in_magn_x_raw", "-212"), ("in_magn_y_raw", "118"), ("in_magn_z_raw", "-405"),
                    ("in_magn_scale", "0.001000"), ("in_magn_offset", "0"),
                    ("in_rot_scale", "0.100000"), ("in_rot_offset", "-50"),
                    ("in_magn_sampling_frequency", "10.000000"), ("in_rot_sampling_frequency", "10.000000"),
                    ("in_magn_hysteresis", "0.000000"), ("in_rot_hysteresis", "0.000000")],
        sequence=COMPASS_SEQUENCE, idle_value=123.4),
}


# An arbitrary CLOCK_REALTIME (the kernel's default IIO clock) at the first scan, ns.
FIRST_TIMESTAMP_NS = 1_732_924_800_123_456_789


def escape(data):
    if data[:1] == b" ":
        raise ValueError("umockdev's script reader drops a space that opens the data")
    out = []
    for byte in data:
        if byte == 0x5E:
            out.append("^`")
        elif byte < 32:
            out.append("^" + chr(byte + 64))
        else:
            out.append(chr(byte))
    return "".join(out)


def turns_script(device, seed):
    rng = random.Random(seed)
    lines = [f"# generated by make_fixtures.py for {device.name}.umockdev: "
             + ", ".join(f"{name} x{count}" for name, count in TURNS)
             + f", one scan every {SCAN_PERIOD_MS} ms"]
    n = 0
    for name, count in TURNS:
        for _ in range(count):
            while True:
                vector = [v + rng.uniform(-NOISE, NOISE) for v in POSE[name]]
                scan = device.scan(vector, FIRST_TIMESTAMP_NS + n * SCAN_PERIOD_MS * 1_000_000)
                if scan[0] != 0x20:
                    break  # umockdev drops a space that opens the data: draw the noise again
            lines.append(f"r {SCAN_PERIOD_MS} {escape(scan)}")
            n += 1
    return "\n".join(lines) + "\n"


def fixtures():
    """{file name: bytes} for every generated fixture."""
    out = {f"{name}.umockdev": device.umockdev().encode() for name, device in DEVICES.items()}
    for seed, name in enumerate(["bma255-s12le", "mpu6050-s16be", "bmc150-s12le-timestamp"]):
        # latin-1 keeps each byte ≥ 128 a single byte in the file.
        out[f"{name}-turns.script"] = turns_script(DEVICES[name], seed).encode("latin-1")
    out["empty.script"] = b""
    late = DEVICES["bma255-s12le-rawleft"].scan(POSE["normal"], FIRST_TIMESTAMP_NS)
    out["late.script"] = (f"# generated by make_fixtures.py: one normal scan, 5 s late\n"
                          f"r 5000 {escape(late)}\n").encode("latin-1")
    hid = DEVICES["hid-sensor-accel-3d-onchange"]
    lines = [f"# generated by make_fixtures.py for hid-sensor-accel-3d-onchange.umockdev: normal x20, "
             f"the first {HID_ACCEL_LATE_MS} ms late, then one every 100 ms"]
    for n in range(20):
        lines.append(f"r {HID_ACCEL_LATE_MS if n == 0 else 100} "
                     f"{escape(hid.scan(POSE['normal'], FIRST_TIMESTAMP_NS + n * 100_000_000))}")
    out["hid-sensor-accel-3d-onchange-late.script"] = ("\n".join(lines) + "\n").encode("latin-1")
    for name, sensor in HID_SENSORS.items():
        out[f"{name}.umockdev"] = sensor.umockdev().encode()
        out[f"{name}.script"] = sensor.script().encode("latin-1")
    return out


def stale(directory=HERE):
    """Names of the fixtures that differ from (or are missing in) `directory`."""
    return sorted(name for name, data in fixtures().items()
                  if not (directory / name).is_file() or (directory / name).read_bytes() != data)


def main(argv):
    if argv[1:] == ["--check"]:
        names = stale()
        for name in names:
            print(f"{HERE / name}: out of date; run {Path(__file__).name}", file=sys.stderr)
        return 1 if names else 0
    if argv[1:]:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 64
    for name, data in fixtures().items():
        (HERE / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
