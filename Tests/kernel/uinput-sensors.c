/*
 * uinput-sensors: input-subsystem sensors made through /dev/uinput, for make
 * check-kernel (Tests/kernel/README.md describes each device).
 *
 * Three devices, each created and removed on command:
 *   accel   "orientd test input accelerometer": EV_ABS ABS_X, ABS_Y, ABS_Z,
 *           range -4096..4096 with resolution 1024 (units per g, the input
 *           subsystem's unit for accelerometers: ±4 g), fuzz 0, and the
 *           property INPUT_PROP_ACCELEROMETER, from which udev's input_id
 *           builtin sets ID_INPUT_ACCELEROMETER=1
 *   prox    "orientd test proximity switch": EV_SW SW_FRONT_PROXIMITY, as a
 *           phone's gpio-keys proximity switch
 *   tablet  "orientd test tablet-mode switch": EV_SW SW_TABLET_MODE on
 *           BUS_HOST, as intel-vbtn's "Intel Virtual Switches"
 *
 *   uinput-sensors [COMMAND-FIFO]
 *
 * Commands, one a line, on standard input or the FIFO (reopened at EOF):
 *   create accel|prox|tablet [STATE]   create the device (STATE: the switch's
 *                                      first state, 0 or 1; accel: none)
 *   remove accel|prox|tablet           destroy it
 *   accel X Y Z                        new axes in milli-g (sent as
 *                                      X * 1024 / 1000 units, then SYN_REPORT)
 *   prox 0|1, tablet 0|1               the switch's new state (then SYN_REPORT)
 *   quit                               destroy every device and exit
 * Events are printed to standard output, one a line, with CLOCK_MONOTONIC
 * time in microseconds first:
 *   T started
 *   T created accel input7 event3
 *   T removed accel
 *   T accel sent X Y Z        (device units)
 *   T prox sent 1 | T tablet sent 0
 *   T error MESSAGE           (a command that failed; the program goes on)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { ACCEL_RESOLUTION = 1024, ACCEL_RANGE = 4 * ACCEL_RESOLUTION };

struct device {
    const char *name;    /* command word */
    const char *product; /* the input device's name */
    int fd;              /* -1 while not created */
};

static struct device devices[] = {
    {"accel", "orientd test input accelerometer", -1},
    {"prox", "orientd test proximity switch", -1},
    {"tablet", "orientd test tablet-mode switch", -1},
};
#define NDEVICES (sizeof devices / sizeof devices[0])

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void say(const char *format, ...)
{
    va_list ap;
    printf("%lld ", now_us());
    va_start(ap, format);
    vprintf(format, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static struct device *find(const char *name)
{
    for (size_t i = 0; i < NDEVICES; i++)
        if (strcmp(devices[i].name, name) == 0) return &devices[i];
    return NULL;
}

static int emit(int fd, int type, int code, int value)
{
    struct input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = (unsigned short)type;
    ev.code = (unsigned short)code;
    ev.value = value;
    return write(fd, &ev, sizeof ev) == (ssize_t)sizeof ev ? 0 : -1;
}

static int syn(int fd) { return emit(fd, EV_SYN, SYN_REPORT, 0); }

/* The event node the kernel made for the input device SYSNAME (inputN). */
static void event_node(const char *sysname, char *out, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/virtual/input/%s", sysname);
    snprintf(out, size, "?");
    DIR *dir = opendir(path);
    if (!dir) return;
    struct dirent *entry;
    while ((entry = readdir(dir)))
        if (strncmp(entry->d_name, "event", 5) == 0 && strlen(entry->d_name) < size) {
            memcpy(out, entry->d_name, strlen(entry->d_name) + 1);
            break;
        }
    closedir(dir);
}

static int create(struct device *d, int state)
{
    if (d->fd >= 0) {
        say("error %s exists", d->name);
        return -1;
    }
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        say("error /dev/uinput: %s", strerror(errno));
        return -1;
    }
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    snprintf(setup.name, sizeof setup.name, "%s", d->product);
    setup.id.vendor = 0x1d6b;
    setup.id.version = 1;
    int ok = 1;
    if (strcmp(d->name, "accel") == 0) {
        setup.id.bustype = BUS_VIRTUAL;
        setup.id.product = 0x0f02;
        ok = ioctl(fd, UI_SET_EVBIT, EV_ABS) == 0 && ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_ACCELEROMETER) == 0;
        for (int code = ABS_X; ok && code <= ABS_Z; code++) {
            struct uinput_abs_setup abs;
            memset(&abs, 0, sizeof abs);
            abs.code = (unsigned short)code;
            abs.absinfo.minimum = -ACCEL_RANGE;
            abs.absinfo.maximum = ACCEL_RANGE;
            abs.absinfo.resolution = ACCEL_RESOLUTION;
            /* Flat on its back, face up: +1 g on z, as the kernel's input
             * accelerometers report proper acceleration. */
            abs.absinfo.value = code == ABS_Z ? ACCEL_RESOLUTION : 0;
            ok = ioctl(fd, UI_SET_ABSBIT, code) == 0 && ioctl(fd, UI_ABS_SETUP, &abs) == 0;
        }
    } else {
        int code = strcmp(d->name, "prox") == 0 ? SW_FRONT_PROXIMITY : SW_TABLET_MODE;
        setup.id.bustype = strcmp(d->name, "tablet") == 0 ? BUS_HOST : BUS_VIRTUAL;
        setup.id.product = strcmp(d->name, "tablet") == 0 ? 0x0f04 : 0x0f03;
        ok = ioctl(fd, UI_SET_EVBIT, EV_SW) == 0 && ioctl(fd, UI_SET_SWBIT, code) == 0;
    }
    if (!ok || ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
        say("error creating %s: %s", d->name, strerror(errno));
        close(fd);
        return -1;
    }
    d->fd = fd;
    char sysname[64] = "?", event[64] = "?";
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) >= 0) event_node(sysname, event, sizeof event);
    /* A switch's first state: the kernel keeps it (EVIOCGSW reads it), so a
     * reader opening the device later sees it. */
    if (state > 0 && strcmp(d->name, "accel") != 0) {
        int code = strcmp(d->name, "prox") == 0 ? SW_FRONT_PROXIMITY : SW_TABLET_MODE;
        if (emit(fd, EV_SW, code, 1) < 0 || syn(fd) < 0) say("error %s first state: %s", d->name, strerror(errno));
    }
    say("created %s %s %s", d->name, sysname, event);
    return 0;
}

