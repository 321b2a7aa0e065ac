/* evdev-probe DEVNODE [IDLE_SECONDS]: what a libevdev client sees of an evdev
 * node, one line per fact, for the umockdev tests (test_evdev_fixtures.py).
 *
 *   name NAME / phys PHYS|- / uniq UNIQ|- / id BUS VENDOR PRODUCT VERSION
 *   abs CODE VALUE MIN MAX FUZZ FLAT RESOLUTION      (each of ABS_X..ABS_Z it has)
 *   sw CODE STATE                                    (each switch it has)
 *   ready
 *   event TYPE CODE VALUE                            (as libevdev_next_event reads them)
 *   resync                                           (SYN_DROPPED: libevdev's sync follows)
 *   hangup REVENTS | error ERRNO-NAME | idle
 *
 * It opens the node O_RDONLY|O_NONBLOCK|O_CLOEXEC, polls it, and ends at a
 * hang-up (POLLHUP/POLLERR with nothing to read), a read error, or after
 * IDLE_SECONDS (default 5) without input. Build:
 *   cc -o evdev-probe evdev-probe.c $(pkg-config --cflags --libs libevdev)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libevdev/libevdev.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: evdev-probe DEVNODE [IDLE_SECONDS]\n");
        return 2;
    }
    int idle_ms = (argc > 2 ? atoi(argv[2]) : 5) * 1000;
    setvbuf(stdout, NULL, _IOLBF, 0);
    int fd = open(argv[1], O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        printf("error open %s\n", strerror(errno));
        return 1;
    }
    struct libevdev *dev = NULL;
    int rc = libevdev_new_from_fd(fd, &dev);
    if (rc < 0) {
        printf("error init %s\n", strerror(-rc));
        return 1;
    }
    printf("name %s\nphys %s\nuniq %s\n", libevdev_get_name(dev),
           libevdev_get_phys(dev) ? libevdev_get_phys(dev) : "-",
           libevdev_get_uniq(dev) ? libevdev_get_uniq(dev) : "-");
    printf("id %04x %04x %04x %04x\n", libevdev_get_id_bustype(dev), libevdev_get_id_vendor(dev),
           libevdev_get_id_product(dev), libevdev_get_id_version(dev));
    for (unsigned code = ABS_X; code <= ABS_Z; code++) {
        const struct input_absinfo *a = libevdev_get_abs_info(dev, code);
        if (a)
            printf("abs %u %d %d %d %d %d %d\n", code, a->value, a->minimum, a->maximum, a->fuzz, a->flat,
                   a->resolution);
    }
    for (unsigned code = 0; code <= SW_MAX; code++)
        if (libevdev_has_event_code(dev, EV_SW, code))
            printf("sw %u %d\n", code, libevdev_get_event_value(dev, EV_SW, code));
    printf("ready\n");

    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (;;) {
        int n = poll(&p, 1, idle_ms);
        if (n == 0) {
            printf("idle\n");
            return 0;
        }
        unsigned flags = LIBEVDEV_READ_FLAG_NORMAL;
        int got = 0;
        for (;;) {
            struct input_event ev;
            rc = libevdev_next_event(dev, flags, &ev);
            if (rc == LIBEVDEV_READ_STATUS_SYNC && flags == LIBEVDEV_READ_FLAG_NORMAL) {
                printf("resync\n");
                flags = LIBEVDEV_READ_FLAG_SYNC;
                continue;
            }
            if (rc == -EAGAIN) {
                if (flags == LIBEVDEV_READ_FLAG_SYNC) {
                    flags = LIBEVDEV_READ_FLAG_NORMAL;
                    continue;
                }
                break;
            }
            if (rc < 0) {
                printf("error read %s\n", strerror(-rc));
                return 1;
            }
            got++;
            printf("event %u %u %d\n", ev.type, ev.code, ev.value);
        }
        if (!got && (p.revents & (POLLHUP | POLLERR))) {
            printf("hangup %x\n", p.revents);
            return 0;
        }
    }
}
