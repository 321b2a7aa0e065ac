/*
 * hid-sensor-hub: a HID sensor hub made through /dev/uhid, for make
 * check-kernel (Tests/kernel/README.md describes each descriptor).
 *
 * One hub with four sensors, each a Physical collection on the HID sensor
 * usage page (0x20) with its own report ID:
 *   1  Accelerometer 3D (0x73): X, Y, Z, signed 32-bit, in milli-g
 *   2  Ambient light (0x41): illuminance, unsigned 32-bit, in lux
 *   3  Human presence / proximity (0x11): presence, 8-bit, 0 or 1
 *   4  Compass 3D (0x83): the tilt-compensated heading from magnetic north
 *      (0x0475), 32-bit, in whole degrees 0..359
 * The kernel binds hid-sensor-hub to it, then hid-sensor-accel-3d, -als,
 * -prox and -magn-3d to its cells. Like a real hub, a sensor sends input reports at its
 * report interval only while the kernel has it at power state D0 with
 * reporting state "all events"; it answers every GET_REPORT (feature or
 * input) with its current values, and a SET_REPORT of a feature report
 * changes them.
 *
 *   [HUB_ACCEL="X Y Z"] [HUB_LOG_READS=1] hid-sensor-hub [COMMAND-FIFO]
 *
 * HUB_ACCEL gives the accelerometer's values from the start (milli-g; else
 * 0 0 1000, lying face up); HUB_LOG_READS prints every GET_REPORT of an input
 * report (T NAME read N) instead of a count a second. The report intervals
 * start at 100 ms (accel, compass), 250 ms (light) and 200 ms (prox).
 *
 * Commands, one a line, on standard input or the FIFO (reopened at EOF):
 *   accel X Y Z   new accelerometer values (milli-g), sent at once if reporting
 *   light LUX     new illuminance
 *   prox 0|1      presence
 *   heading DEG   the compass heading (degrees from magnetic north, 0..359)
 *   quit          destroy the device and exit
 * Events are printed to standard output, one a line, with CLOCK_MONOTONIC
 * time in microseconds first:
 *   T created | T started
 *   T accel power D0 reporting all-events interval 100   (on a feature change)
 *   T accel sent X Y Z   (each input report from a command; periodic ones are counted)
 *   T accel periodic N   (running count, at most once a second)
 *   T accel read N       (with HUB_LOG_READS: each input report read)
 *   T accel reads N      (running count of input reports read by GET_REPORT,
 *                        that is sysfs in_*_raw reads; at most once a second,
 *                        and always for the first read after a quiet second)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/uhid.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- the report descriptor, built item by item --------------------------- */

static uint8_t rd[1024];
static size_t rd_len;

static void item(uint8_t prefix, int size, uint32_t value)
{
    static const uint8_t code[] = {0, 1, 2, 0, 3};
    rd[rd_len++] = (uint8_t)(prefix | code[size]);
    for (int i = 0; i < size; i++) rd[rd_len++] = (uint8_t)(value >> (8 * i));
}
/* Short items: prefix with the size bits clear. */
#define USAGE_PAGE(v) item(0x04, 1, v)
#define USAGE8(v) item(0x08, 1, v)
#define USAGE16(v) item(0x08, 2, v)
#define LOGICAL_MIN(v, n) item(0x14, n, (uint32_t)(v))
#define LOGICAL_MAX(v, n) item(0x24, n, (uint32_t)(v))
#define REPORT_SIZE(v) item(0x74, 1, v)
#define REPORT_COUNT(v) item(0x94, 1, v)
#define REPORT_ID(v) item(0x84, 1, v)
#define UNIT_EXPONENT(v) item(0x54, 1, (v) & 0x0f)
#define COLLECTION(v) item(0xa0, 1, v)
#define END_COLLECTION() item(0xc0, 0, 0)
#define INPUT(v) item(0x80, 1, v)
#define FEATURE(v) item(0xb0, 1, v)
#define DATA_ARR_ABS 0x00
#define DATA_VAR_ABS 0x02
#define PHYSICAL 0x00
#define LOGICAL 0x02

/* A named-array property: an 8-bit selector among `count` usages from `first`.
 * The kernel writes power and reporting state as index + 1
 * (hid_sensor_parse_common_attributes sets their logical minimum to 1), so
 * the range is 1..count. */
static void selector(uint16_t property, uint16_t first, int count, uint8_t main)
{
    USAGE16(property);
    LOGICAL_MIN(1, 1);
    LOGICAL_MAX(count, 1);
    REPORT_SIZE(8);
    REPORT_COUNT(1);
    COLLECTION(LOGICAL);
    for (int i = 0; i < count; i++) USAGE16((uint16_t)(first + i));
    item(main, 1, DATA_ARR_ABS);
    END_COLLECTION();
}

