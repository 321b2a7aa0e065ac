#!/bin/sh
# The seat policy against a real logind session (docs/security.md), where the
# security suite (Tests/security) can only use the seat-users fallback.
#
# Needs: root; systemd as PID 1 with systemd-logind running (a booted VM with
# virtual terminals: a session on seat0 needs a VT); a built orientd
# (.build/debug/orientd, or $ORIENTD); a user to log in as ($SEAT_USER,
# default: the system user orientd-seat-test, created if missing).
#
# It starts orientd on a private socket with no seat-users, then checks, with
# clients run through setpriv:
#   1. the user, with no session, may not constrain (not-permitted);
#   2. once the user has an active session on seat0 (systemd-run with
#      PAMName=login on /dev/tty6, then loginctl activate), the same request
#      is allowed, on a connection opened before the login;
#   3. after the session ends, it is refused again, and the user's constraint
#      no longer counts.
# Exits 0 when all hold, 1 when one fails, 77 (skipped) without logind or VTs.
#
#   sudo Tests/seat/check-logind-seat.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
orientd=${ORIENTD:-$root/.build/debug/orientd}
user=${SEAT_USER:-orientd-seat-test}
tty=/dev/tty6

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "needs root"
[ -d /run/systemd/system ] || skip "systemd is not PID 1"
systemctl is-active --quiet systemd-logind || skip "systemd-logind is not running"
[ -e "$tty" ] || skip "no $tty (a session on seat0 needs a virtual terminal)"
[ -x "$orientd" ] || fail "no orientd at $orientd (swift build first)"
id -u "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
uid=$(id -u "$user")

dir=$(mktemp -d /tmp/orientd-seat-check.XXXXXX)
chmod 755 "$dir"
unit=orientd-seat-check-$$
cleanup() {
    [ -n "${daemon:-}" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
    [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null
    systemctl stop "$unit" 2>/dev/null || true
    rm -rf "$dir"
}
trap cleanup EXIT INT TERM
: >"$dir/orientd.conf"
"$orientd" --mock "$root/traces/demo.trace" --loop --socket "$dir/orientd.sock" --state-dir "$dir/state" \
    --config "$dir/orientd.conf" 2>"$dir/stderr" &
daemon=$!
for _ in $(seq 100); do [ -S "$dir/orientd.sock" ] && break; sleep 0.05; done
[ -S "$dir/orientd.sock" ] || fail "orientd did not start: $(cat "$dir/stderr")"
grep -q "logind's active session on seat0" "$dir/stderr" || fail "orientd does not see logind: $(cat "$dir/stderr")"

# One request per line from fifo `in`, replies appended to `out`, as the user.
mkfifo "$dir/in"
setpriv --reuid="$uid" --regid="$(id -g "$user")" --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); r = s.makefile("rb")
r.readline()
with open(sys.argv[2], "rb") as requests, open(sys.argv[3], "ab", buffering=0) as out:
    for line in requests:
        s.sendall(line); out.write(r.readline())
' "$dir/orientd.sock" "$dir/in" "$dir/out" &
holder=$!
exec 3>"$dir/in"
ask() {  # ask REQUEST: the reply's line
    before=$(wc -l <"$dir/out" 2>/dev/null || echo 0)
    echo "$1" >&3
    for _ in $(seq 100); do
        [ "$(wc -l <"$dir/out" 2>/dev/null || echo 0)" -gt "$before" ] && break
        sleep 0.05
    done
    tail -n 1 "$dir/out"
}
allowed() {  # what a root client reads as the allowed set
    python3 -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); r = s.makefile("rb"); r.readline()
s.sendall(b"{\"op\":\"get\"}\n"); print(",".join(json.loads(r.readline())["allowed"]))' "$dir/orientd.sock"
}

ask '{"op":"constrain","id":"x","allow":["right-up"]}' | grep -q not-permitted \
    || fail "uid $uid without a session may constrain"
echo "ok 1 - uid $uid without a session is refused"

systemd-run --unit="$unit" --property=PAMName=login --property=User="$user" --property=TTYPath="$tty" \
    --property=StandardInput=tty --property=StandardOutput=tty /bin/sleep 300 >/dev/null
session=""
for _ in $(seq 100); do
    session=$(loginctl list-sessions --no-legend | awk -v u="$user" '$3 == u { print $1; exit }')
    [ -n "$session" ] && break
    sleep 0.1
done
[ -n "$session" ] || fail "no logind session for $user"
loginctl activate "$session"
for _ in $(seq 100); do
    [ "$(loginctl show-session "$session" -p Active --value)" = yes ] && break
    sleep 0.1
done
[ "$(loginctl show-session "$session" -p Seat --value)" = seat0 ] || fail "session $session is not on seat0"
ask '{"op":"constrain","id":"x","allow":["right-up"]}' | grep -q '"ok"' \
    || fail "uid $uid with the active session on seat0 may not constrain: $(tail -n 1 "$dir/out")"
[ "$(allowed)" = right-up ] || fail "the seat user's constraint does not count"
echo "ok 2 - uid $uid with the active session on seat0 may constrain"

systemctl stop "$unit"
for _ in $(seq 100); do
    loginctl show-session "$session" >/dev/null 2>&1 || break
    [ "$(loginctl show-session "$session" -p State --value)" = closing ] && break
    sleep 0.1
done
for _ in $(seq 100); do [ "$(allowed)" != right-up ] && break; sleep 0.05; done
[ "$(allowed)" != right-up ] || fail "the former seat user's constraint still counts"
ask '{"op":"constrain","id":"y","allow":["left-up"]}' | grep -q not-permitted \
    || fail "uid $uid may still constrain after its session ended"
echo "ok 3 - after the session ends, uid $uid is refused and its constraint no longer counts"
