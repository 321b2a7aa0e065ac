#!/bin/sh
# The seat policy against a real logind session (docs/security.md), where the
# security suite (Tests/security) can only use the seat-users fallback.
# `make check-boot` runs it inside its booted container against the installed
# orientd.service; it also runs as is on a booted machine or VM.
#
# Needs: root; systemd as PID 1 with systemd-logind and pam_systemd
# (libpam-systemd); orientctl; a user to log in as ($SEAT_USER, default: the
# system user orientd-seat-test, created if missing). The daemon is either the
# one listening on $ORIENTD_SOCKET (whose configuration must name no
# seat-users), or, without it, an orientd started here on a private socket
# ($ORIENTD, default .build/debug/orientd, replaying traces/demo.trace).
#
# It checks, with orientctl run as the user through setpriv:
#   1. the user, with no session, may neither lock nor constrain (`orientctl
#      hold`, which runs its command anyway): both are not-permitted;
#   2. once the user has an active logind session on seat0, the same request
#      is allowed. The session is opened by systemd-run with PAMName=login
#      (pam_systemd registers it): on /dev/tty6 where seat0 has virtual
#      terminals, else with XDG_SEAT=seat0 (a container has no VTs, and
#      logind then puts a session on seat0 without one), class user as a
#      login at the device gets, then loginctl activate; the user may lock, and
#      its constraint counts while held;
#   3. after the session ends, the user is refused both again.
# Exits 0 when all hold, 1 when one fails, 77 (skipped) without logind. Each
# wait polls for 10 s, times ORIENTD_TEST_SLOWDOWN (default 1; make
# check-boot-arm64's container, under qemu-user, sets 20).
#
#   sudo Tests/seat/check-logind-seat.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
user=${SEAT_USER:-orientd-seat-test}
orientctl=${ORIENTCTL:-$(command -v orientctl || echo "$root/.build/debug/orientctl")}
tty=/dev/tty6
slowdown=${ORIENTD_TEST_SLOWDOWN:-1}
tries=$((100 * slowdown))

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root"
[ -d /run/systemd/system ] || skip "systemd is not PID 1"
systemctl is-active --quiet systemd-logind || skip "systemd-logind is not running"
[ -x "$orientctl" ] || fail "no orientctl at $orientctl"
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
uid=$(id -u "$user")
gid=$(id -g "$user")

dir=$(mktemp -d /tmp/orientd-seat-check.XXXXXX)
chmod 755 "$dir"
unit=orientd-seat-check-$$
cleanup() {
    if [ -n "${daemon:-}" ]; then kill "$daemon" 2>/dev/null; wait "$daemon" 2>/dev/null; fi
    systemctl stop "$unit" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM

if [ -n "${ORIENTD_SOCKET:-}" ]; then
    socket=$ORIENTD_SOCKET
else
    orientd=${ORIENTD:-$root/.build/debug/orientd}
    [ -x "$orientd" ] || fail "no orientd at $orientd (swift build first)"
    socket=$dir/orientd.sock
    : >"$dir/orientd.conf"
    "$orientd" --mock "$root/traces/demo.trace" --loop --socket "$socket" --state-dir "$dir/state" \
        --config "$dir/orientd.conf" 2>"$dir/stderr" &
    daemon=$!
    for _ in $(seq "$tries"); do [ -S "$socket" ] && break; sleep 0.05; done
    [ -S "$socket" ] || fail "orientd did not start: $(cat "$dir/stderr")"
fi

# as_user COMMAND...: orientctl on the socket as the user; prints its exit
# status and what it wrote.
as_user() {
    status=0
    out=$(setpriv --reuid="$uid" --regid="$gid" --clear-groups "$orientctl" --socket "$socket" "$@" 2>&1) || status=$?
    echo "exit $status: $out"
}
refused() { case "$1" in "exit 77: "*) return 0 ;; *) return 1 ;; esac; }
# hold: a constraint to right-up held while `orientctl --json get` runs.
hold() { as_user hold right-up -- "$orientctl" --socket "$socket" --json get; }
held() { case "$1" in *"allowing only right-up"*'"allowed":["right-up"]'*) return 0 ;; *) return 1 ;; esac; }
not_held() { case "$1" in *not-permitted*) ! held "$1" ;; *) return 1 ;; esac; }

said=$(as_user lock right-up)
refused "$said" || fail "uid $uid without a session may lock: $said"
said_hold=$(hold)
not_held "$said_hold" || fail "uid $uid without a session may constrain: $said_hold"
echo "ok 1 - uid $uid without a session is refused: $said; hold: $said_hold"

if [ -e "$tty" ] && [ -e /dev/tty0 ]; then
    where="--property=TTYPath=$tty --property=StandardInput=tty --property=StandardOutput=tty"
else
    where="--setenv=XDG_SEAT=seat0"  # no VTs: logind puts the session on seat0 without one
fi
# shellcheck disable=SC2086  # $where is a list of options
systemd-run --quiet --unit="$unit" --setenv=XDG_SESSION_CLASS=user --property=PAMName=login --property=User="$user" $where /bin/sleep $((300 * slowdown)) >/dev/null
session=""
for _ in $(seq "$tries"); do
    session=$(loginctl list-sessions --no-legend | awk -v u="$user" '$3 == u { print $1; exit }')
    [ -n "$session" ] && break
    sleep 0.1
done
[ -n "$session" ] || fail "no logind session for $user: $(loginctl list-sessions --no-legend)"
loginctl activate "$session" || true
for _ in $(seq "$tries"); do
    [ "$(loginctl show-session "$session" -p Active --value)" = yes ] && break
    sleep 0.1
done
shown=$(loginctl show-session "$session" -p Seat -p Active -p Class -p Type -p VTNr | tr '\n' ' ')
[ "$(loginctl show-session "$session" -p Seat --value)" = seat0 ] || fail "session $session is not on seat0: $shown"
[ "$(loginctl show-session "$session" -p Active --value)" = yes ] || fail "session $session is not active: $shown"
said=$(as_user lock right-up)
case "$said" in "exit 0: "*) ;; *) fail "uid $uid with the active session on seat0 may not lock: $said ($shown)" ;; esac
"$orientctl" --socket "$socket" unlock >/dev/null
said_hold=$(hold)
held "$said_hold" || fail "uid $uid with the active session on seat0 may not constrain: $said_hold"
echo "ok 2 - uid $uid with the active session $session on seat0 ($shown) may lock: $said; hold: $said_hold"

systemctl stop "$unit"
for _ in $(seq "$tries"); do
    loginctl show-session "$session" >/dev/null 2>&1 || break
    [ "$(loginctl show-session "$session" -p State --value)" = closing ] && break
    sleep 0.1
done
for _ in $(seq "$tries"); do refused "$(as_user lock left-up)" && break; sleep 0.05; done
said=$(as_user lock left-up)
refused "$said" || fail "uid $uid may still lock after its session ended: $said"
said_hold=$(hold)
not_held "$said_hold" || fail "uid $uid may still constrain after its session ended: $said_hold"
echo "ok 3 - after session $session ends, uid $uid is refused again: $said; hold: $said_hold"