static void value(uint16_t usage, int bits, int32_t min, int32_t max, int exponent, uint8_t main)
{
    int n = bits == 32 ? 4 : bits == 16 ? 2 : 1;
    USAGE16(usage);
    LOGICAL_MIN(min, min >= -128 && min <= 127 ? 1 : 4);
    LOGICAL_MAX(max, n);
    REPORT_SIZE(bits);
    REPORT_COUNT(1);
    UNIT_EXPONENT(exponent);
    item(main, 1, DATA_VAR_ABS);
}

enum { REPORTING_STATES = 6, POWER_STATES = 6, SENSOR_STATES = 7, EVENTS = 6 };
static const char *reporting_names[] = {"no-events", "all-events", "threshold-events",
                                        "no-events-wake", "all-events-wake", "threshold-events-wake"};
static const char *power_names[] = {"undefined", "D0", "D1", "D2", "D3", "D4"};

/* The feature report every sensor has: reporting state, power state, sensor
 * state, report interval (ms, 32-bit) and a change sensitivity (16-bit). */
static void common_features(uint16_t sensitivity_usage)
{
    selector(0x0316, 0x0840, REPORTING_STATES, 0xb0);
    selector(0x0319, 0x0850, POWER_STATES, 0xb0);
    selector(0x0201, 0x0800, SENSOR_STATES, 0xb0);
    value(0x030e, 32, 0, 0x7fffffff, 0, 0xb0);
    value(sensitivity_usage, 16, 0, 0x7fff, -3, 0xb0);
}

/* The start of every input report: sensor state, then the event. */
static void common_inputs(void)
{
    selector(0x0201, 0x0800, SENSOR_STATES, 0x80);
    selector(0x0202, 0x0810, EVENTS, 0x80);
}

/* --- the sensors ---------------------------------------------------------- */

struct sensor {
    const char *name;
    uint8_t id;
    /* feature report: raw values as the kernel sees them */
    uint8_t reporting, power, state;
    uint32_t interval_ms;
    uint16_t sensitivity;
    int32_t values[3];
    int nvalues, value_bytes;
    uint64_t next_due, periodic, last_count_print;
    /* input reports read by GET_REPORT (a sysfs in_*_raw read), and when the
     * running count was last printed */
    uint64_t reads, last_read_print;
};

static struct sensor sensors[] = {
    {"accel", 1, 1, 1, 2, 100, 0, {0, 0, 1000}, 3, 4, 0, 0, 0, 0, 0},
    {"light", 2, 1, 1, 2, 250, 0, {300}, 1, 4, 0, 0, 0, 0, 0},
    {"prox", 3, 1, 1, 2, 200, 0, {0}, 1, 1, 0, 0, 0, 0, 0},
    {"compass", 4, 1, 1, 2, 100, 0, {0}, 1, 4, 0, 0, 0, 0, 0},
};
#define NSENSORS (sizeof sensors / sizeof sensors[0])
/* HUB_LOG_READS set: each input report read by GET_REPORT is printed. */
static int log_reads;

