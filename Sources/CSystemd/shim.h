#ifndef ORIENTD_CSYSTEMD_SHIM_H
#define ORIENTD_CSYSTEMD_SHIM_H
/* libsystemd's daemon API (sd_notify, sd_listen_fds, sd_watchdog_enabled);
 * sd-login, which reads logind's view of seats and sessions from /run/systemd;
 * and sd-bus (the net.hadess.SensorProxy side). Swift cannot call sd-bus's
 * variadic functions: the daemon uses their non-variadic forms (append_basic,
 * read_basic, open_container, new_method_return, new_method_error). */
#include <systemd/sd-daemon.h>
#include <systemd/sd-login.h>
#include <systemd/sd-bus.h>
#endif
