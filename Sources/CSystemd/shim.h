#ifndef ORIENTD_CSYSTEMD_SHIM_H
#define ORIENTD_CSYSTEMD_SHIM_H
/* libsystemd's daemon API: sd_notify, sd_listen_fds, sd_watchdog_enabled. */
#include <systemd/sd-daemon.h>
#endif