static void build_descriptor(void)
{
    /* accelerometer */
    USAGE_PAGE(0x20);
    USAGE8(0x73);
    COLLECTION(PHYSICAL);
    REPORT_ID(1);
    common_features(0x1452); /* acceleration | change sensitivity abs */
    common_inputs();
    value(0x0453, 32, INT32_MIN, INT32_MAX, -3, 0x80);
    value(0x0454, 32, INT32_MIN, INT32_MAX, -3, 0x80);
    value(0x0455, 32, INT32_MIN, INT32_MAX, -3, 0x80);
    END_COLLECTION();
    /* ambient light */
    USAGE_PAGE(0x20);
    USAGE8(0x41);
    COLLECTION(PHYSICAL);
    REPORT_ID(2);
    common_features(0x14d1); /* illuminance | change sensitivity abs */
    common_inputs();
    value(0x04d1, 32, 0, INT32_MAX, 0, 0x80);
    END_COLLECTION();
    /* proximity (human presence) */
    USAGE_PAGE(0x20);
    USAGE8(0x11);
    COLLECTION(PHYSICAL);
    REPORT_ID(3);
    common_features(0x14b1); /* presence | change sensitivity abs */
    common_inputs();
    value(0x04b1, 8, 0, 1, 0, 0x80);
    END_COLLECTION();
    /* compass: the heading only, as hid-sensor-magn-3d takes any subset of
     * its fields (flux X, Y, Z 0x0485-0x0487; the headings from north
     * compensated magnetic, compensated true, magnetic, true 0x0475-0x0478;
     * a timestamp) and makes one IIO channel of each: 0x0475 is
     * in_rot_from_north_magnetic_tilt_comp. (0x0479, next to them, is
     * Distance: the driver finds no field there and fails its probe.) Unit
     * exponent 0: whole degrees, the kernel's scale 1. */
    USAGE_PAGE(0x20);
    USAGE8(0x83);
    COLLECTION(PHYSICAL);
    REPORT_ID(4);
    common_features(0x1475); /* compensated magnetic north | change sensitivity abs */
    common_inputs();
    value(0x0475, 32, 0, 359, 0, 0x80);
    END_COLLECTION();
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    printf("%llu ", (unsigned long long)now_us());
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static size_t feature_report(const struct sensor *s, uint8_t *out)
{
    size_t n = 0;
    out[n++] = s->id;
    out[n++] = s->reporting;
    out[n++] = s->power;
    out[n++] = s->state;
    memcpy(out + n, &s->interval_ms, 4);
    n += 4;
    memcpy(out + n, &s->sensitivity, 2);
    n += 2;
    return n;
}

static size_t input_report(const struct sensor *s, uint8_t *out)
{
    size_t n = 0;
    out[n++] = s->id;
    out[n++] = s->state;
    out[n++] = 4; /* event: data updated (index 3, + 1) */
    for (int i = 0; i < s->nvalues; i++) {
        memcpy(out + n, &s->values[i], (size_t)s->value_bytes);
        n += (size_t)s->value_bytes;
    }
    return n;
}

static int uhid = -1;

static void write_event(struct uhid_event *ev)
{
    if (write(uhid, ev, sizeof *ev) != (ssize_t)sizeof *ev) {
        perror("hid-sensor-hub: write /dev/uhid");
        exit(1);
    }
}

static int reporting(const struct sensor *s)
{
    /* D0, and all events (with or without wake) */
    return s->power == 2 && (s->reporting == 2 || s->reporting == 5);
}

static void send_input(struct sensor *s)
{
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_INPUT2;
    ev.u.input2.size = (uint16_t)input_report(s, ev.u.input2.data);
    write_event(&ev);
}

static struct sensor *find(uint8_t id)
{
    for (size_t i = 0; i < NSENSORS; i++)
        if (sensors[i].id == id) return &sensors[i];
    return NULL;
}

static const char *name_of(const char **names, int count, uint8_t raw)
{
    return raw >= 1 && raw <= count ? names[raw - 1] : "?";
}

static void print_feature(const struct sensor *s)
{
    say("%s power %s reporting %s interval %u", s->name, name_of(power_names, POWER_STATES, s->power),
        name_of(reporting_names, REPORTING_STATES, s->reporting), s->interval_ms);
}

static void handle_uhid(void)
{
    struct uhid_event ev, reply;
    ssize_t n = read(uhid, &ev, sizeof ev);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN) return;
        perror("hid-sensor-hub: read /dev/uhid");
        exit(1);
    }
    memset(&reply, 0, sizeof reply);
    switch (ev.type) {
    case UHID_START:
        say("started");
        break;
    case UHID_STOP:
        say("stopped");
        break;
    case UHID_OPEN:
    case UHID_CLOSE:
    case UHID_OUTPUT:
        break;
    case UHID_GET_REPORT: {
        struct sensor *s = find(ev.u.get_report.rnum);
        reply.type = UHID_GET_REPORT_REPLY;
        reply.u.get_report_reply.id = ev.u.get_report.id;
        if (!s) {
            reply.u.get_report_reply.err = EINVAL;
        } else if (ev.u.get_report.rtype == UHID_FEATURE_REPORT) {
            reply.u.get_report_reply.size = (uint16_t)feature_report(s, reply.u.get_report_reply.data);
        } else {
            reply.u.get_report_reply.size = (uint16_t)input_report(s, reply.u.get_report_reply.data);
            /* The first read after a second without any is always printed. */
            uint64_t now = now_us();
            s->reads++;
            if (log_reads) {
                say("%s read %llu", s->name, (unsigned long long)s->reads);
            } else if (now - s->last_read_print >= 1000000) {
                say("%s reads %llu", s->name, (unsigned long long)s->reads);
                s->last_read_print = now;
            }
        }
        write_event(&reply);
        break;
    }
    case UHID_SET_REPORT: {
        struct sensor *s = find(ev.u.set_report.rnum);
        reply.type = UHID_SET_REPORT_REPLY;
        reply.u.set_report_reply.id = ev.u.set_report.id;
        if (!s || ev.u.set_report.rtype != UHID_FEATURE_REPORT || ev.u.set_report.size < 10) {
            reply.u.set_report_reply.err = EINVAL;
        } else {
            const uint8_t *d = ev.u.set_report.data;
            int was = reporting(s);
            uint32_t interval;
            memcpy(&interval, d + 4, 4);
            if (d[1] != s->reporting || d[2] != s->power || interval != s->interval_ms) {
                s->reporting = d[1];
                s->power = d[2];
                s->interval_ms = interval;
                print_feature(s);
            }
            memcpy(&s->sensitivity, d + 8, 2);
            if (!was && reporting(s)) s->next_due = now_us();
        }
        write_event(&reply);
        break;
    }
    default:
        break;
    }
}

