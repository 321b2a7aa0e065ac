"""Fake evdev (input-subsystem) devices for the umockdev tests: an
accelerometer (ID_INPUT_ACCELEROMETER, ABS_X/Y/Z) and a proximity switch
(EV_SW SW_FRONT_PROXIMITY), which a process under umockdev's preload opens and
reads with libevdev as it would a real /dev/input/eventN.

How umockdev 0.17 makes one (found by trying; README.md has the details):

- The sysfs side is a `devices/input-*.umockdev` description, as for IIO.
  Its `N: input/eventN` line makes /dev/input/eventN a pty; the testbed holds the
  master (`Testbed.get_dev_fd`).
- The ioctls are a `devices/input-*.ioctl` record loaded with
  `Testbed.load_ioctl(devnode, file)`: one line per ioctl, `NAME[(nr)] RET HEX`.
  umockdev answers only an ioctl whose size matches the record's data exactly,
  so the records carry what libevdev 1.13's libevdev_new_from_fd asks for:
  EVIOCGBIT(0..) with 8 bytes (96 for EV_KEY, 16 for EV_FF), EVIOCGNAME /
  EVIOCGPHYS / EVIOCGUNIQ with 255, EVIOCGPROP, EVIOCGKEY (96), EVIOCGLED,
  EVIOCGSW (8 each), EVIOCGID, EVIOCGVERSION and EVIOCGABS per axis. Any other
  'E' ioctl fails with ENOENT. `ioctl_record()` writes them from an
  `EvdevDescription`; `python3 evdev_support.py --write` regenerates the files.
- Events are `struct input_event`s written to the pty master: the reader gets
  them live, in order, as whole structs, provided it keeps up (see `send`).
- Removal: the pty master is hung up (the reader's fd polls POLLHUP|POLLERR and
  reads EOF: no ENODEV, which only a real evdev node gives), then the class
  links go, the `remove` uevents are sent and the sysfs directories deleted.

Run under `umockdev-wrapper /usr/bin/python3` (see README.md).
"""

import ctypes
import dataclasses
import os
import struct
import sys
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEVICES = HERE / "devices"

# linux/input-event-codes.h
EV_SYN, EV_KEY, EV_ABS, EV_SW = 0x00, 0x01, 0x03, 0x05
EV_LED, EV_SND, EV_FF = 0x11, 0x12, 0x15
SYN_REPORT, SYN_DROPPED = 0, 3
ABS_X, ABS_Y, ABS_Z = 0x00, 0x01, 0x02
KEY_CAMERA, KEY_CAMERA_FOCUS = 0xD4, 0x210
SW_TABLET_MODE, SW_DOCK = 0x01, 0x05
SW_CAMERA_LENS_COVER, SW_KEYPAD_SLIDE, SW_FRONT_PROXIMITY = 0x09, 0x0A, 0x0B
INPUT_PROP_ACCELEROMETER = 0x06
BUS_HOST = 0x19
EV_VERSION = 0x010001

#: struct input_event on 64-bit Linux: struct timeval (two longs), __u16 type,
#: __u16 code, __s32 value. 24 bytes.
INPUT_EVENT = struct.Struct("=qqHHi")

EV_REL, EV_MSC = 0x02, 0x04

#: The sizes libevdev 1.13's libevdev_set_fd passes to the EVIOCGBIT ioctls,
#: by event type, in the order it asks: NLONGS(<TYPE>_CNT) * sizeof(long) on 64-bit.
BIT_SIZES = {EV_REL: 8, EV_ABS: 8, EV_LED: 8, EV_KEY: 96, EV_SW: 8, EV_MSC: 8, EV_FF: 16, EV_SND: 8}
STRING_SIZE = 255  # EVIOCGNAME/PHYS/UNIQ(sizeof(buf) - 1)


@dataclasses.dataclass(frozen=True)
class Axis:
    """struct input_absinfo."""

    value: int
    minimum: int
    maximum: int
    fuzz: int = 0
    flat: int = 0
    resolution: int = 0


@dataclasses.dataclass(frozen=True)
class EvdevDescription:
    """What an evdev node's ioctls report."""

    name: str
    phys: str | None
    uniq: str | None
    bustype: int
    vendor: int
    product: int
    version: int
    properties: tuple = ()
    keys: tuple = ()
    axes: dict = dataclasses.field(default_factory=dict)  # ABS code -> Axis
    switches: dict = dataclasses.field(default_factory=dict)  # SW code -> state (0/1)

    @property
    def event_types(self):
        types = [EV_SYN]
        if self.keys:
            types.append(EV_KEY)
        if self.axes:
            types.append(EV_ABS)
        if self.switches:
            types.append(EV_SW)
        return types


