#!/bin/bash
# Runs inside the booted container (scripts/check-boot/run.sh): each check
# writes PASS or FAIL and what it saw to /boot-check.result; the last line is
# ALL PASSED or SOME FAILED. Every wait polls for its condition with a deadline.
# ORIENTD_TEST_SLOWDOWN (set by run.sh in the unit: 1 natively, 20 under
# qemu-user) multiplies every deadline; the watchdog check's 65 s is the span it
# watches, not a deadline, and is not scaled.
set -u
slowdown=${ORIENTD_TEST_SLOWDOWN:-1}
result=/boot-check.result
: >"$result"
failed=0
pass() { echo "PASS $*" >>"$result"; }
fail() {
    echo "FAIL $*" >>"$result"
    failed=1
}
# wait_for SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds, for
# at most SECONDS times the slowdown.
wait_for() {
    local deadline=$((SECONDS + $1 * slowdown))
    shift
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}
active() { [ "$(systemctl is-active "$1")" = active ]; }
prop() { systemctl show -P "$1" orientd.service; }

# 1. Socket activation: the socket listens, the service is not running until a
# client connects, then a client gets a state. (The daemon may answer a moment
# before systemd has taken its READY=1: the unit's state is waited for.)
if active orientd.socket && ! active orientd.service; then
    state=$(orientctl --json get 2>&1)
    if wait_for 10 active orientd.service && [[ "$state" == *'"type":"state"'* ]]; then
        pass "socket activation: orientctl get started orientd.service and got $state"
    else
        fail "socket activation: get printed '$state', service $(systemctl is-active orientd.service)"
    fi
else
    fail "socket activation: socket $(systemctl is-active orientd.socket), service $(systemctl is-active orientd.service) before any client"
fi

# 2. Type=notify readiness: a restart returns once READY=1 came; the daemon
# answers at once and has sent its STATUS= line.
if systemctl restart orientd.service && [ "$(prop Type)" = notify ] && [ -n "$(prop StatusText)" ] \
    && orientctl get >/dev/null; then
    pass "notify readiness: restart returned ready, status '$(prop StatusText)'"
else
    fail "notify readiness: type $(prop Type), status '$(prop StatusText)', $(systemctl is-active orientd.service)"
fi

# 3. D-Bus activation by name: with orientd stopped, monitor-sensor waits for
# the name; a call to the name makes the bus start orientd.service, which takes
# it, and monitor-sensor sees it appear. The name comes a moment before
# systemd has taken READY=1 (CI saw the unit still activating): the unit's
# state is waited for.
systemctl stop orientd.service
monitor_log=$(mktemp)
monitor-sensor >"$monitor_log" 2>&1 &
monitor=$!
wait_for 10 grep -q "Waiting for iio-sensor-proxy" "$monitor_log"
reply=$(dbus-send --system --print-reply --reply-timeout=$((25000 * slowdown)) --dest=net.hadess.SensorProxy /net/hadess/SensorProxy \
    org.freedesktop.DBus.Properties.Get string:net.hadess.SensorProxy string:HasAccelerometer 2>&1)
if wait_for 20 grep -q "iio-sensor-proxy appeared" "$monitor_log" && wait_for 10 active orientd.service \
    && [[ "$reply" == *"boolean false"* ]] && wait_for 10 grep -q "=== No accelerometer" "$monitor_log" \
    && journalctl -u dbus.service --no-pager | grep -q "Activating via systemd: service name='net.hadess.SensorProxy'"; then
    pass "D-Bus activation: the bus started orientd.service for net.hadess.SensorProxy; monitor-sensor printed: $(tr '\n' '|' <"$monitor_log")"
else
    fail "D-Bus activation: reply '$reply'; service $(systemctl is-active orientd.service); monitor-sensor printed: $(tr '\n' '|' <"$monitor_log")"
fi
kill "$monitor" 2>/dev/null
wait "$monitor" 2>/dev/null

# 4. The rotation lock survives a restart (kept in StateDirectory=).
if orientctl lock right-up && systemctl restart orientd.service \
    && [[ "$(orientctl --json get)" == *'"locked":"right-up"'* ]]; then
    pass "the lock survives a restart: $(orientctl --json get)"
else
    fail "the lock after a restart: $(orientctl --json get 2>&1)"
fi
orientctl unlock

# 5. Reload with a good configuration, then a bad one (kept running, same PID).
pid=$(prop MainPID)
printf '[dbus]\nenable = true\n[daemon]\nlog-level = info\n' >/etc/orientd/orientd.conf
systemctl reload orientd.service
if wait_for 10 sh -c "journalctl -u orientd.service _PID=$pid | grep -q 'SIGHUP: configuration reloaded from /etc/orientd/orientd.conf'"; then
    pass "reload with a good configuration"