static void command(char *line, int *quit)
{
    struct sensor *s;
    int x, y, z;
    if (sscanf(line, "accel %d %d %d", &x, &y, &z) == 3) {
        s = &sensors[0];
        s->values[0] = x, s->values[1] = y, s->values[2] = z;
    } else if (sscanf(line, "light %d", &x) == 1) {
        s = &sensors[1];
        s->values[0] = x;
    } else if (sscanf(line, "prox %d", &x) == 1) {
        s = &sensors[2];
        s->values[0] = x != 0;
    } else if (sscanf(line, "heading %d", &x) == 1) {
        s = &sensors[3];
        s->values[0] = ((x % 360) + 360) % 360;
    } else if (strncmp(line, "quit", 4) == 0) {
        *quit = 1;
        return;
    } else {
        say("unknown command: %s", line);
        return;
    }
    if (reporting(s)) {
        send_input(s);
        say("%s sent %d %d %d", s->name, s->values[0], s->nvalues > 1 ? s->values[1] : 0,
            s->nvalues > 2 ? s->values[2] : 0);
    } else {
        say("%s set %d (not reporting: power %s)", s->name, s->values[0],
            name_of(power_names, POWER_STATES, s->power));
    }
}

int main(int argc, char **argv)
{
    const char *fifo = argc > 1 ? argv[1] : NULL;
    int in = 0;
    log_reads = getenv("HUB_LOG_READS") != NULL;
    const char *accel = getenv("HUB_ACCEL");
    int x, y, z;
    if (accel && sscanf(accel, "%d %d %d", &x, &y, &z) == 3)
        sensors[0].values[0] = x, sensors[0].values[1] = y, sensors[0].values[2] = z;
    if (fifo) {
        if (mkfifo(fifo, 0600) < 0 && errno != EEXIST) {
            perror("hid-sensor-hub: mkfifo");
            return 1;
        }
        /* O_RDWR: never sees EOF when a writer closes */
        in = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (in < 0) {
            perror("hid-sensor-hub: open fifo");
            return 1;
        }
    }
    uhid = open("/dev/uhid", O_RDWR | O_CLOEXEC);
    if (uhid < 0) {
        perror("hid-sensor-hub: open /dev/uhid");
        return 1;
    }
    build_descriptor();
    struct uhid_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_CREATE2;
    strcpy((char *)ev.u.create2.name, "orientd test sensor hub");
    strcpy((char *)ev.u.create2.phys, "uhid/orientd-check-kernel");
    ev.u.create2.rd_size = (uint16_t)rd_len;
    ev.u.create2.bus = 0x06; /* BUS_VIRTUAL */
    ev.u.create2.vendor = 0x1d6b;
    ev.u.create2.product = 0x0f01;
    memcpy(ev.u.create2.rd_data, rd, rd_len);
    write_event(&ev);
    say("created (descriptor %zu bytes)", rd_len);

    char buf[4096];
    size_t have = 0;
    int quit = 0;
    while (!quit) {
        uint64_t now = now_us(), due = UINT64_MAX;
        for (size_t i = 0; i < NSENSORS; i++) {
            struct sensor *s = &sensors[i];
            if (!reporting(s)) continue;
            uint64_t period = (uint64_t)(s->interval_ms ? s->interval_ms : 100) * 1000;
            if (s->next_due <= now) {
                send_input(s);
                s->periodic++;
                s->next_due = now + period;
                if (now - s->last_count_print >= 1000000) {
                    say("%s periodic %llu", s->name, (unsigned long long)s->periodic);
                    s->last_count_print = now;
                }
            }
            if (s->next_due < due) due = s->next_due;
        }
        int timeout = due == UINT64_MAX ? -1 : (int)((due - now + 999) / 1000);
        struct pollfd fds[2] = {{uhid, POLLIN, 0}, {in, POLLIN, 0}};
        if (poll(fds, 2, timeout) < 0) {
            if (errno == EINTR) continue;
            perror("hid-sensor-hub: poll");
            return 1;
        }
        if (fds[0].revents & POLLIN) handle_uhid();
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(in, buf + have, sizeof buf - 1 - have);
            if (n == 0) break; /* standard input closed */
            if (n < 0) continue;
            have += (size_t)n;
            char *line = buf, *nl;
            while (!quit && (nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
                *nl = 0;
                command(line, &quit);
                line = nl + 1;
            }
            have -= (size_t)(line - buf);
            memmove(buf, line, have);
        }
    }
    memset(&ev, 0, sizeof ev);
    ev.type = UHID_DESTROY;
    write_event(&ev);
    say("destroyed");
    return 0;
}