def _bits(size, codes):
    data = bytearray(size)
    for code in codes:
        data[code // 8] |= 1 << (code % 8)
    return bytes(data)


def _string(text):
    raw = text.encode()
    assert len(raw) < STRING_SIZE, text
    return len(raw) + 1, raw + bytes(STRING_SIZE - len(raw))


def ioctl_record(device):
    """The umockdev ioctl record (load_ioctl's format) answering everything
    libevdev_new_from_fd asks, in the order it asks. Return values are the
    kernel's: bytes copied for the bitmaps and strings, 0 for the structs."""
    lines = []

    def line(name, ret, data):
        lines.append(f"{name} {ret} {data.hex().upper()}")

    line("EVIOCGBIT(0)", 8, _bits(8, device.event_types))
    for name, text in (("EVIOCGNAME", device.name), ("EVIOCGPHYS", device.phys), ("EVIOCGUNIQ", device.uniq)):
        if text is not None:  # absent: umockdev answers ENOENT, which libevdev takes as "none"
            ret, data = _string(text)
            line(name, ret, data)
    line("EVIOCGID", 0, struct.pack("=4H", device.bustype, device.vendor, device.product, device.version))
    line("EVIOCGVERSION", 0, struct.pack("=i", EV_VERSION))
    line("EVIOCGPROP", 8, _bits(8, device.properties))
    codes = {EV_KEY: device.keys, EV_ABS: list(device.axes), EV_SW: list(device.switches)}
    for event_type, size in BIT_SIZES.items():
        line(f"EVIOCGBIT({event_type})", size, _bits(size, codes.get(event_type, ())))
    line("EVIOCGKEY", 96, bytes(96))
    line("EVIOCGLED", 8, bytes(8))
    line("EVIOCGSW", 8, _bits(8, [code for code, state in device.switches.items() if state]))
    for code, axis in device.axes.items():
        line(f"EVIOCGABS({code})", 0, struct.pack("=6i", axis.value, axis.minimum, axis.maximum,
                                                 axis.fuzz, axis.flat, axis.resolution))
    return "\n".join(lines) + "\n"


#: 1 g in the accelerometer fixture's units (its ABS resolution).
ACCEL_RESOLUTION = 1024

#: devices/input-accelerometer.*: lis3lv02d's input device (see README.md).
ACCELEROMETER = EvdevDescription(
    name="ST LIS3LV02DL Accelerometer", phys="lis3lv02d/input0", uniq=None,
    bustype=BUS_HOST, vendor=0, product=0, version=0,
    axes={
        ABS_X: Axis(0, -2048, 2048, fuzz=3, flat=3, resolution=ACCEL_RESOLUTION),
        ABS_Y: Axis(-ACCEL_RESOLUTION, -2048, 2048, fuzz=3, flat=3, resolution=ACCEL_RESOLUTION),
        ABS_Z: Axis(0, -2048, 2048, fuzz=3, flat=3, resolution=ACCEL_RESOLUTION),
    })

#: devices/input-accelerometer-no-resolution.ioctl: the same lis3lv02d as an
#: older kernel (and the N900's lis302dl, and uinput test devices) gives it: no
#: resolution on any axis, lying still at 256 units of g on -y.
ACCELEROMETER_NO_RESOLUTION = dataclasses.replace(ACCELEROMETER, axes={
    ABS_X: Axis(0, -2048, 2048, fuzz=3, flat=3),
    ABS_Y: Axis(-256, -2048, 2048, fuzz=3, flat=3),
    ABS_Z: Axis(0, -2048, 2048, fuzz=3, flat=3),
})

#: devices/input-proximity.*: a gpio-keys device with a proximity switch (see README.md).
PROXIMITY = EvdevDescription(
    name="gpio_keys", phys="gpio-keys/input0", uniq=None,
    bustype=BUS_HOST, vendor=0x0001, product=0x0001, version=0x0100,
    keys=(KEY_CAMERA, KEY_CAMERA_FOCUS),
    switches={SW_CAMERA_LENS_COVER: 1, SW_KEYPAD_SLIDE: 0, SW_FRONT_PROXIMITY: 0})

#: devices/input-tablet-switch.*: intel-vbtn's "Intel Virtual Switches" (a
#: convertible's tablet-mode and dock switches), in laptop mode at start; the
#: `-folded` record is the same device folded into a tablet at start.
TABLET_SWITCH = EvdevDescription(
    name="Intel Virtual Switches", phys="intel-vbtn/input0", uniq=None,
    bustype=BUS_HOST, vendor=0, product=0, version=0,
    switches={SW_TABLET_MODE: 0, SW_DOCK: 0})
TABLET_SWITCH_FOLDED = dataclasses.replace(TABLET_SWITCH, switches={SW_TABLET_MODE: 1, SW_DOCK: 0})

FIXTURES = {"input-accelerometer": ACCELEROMETER, "input-accelerometer-no-resolution": ACCELEROMETER_NO_RESOLUTION,
            "input-proximity": PROXIMITY,
            "input-tablet-switch": TABLET_SWITCH, "input-tablet-switch-folded": TABLET_SWITCH_FOLDED}


def write_fixtures():
    """Writes devices/<name>.ioctl for every fixture."""
    for name, device in FIXTURES.items():
        (DEVICES / f"{name}.ioctl").write_text(ioctl_record(device))


def event(event_type, code, value, seconds=None):
    """One struct input_event, stamped with `seconds` (CLOCK_REALTIME now if None)."""
    now = time.time() if seconds is None else seconds
    whole = int(now)
    return INPUT_EVENT.pack(whole, int((now - whole) * 1_000_000), event_type, code, value)


def abs_frame(x=None, y=None, z=None):
    """The events of one accelerometer report: the axes given, then SYN_REPORT
    (as the kernel sends them: an unchanged axis is left out)."""
    events = [(EV_ABS, code, value) for code, value in ((ABS_X, x), (ABS_Y, y), (ABS_Z, z)) if value is not None]
    return events + [(EV_SYN, SYN_REPORT, 0)]


def switch_frame(code, state):
    """A switch change, then SYN_REPORT."""
    return [(EV_SW, code, state), (EV_SYN, SYN_REPORT, 0)]


_libc = ctypes.CDLL(None, use_errno=True)
_SYS_ioctl = 16  # x86_64


class EvdevNode:
    """One fake evdev device in a testbed: `devices/<fixture>.umockdev` (the
    event device, its input parent and their parents) with its ioctl record.

        node = EvdevNode(testbed, "input-accelerometer")    # uevent add for each
        ... start the reader on node.devnode ...
        node.send(abs_frame(x=ACCEL_RESOLUTION, y=0))          # live, in order
        node.remove()                                        # POLLHUP, uevent remove

    `number` renumbers eventN (and its dev_t): umockdev 0.17 cannot create the
    same device node twice in one testbed, so a re-added device needs a new one.
    """

    def __init__(self, testbed, fixture, number=None, ioctl=None):
        self.testbed = testbed
        self.root = testbed.get_root_dir()
        text = (DEVICES / f"{fixture}.umockdev").read_text()
        first = text.split("\n", 1)[0]
        assert first.startswith("P: ") and "/event" in first, first
        old = first.rsplit("/event", 1)[1]
        if number is not None and str(number) != old:
            text = _renumber(text, int(old), number)
        self.number = int(old) if number is None else number
        self.syspath = "/sys" + text.split("\n", 1)[0][3:]
        self.parent = os.path.dirname(self.syspath)  # the inputN device
        self.devnode = f"/dev/input/event{self.number}"
        # The ioctl record first: a reader may open the node as soon as the uevent arrives.
        testbed.load_ioctl(self.devnode, str(DEVICES / f"{ioctl or fixture}.ioctl"))
        # A parent left behind by an earlier remove() (the platform device) stays.
        records = [r for r in text.strip("\n").split("\n\n")
                   if not os.path.exists(os.path.join(self.root, "sys", r.split("\n", 1)[0][3:].lstrip("/"), "uevent"))]
        testbed.add_from_string("\n\n".join(records) + "\n")
        self.master = testbed.get_dev_fd(self.devnode)
        # A second, never-read handle on the pty's slave side, for FIONREAD:
        # how many bytes the reader has not read yet.
        self._pts = os.readlink(os.path.join(self.root, self.devnode.lstrip("/")))  # /dev/pts/N
        self._slave = os.open(self._pts, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK | os.O_CLOEXEC)
        self.removed = False

    def unread(self):
        """Bytes written that the reader has not read yet (FIONREAD on the pty;
        issued as a raw syscall because the preload would answer an ioctl on
        the node itself from the ioctl record)."""
        count = ctypes.c_int(0)
        if _libc.syscall(ctypes.c_long(_SYS_ioctl), ctypes.c_long(self._slave),
                         ctypes.c_long(termios.FIONREAD), ctypes.byref(count)) != 0:
            raise OSError(ctypes.get_errno(), "FIONREAD on the fake evdev node")
        return count.value

    def wait_read(self, timeout=2.0):
        """Waits until the reader has read everything sent (not: handled it)."""
        deadline = time.monotonic() + timeout
        while self.unread():
            if time.monotonic() >= deadline:
                raise AssertionError(f"{self.devnode}: {self.unread()} bytes still unread after {timeout:g} s")
            time.sleep(0.002)

    def send(self, events, wait=True, timeout=2.0, seconds=None):
        """Writes (type, code, value) events, one frame (up to and including
        each SYN_REPORT) per write(2).

        A pty is not an evdev node: it hands the reader whatever bytes it
        holds, and once more than its 4 KiB line buffer is pending it takes
        a write in pieces, so a read can end inside a struct (libevdev then
        fails with EINVAL). So frames stay small and, with `wait` (the
        default), each is read before the next is written. Without `wait`,
        keep what the reader has not read well under 4 KiB (170 events).
        """
        frame = b""
        for event_type, code, value in events:
            frame += event(event_type, code, value, seconds)
            if event_type == EV_SYN and code == SYN_REPORT:
                self._write(frame, wait, timeout)
                frame = b""
        if frame:
            self._write(frame, wait, timeout)

    def _write(self, data, wait, timeout):
        assert len(data) < 2048, "keep frames small (see send)"
        written = os.write(self.master, data)
        assert written == len(data), f"short write to the pty: {written} of {len(data)}"
        if wait:
            # The write reaches the reader's side of the pty from a kernel
            # worker, a moment later: until then FIONREAD says 0 as if it had
            # been read. Give it up to 5 ms to show up (it may also have been
            # read already), then wait for the reader.
            shown = time.monotonic() + 0.005
            while not self.unread() and time.monotonic() < shown:
                time.sleep(0.0002)
            self.wait_read(timeout)

    def hang_up(self):
        """What the kernel's evdev_disconnect() does to open clients, as near
        as a pty gets: the reader's fd polls POLLHUP|POLLERR and reads EOF.
        (The master is replaced by /dev/null rather than closed: the testbed
        closes that fd number itself when it goes.)"""
        null = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
        os.dup2(null, self.master)
        os.close(null)

    def remove(self):
        """Unplugs the device: hangs up open readers, takes the event and input
        devices off /sys/class/input, sends `remove` for each (event device
        first, as the kernel does) and deletes them. The devnode goes too."""
        if self.removed:
            return
        self.hang_up()
        os.close(self._slave)
        # The pty's number is free again, and the next pty may get it: the
        # testbed's record of it would make that device's creation abort.
        try:
            os.unlink(os.path.join(self.root, "dev/.ptymap", self._pts.replace("/", "_")))
        except FileNotFoundError:
            pass
        for syspath in (self.syspath, self.parent):
            try:
                os.unlink(os.path.join(self.root, "sys/class/input", os.path.basename(syspath)))
            except FileNotFoundError:
                pass
        for syspath in (self.syspath, self.parent):
            self.testbed.uevent(syspath, "remove")
        self.testbed.remove_device(self.syspath)  # also its /dev node
        self.testbed.remove_device(self.parent)
        self.removed = True


def _renumber(text, old, new):
    """The description with eventN, its MINOR and dev_t renumbered."""
    old_minor, new_minor = 64 + old, 64 + new
    return (text.replace(f"event{old}", f"event{new}")
                .replace(f"MINOR={old_minor}\n", f"MINOR={new_minor}\n")
                .replace(f"dev=13:{old_minor}\\n", f"dev=13:{new_minor}\\n"))


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_fixtures()
    elif sys.argv[1:] == ["--check"]:
        stale = [name for name, device in FIXTURES.items()
                 if (DEVICES / f"{name}.ioctl").read_text() != ioctl_record(device)]
        sys.exit(f"stale ioctl records (run --write): {stale}" if stale else 0)
    else:
        sys.exit("usage: evdev_support.py --write | --check")
