#!/bin/bash
# The demo's lines (make run): orientd's state lines (the protocol's JSON
# `state` messages, one a line, on standard input: `orientctl watch --json`,
# or `orientd --print`) as one terminal line a change, with the trace time and
# what the hand is doing then (the trace's `phases` header, docs/traces.md).
# A phase that turns nothing gets its own line, saying the screen stays: so a
# jolt or a walk is seen not to rotate.
#
#   scripts/demo.sh [--live] TRACE < state lines
#
# --live: the lines come from a real-time replay (speed 1), so a phase is
# printed when its time comes, even when no state follows it for a while.
# Without it, a phase is printed when a later state (or the end) shows it came.
set -u

live=false
if [ "${1:-}" = --live ]; then live=true; shift; fi
trace=${1:?usage: scripts/demo.sh [--live] TRACE < state lines}
phases=$(sed -n 's/^# phases: //p' "$trace" | head -n 1)
if [ -z "$phases" ]; then
    echo "demo.sh: $trace has no '# phases:' header (docs/traces.md)" >&2
    exit 65
fi
rate=$(sed -n 's/^# rate_hz: //p' "$trace" | head -n 1)
last=$(tail -n 1 "$trace" | cut -d, -f1)
last=${last%%.*}
# A looping replay starts again one sample interval after the last sample.
period=$((last + 1000 / ${rate%%.*}))

at=() words=()
IFS=';' read -ra entries <<<"$phases"
for entry in "${entries[@]}"; do
    entry=${entry# }
    at+=("${entry%% *}")
    words+=("${entry#* }")
done
count=${#at[@]}

next=0        # the next phase to print, counted over every loop
phase=""      # what the hand is doing now
screen=""     # the effective orientation last printed
now_ms=0      # trace time of the last state line
now_wall=""   # when it came ($EPOCHREALTIME)

seconds() { # ms -> "12.3" within the loop
    local t=$(($1 % period))
    printf '%d.%d' $((t / 1000)) $((t % 1000 / 100))
}

line() { # time words screen rest
    printf '%6s s  %-26s  %s\n' "$(seconds "$1")" "$2" "$3"
}

# Prints every phase that has begun by trace time $1.
phases_until() {
    local start
    while :; do
        start=$(((next / count) * period + ${at[next % count]}))
        [ "$start" -le "$1" ] || return 0
        if [ $((next % count)) = 0 ] && [ "$next" -gt 0 ]; then echo "         (the trace starts again)"; fi
        phase=${words[next % count]}
        if [ -n "$screen" ]; then line "$start" "$phase" "screen: $(printf '%-10s' "$screen") stays"; fi
        next=$((next + 1))
    done
}

printf '%8s  %-26s  %s\n' "trace" "the hand" "screen: the effective orientation, and why"
while :; do
    if $live && [ -n "$now_wall" ]; then
        IFS= read -r -t 0.1 state
        status=$?
    else
        IFS= read -r state
        status=$?
    fi
    if [ "$status" -gt 128 ]; then  # no state for 0.1 s: the trace's time goes on
        wall=${EPOCHREALTIME/./}
        phases_until $((now_ms + (wall - now_wall) / 1000))
        continue
    fi
    if [ "$status" != 0 ]; then  # the end: the phases that came before the last sample
        phases_until $(((now_ms / period) * period + last))
        exit 0
    fi
    [[ $state =~ \"t_ms\":([0-9]+) ]] || continue
    now_ms=${BASH_REMATCH[1]}
    now_wall=${EPOCHREALTIME/./}
    phases_until "$now_ms"
    [[ $state =~ \"orientation\":\"([a-z-]+)\" ]] && orientation=${BASH_REMATCH[1]}
    [[ $state =~ \"physical\":\"([a-z-]+)\" ]] && physical=${BASH_REMATCH[1]}
    [[ $state =~ \"tilt\":\"([a-z-]+)\" ]] && tilt=${BASH_REMATCH[1]}
    if [ "$orientation" = "$screen" ]; then verb=stays; else verb=TURNS; fi
    [ -z "$screen" ] && verb="     "
    screen=$orientation
    line "$now_ms" "$phase" "screen: $(printf '%-10s' "$screen") $verb (physical $physical, tilt $tilt)"
done