else
    fail "reload with a good configuration: $(journalctl -u orientd.service -n 5 --no-pager)"
fi
printf '[dbus]\nenable = true\n[bogus]\n' >/etc/orientd/orientd.conf
systemctl reload orientd.service
if wait_for 10 sh -c "journalctl -u orientd.service _PID=$pid | grep -q 'keeping the running configuration'" \
    && active orientd.service && [ "$(prop MainPID)" = "$pid" ] && orientctl get >/dev/null; then
    pass "reload with a bad configuration keeps the running one: $(journalctl -u orientd.service _PID="$pid" -n 1 -o cat --no-pager)"
else
    fail "reload with a bad configuration: $(systemctl is-active orientd.service), pid $(prop MainPID) (was $pid)"
fi
printf '[dbus]\nenable = true\n' >/etc/orientd/orientd.conf

# 6. The watchdog over a minute (WatchdogSec=30s): pings keep coming, no restart.
first=$(prop WatchdogTimestampMonotonic)
restarts=$(prop NRestarts)
sleep_until=$((SECONDS + 65))
while [ "$SECONDS" -lt "$sleep_until" ]; do sleep 1; done
last=$(prop WatchdogTimestampMonotonic)
if active orientd.service && [ "$(prop MainPID)" = "$pid" ] && [ "$(prop NRestarts)" = "$restarts" ] \
    && [ "$last" -gt "$first" ] && ! journalctl -u orientd.service --no-pager | grep -q "Watchdog timeout"; then
    pass "watchdog over 65 s: pinged (last ping $(((last - first) / 1000000)) s after the first seen), same PID, no restart"
else
    fail "watchdog: $(systemctl is-active orientd.service), pid $(prop MainPID) (was $pid), restarts $(prop NRestarts), pings $first -> $last"
fi

# The D-Bus side logged that it serves the name.
if journalctl -u orientd.service --no-pager | grep -q "D-Bus: serving net.hadess.SensorProxy"; then
    pass "orientd logged that it serves net.hadess.SensorProxy"
else
    fail "no 'serving net.hadess.SensorProxy' line in the journal"
fi

# 7. The seat under real logind (the service's configuration names no
# seat-users): a test user is refused lock and constrain without a session,
# may lock and constrain once its logind session is the active one on seat0,
# and is refused again after the session ends (orientd-seat-check is
# Tests/seat/check-logind-seat.sh). orientd says who the seat is at info level
# (no news on a normal start): the line is the one step 5's reload logged with
# log-level = info.
seat_out=$(ORIENTD_SOCKET=/run/orientd/orientd.sock orientd-seat-check 2>&1)
seat_status=$?
seen=$(journalctl -u orientd.service -o cat --no-pager | grep -m 1 "the seat is")
if [ "$seat_status" = 0 ] && [[ "$seen" == *"logind's active session on seat0"* ]]; then
    pass "the seat under logind ($seen): $(echo "$seat_out" | tr '\n' '|')"
else
    fail "the seat under logind (exit $seat_status; orientd said '$seen'): $(echo "$seat_out" | tr '\n' '|')"
fi

# Under qemu-user only (ORIENTD_BOOT_EMULATED, run.sh): what the emulation
# changed, as NOTE lines, which count neither way. The pidfd_spawn shim must
# not be in orientd. Its Seccomp: line is shown for the record; under qemu it is
# systemd-nspawn's own host-side filter, since qemu-user has no seccomp for the
# container's systemd to install SystemCallFilter= with (docs/packaging.md).
if [ -n "${ORIENTD_BOOT_EMULATED:-}" ]; then
    echo "NOTE emulated by ${ORIENTD_BOOT_EMULATED//_/ }" >>"$result"
    pid=$(prop MainPID)
    if [ "$pid" -gt 0 ] && grep -q qemu-pidfd-spawn "/proc/$pid/maps"; then
        fail "orientd (pid $pid) has the emulation's pidfd_spawn shim loaded"
    elif [ "$pid" -gt 0 ]; then
        pass "orientd (pid $pid) runs without the emulation's pidfd_spawn shim (it is in PID 1 only: $(grep -c qemu-pidfd-spawn /proc/1/maps) mappings there)"
    else
        fail "orientd is not running at the end"
    fi
    echo "NOTE orientd's /proc/$pid/status: $(grep -E '^(Seccomp|NoNewPrivs|CapBnd):' "/proc/$pid/status" | tr '\t\n' ' ')" >>"$result"
fi
journalctl -u orientd.service --no-pager -o short-monotonic >/boot-check.journal 2>&1
if [ "$failed" = 0 ]; then echo "ALL PASSED" >>"$result"; else echo "SOME FAILED" >>"$result"; fi
