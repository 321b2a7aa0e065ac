#ifndef ORIENTD_CEVDEV_SHIM_H
#define ORIENTD_CEVDEV_SHIM_H
/* libevdev (Debian: libevdev-dev; pkg-config libevdev): input-subsystem
   devices, the accelerometers with ID_INPUT_ACCELEROMETER and the proximity
   switches (EV_SW SW_FRONT_PROXIMITY) that Evdev.swift reads. libevdev.h
   brings linux/input.h (the EV_*, ABS_*, SW_* and INPUT_PROP_* codes). */
#include <libevdev/libevdev.h>
/* libevdev's uinput side: orientd's own SW_TABLET_MODE switch (UInputTabletSwitch). */
#include <libevdev/libevdev-uinput.h>

/* struct input_event's time is `time.tv_sec` or `__sec` depending on the
   ABI, behind the input_event_sec/usec macros, which Swift cannot see. */
static inline long long orientd_input_event_sec(const struct input_event *event) {
    return (long long)event->input_event_sec;
}
static inline long long orientd_input_event_usec(const struct input_event *event) {
    return (long long)event->input_event_usec;
}
#endif