static void destroy(struct device *d)
{
    if (d->fd < 0) {
        say("error %s does not exist", d->name);
        return;
    }
    ioctl(d->fd, UI_DEV_DESTROY);
    close(d->fd);
    d->fd = -1;
    say("removed %s", d->name);
}

static void command(char *line)
{
    char word[16] = "", arg[16] = "";
    int a, b, c;
    if (sscanf(line, "%15s", word) != 1) return;
    if (strcmp(word, "quit") == 0) {
        for (size_t i = 0; i < NDEVICES; i++)
            if (devices[i].fd >= 0) destroy(&devices[i]);
        say("quit");
        exit(0);
    }
    if (strcmp(word, "create") == 0 || strcmp(word, "remove") == 0) {
        int state = 0;
        if (sscanf(line, "%*s %15s %d", arg, &state) < 1 || !find(arg)) {
            say("error bad command: %s", line);
            return;
        }
        if (word[0] == 'c')
            create(find(arg), state);
        else
            destroy(find(arg));
        return;
    }
    struct device *d = find(word);
    if (!d) {
        say("error bad command: %s", line);
        return;
    }
    if (d->fd < 0) {
        say("error %s does not exist", d->name);
        return;
    }
    if (strcmp(word, "accel") == 0) {
        if (sscanf(line, "%*s %d %d %d", &a, &b, &c) != 3) {
            say("error bad command: %s", line);
            return;
        }
        int v[3] = {a * ACCEL_RESOLUTION / 1000, b * ACCEL_RESOLUTION / 1000, c * ACCEL_RESOLUTION / 1000};
        int failed = 0;
        for (int i = 0; i < 3; i++) failed |= emit(d->fd, EV_ABS, ABS_X + i, v[i]);
        failed |= syn(d->fd);
        if (failed)
            say("error accel: %s", strerror(errno));
        else
            say("accel sent %d %d %d", v[0], v[1], v[2]);
        return;
    }
    if (sscanf(line, "%*s %d", &a) != 1 || (a != 0 && a != 1)) {
        say("error bad command: %s", line);
        return;
    }
    int code = strcmp(word, "prox") == 0 ? SW_FRONT_PROXIMITY : SW_TABLET_MODE;
    if (emit(d->fd, EV_SW, code, a) < 0 || syn(d->fd) < 0)
        say("error %s: %s", word, strerror(errno));
    else
        say("%s sent %d", word, a);
}

int main(int argc, char **argv)
{
    const char *fifo = argc > 1 ? argv[1] : NULL;
    if (fifo) {
        unlink(fifo);
        if (mkfifo(fifo, 0600) < 0) {
            fprintf(stderr, "uinput-sensors: mkfifo %s: %s\n", fifo, strerror(errno));
            return 1;
        }
    }
    say("started");
    char line[256];
    for (;;) {
        FILE *in = fifo ? fopen(fifo, "r") : stdin;
        if (!in) {
            fprintf(stderr, "uinput-sensors: %s: %s\n", fifo, strerror(errno));
            return 1;
        }
        while (fgets(line, sizeof line, in)) command(line);
        if (!fifo) break;
        fclose(in);
    }
    for (size_t i = 0; i < NDEVICES; i++)
        if (devices[i].fd >= 0) destroy(&devices[i]);
    return 0;
}
