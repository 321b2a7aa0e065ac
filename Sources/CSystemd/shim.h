#ifndef ORIENTD_CSYSTEMD_SHIM_H
#define ORIENTD_CSYSTEMD_SHIM_H
/* libsystemd's daemon API: sd_notify, sd_listen_fds, sd_watchdog_enabled; and
   sd-login, which reads logind's view of seats and sessions from /run/systemd. */
#include <systemd/sd-daemon.h>
#include <systemd/sd-login.h>
#endif
