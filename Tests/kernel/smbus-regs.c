/*
 * smbus-regs: reads and writes an I2C chip's byte registers through
 * /dev/i2c-N with SMBus ioctls, for make check-kernel: it preloads and
 * changes the registers of a chip that i2c-stub emulates (what i2c-tools'
 * i2cset and i2cget do, without the package in the guest).
 *
 *   smbus-regs BUS ADDR REG=VALUE...   write each byte (hex or decimal)
 *   smbus-regs BUS ADDR REG            print the byte as 0xNN
 *
 * BUS is N of /dev/i2c-N. The address is taken with I2C_SLAVE_FORCE: a
 * driver bound to the chip keeps it claimed, and the test writes beside it,
 * as the chip's own sampling would change its data registers.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int smbus(int fd, char rw, unsigned char reg, int size, union i2c_smbus_data *data)
{
    struct i2c_smbus_ioctl_data args = {.read_write = rw, .command = reg, .size = size, .data = data};
    return ioctl(fd, I2C_SMBUS, &args);
}

static long number(const char *s, long max, const char *what)
{
    char *end;
    long v = strtol(s, &end, 0);
    if (*s == 0 || (*end != 0 && *end != '=') || v < 0 || v > max) {
        fprintf(stderr, "smbus-regs: bad %s '%s'\n", what, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: smbus-regs BUS ADDR REG=VALUE... | smbus-regs BUS ADDR REG\n");
        return 2;
    }
    char path[32];
    snprintf(path, sizeof path, "/dev/i2c-%ld", number(argv[1], 1023, "bus"));
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "smbus-regs: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (ioctl(fd, I2C_SLAVE_FORCE, number(argv[2], 0x7f, "address")) < 0) {
        fprintf(stderr, "smbus-regs: I2C_SLAVE_FORCE %s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    union i2c_smbus_data data;
    if (argc == 4 && !strchr(argv[3], '=')) {
        if (smbus(fd, I2C_SMBUS_READ, (unsigned char)number(argv[3], 0xff, "register"), I2C_SMBUS_BYTE_DATA, &data) < 0) {
            fprintf(stderr, "smbus-regs: read %s: %s\n", argv[3], strerror(errno));
            return 1;
        }
        printf("0x%02x\n", data.byte);
        return 0;
    }
    for (int i = 3; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            fprintf(stderr, "smbus-regs: '%s' is not REG=VALUE\n", argv[i]);
            return 2;
        }
        unsigned char reg = (unsigned char)number(argv[i], 0xff, "register");
        data.byte = (unsigned char)number(eq + 1, 0xff, "value");
        if (smbus(fd, I2C_SMBUS_WRITE, reg, I2C_SMBUS_BYTE_DATA, &data) < 0) {
            fprintf(stderr, "smbus-regs: write %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
    }
    return 0;
}
