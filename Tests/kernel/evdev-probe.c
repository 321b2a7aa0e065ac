/*
 * evdev-probe: what libevdev (the library orientd reads evdev through) sees of
 * an event node, for make check-kernel.
 *
 *   evdev-probe NODE                prints the device once
 *   evdev-probe NODE --follow N     then prints each of the next N EV_SW and
 *                                   EV_ABS events, as libevdev hands them over
 *
 * The first line: name, bus/vendor/product, the properties and the event
 * codes the device has, with each switch's state and each axis's value,
 * range and resolution as libevdev holds them (EVIOCGSW and EVIOCGABS at
 * libevdev_new_from_fd). Then one line an event: `SW_TABLET_MODE 1`.
 * Exit status 1 when the node cannot be opened or libevdev refuses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <libevdev/libevdev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 4 && strcmp(argv[2], "--follow") == 0)) {
        fprintf(stderr, "usage: evdev-probe NODE [--follow N]\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "evdev-probe: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    struct libevdev *dev = NULL;
    int rc = libevdev_new_from_fd(fd, &dev);
    if (rc < 0) {
        fprintf(stderr, "evdev-probe: libevdev_new_from_fd %s: %s\n", argv[1], strerror(-rc));
        return 1;
    }
    printf("name \"%s\" bus 0x%04x vendor 0x%04x product 0x%04x", libevdev_get_name(dev), libevdev_get_id_bustype(dev),
           libevdev_get_id_vendor(dev), libevdev_get_id_product(dev));
    for (unsigned p = 0; p <= INPUT_PROP_MAX; p++)
        if (libevdev_has_property(dev, p)) printf(" %s", libevdev_property_get_name(p) ? libevdev_property_get_name(p) : "INPUT_PROP_?");
    for (unsigned code = 0; code <= SW_MAX; code++)
        if (libevdev_has_event_code(dev, EV_SW, code))
            printf(" %s=%d", libevdev_event_code_get_name(EV_SW, code), libevdev_get_event_value(dev, EV_SW, code));
    for (unsigned code = 0; code <= ABS_MAX; code++)
        if (libevdev_has_event_code(dev, EV_ABS, code)) {
            const struct input_absinfo *a = libevdev_get_abs_info(dev, code);
            printf(" %s=%d[%d..%d res %d]", libevdev_event_code_get_name(EV_ABS, code), a->value, a->minimum, a->maximum,
                   a->resolution);
        }
    putchar('\n');
    fflush(stdout);
    if (argc == 4) {
        long left = strtol(argv[3], NULL, 10);
        while (left > 0) {
            struct input_event ev;
            rc = libevdev_next_event(dev, LIBEVDEV_READ_FLAG_NORMAL | LIBEVDEV_READ_FLAG_BLOCKING, &ev);
            if (rc == -EAGAIN) continue;
            if (rc < 0) {
                fprintf(stderr, "evdev-probe: libevdev_next_event: %s\n", strerror(-rc));
                return 1;
            }
            if (ev.type != EV_SW && ev.type != EV_ABS) continue;
            printf("%s %d\n", libevdev_event_code_get_name(ev.type, ev.code), ev.value);
            fflush(stdout);
            left--;
        }
    }
    libevdev_free(dev);
    close(fd);
    return 0;
}
