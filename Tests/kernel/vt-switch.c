/*
 * vt-switch: chvt for make check-kernel (the guest has no kbd package).
 *
 *   vt-switch N   make virtual terminal N the active one (VT_ACTIVATE on
 *                 /dev/tty0), and wait until it is (VT_WAITACTIVE)
 *   vt-switch     print the active virtual terminal's number (VT_GETSTATE)
 *
 * The kernel then updates /sys/class/tty/tty0/active, which systemd-logind
 * watches to decide which session on seat0 is the active one.
 */
#include <fcntl.h>
#include <linux/vt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd = open("/dev/tty0", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        perror("vt-switch: open /dev/tty0");
        return 1;
    }
    if (argc < 2) {
        struct vt_stat state;
        if (ioctl(fd, VT_GETSTATE, &state) < 0) {
            perror("vt-switch: VT_GETSTATE");
            return 1;
        }
        printf("%u\n", state.v_active);
        return 0;
    }
    char *end;
    long n = strtol(argv[1], &end, 10);
    if (*end || n < 1 || n > 63) {
        fprintf(stderr, "vt-switch: not a VT number: %s\n", argv[1]);
        return 2;
    }
    if (ioctl(fd, VT_ACTIVATE, (int)n) < 0) {
        perror("vt-switch: VT_ACTIVATE");
        return 1;
    }
    if (ioctl(fd, VT_WAITACTIVE, (int)n) < 0) {
        perror("vt-switch: VT_WAITACTIVE");
        return 1;
    }
    close(fd);
    return 0;
}
