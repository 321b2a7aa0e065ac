#!/bin/sh
# Regenerates the committed seed corpora in Corpus/<target>/ from the project's
# own fixtures: request and reply lines from docs/protocol.md and
# Tests/OrientProtocolTests/ProtocolMessageTests.swift, a few small traces from
# traces/, systemd/orientd.conf.example (as shipped and with every key set), the
# mount matrices in systemd's hwdb (/lib/udev/hwdb.d/60-sensor.hwdb, when
# installed) and the tests, and the scan types the tests use.
#
# Seeds are named by the SHA-1 of their content, as libFuzzer names corpus
# entries, so regenerating is idempotent. Keep the total under 1 MB: fuzzing
# finds the rest, and `run.sh` never writes back into these folders.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
corpus="$here/Corpus"

# seed TARGET: stores stdin as one seed of TARGET.
seed() {
    tmp=$(mktemp)
    cat >"$tmp"
    name=$(sha1sum "$tmp" | cut -c1-40)
    mv "$tmp" "$corpus/$1/$name"
    chmod 644 "$corpus/$1/$name"
}

rm -rf "$corpus"
mkdir -p "$corpus/fuzz-request" "$corpus/fuzz-trace" "$corpus/fuzz-config" \
    "$corpus/fuzz-mount-matrix" "$corpus/fuzz-scan" "$corpus/fuzz-dbus" "$corpus/fuzz-sensors"

# fuzz-request: every → and ← line of the protocol document, and the JSON lines
# the protocol tests feed the decoders (raw strings #"…"# without interpolation).
grep -E '^[←→] \{' "$root/docs/protocol.md" | cut -c5- | sort -u | while IFS= read -r line; do
    printf '%s' "$line" | seed fuzz-request
done
grep -ohE '#"\{.*\}?"#' "$root/Tests/OrientProtocolTests/ProtocolMessageTests.swift" \
    "$root/Tests/OrientProtocolTests/StateMessageTests.swift" | sed 's/^#"//; s/"#$//' \
    | grep -vF -e '\#(' -e '"#' | sort -u | while IFS= read -r line; do
    printf '%s' "$line" | seed fuzz-request
done

# fuzz-trace: the small traces (under 3 kB), which cover every header and the
# nan/inf samples of corrupted-samples.trace.
for trace in "$root"/traces/*.trace; do
    [ "$(wc -c <"$trace")" -lt 3000 ] && seed fuzz-trace <"$trace"
done
printf '# orientd-trace: 1\r\n# mount_matrix: 0, 1, 0; -1, 0, 0; 0, 0, 1\r\n# rate_hz: 50\r\n# on_change: true\r\n# description: CRLF, BOM\r\n# device: x\r\n t_ms , x , y , z \r\n0,0,-9.81,0\r\n20,nan,inf,-inf\r\n' \
    | { printf '\357\273\277'; cat; } | seed fuzz-trace
# Two accelerometers (a convertible's base), with light between them.
printf '# orientd-trace: 1\n# base_mount_matrix: -1, 0, 0; 0, -1, 0; 0, 0, 1\nt_ms,x,y,z,base_x,base_y,base_z,light\n0,0.4,-7.5,-6,0.05,1.6,-9.1\n50,,,,,,,12\n75,,,,nan,1.7,-9.2\n100,0.4,-7.6,-6\n' \
    | seed fuzz-trace

# fuzz-config: the example as shipped, and with every key uncommented (so the
# fuzzer starts from a file that sets everything), plus the non-default values.
seed fuzz-config <"$root/systemd/orientd.conf.example"
sed -E 's/^# ([a-z-]+ =)/\1/' "$root/systemd/orientd.conf.example" | seed fuzz-config
printf '[orientation]\nnatural = landscape\ndefault-allowed = portrait, all-but-upside-down\nportrait-on-landscape = left-up\n[sensor]\ndevice = /sys/bus/iio/devices/iio:device0\nmount-matrix = 0, 1, 0; -1, 0, 0; 1, 0, 0 # singular hwdb row\n[limits]\nclients = 1\nreply-buffer = 16777216\n[daemon]\nsocket = /tmp/o.sock\nlock-permission = same-user\nlog-level = debug\n[classifier]\nallow-upside-down = off\nz-sign = -1\nsample-rate = 1e3\n' \
    | seed fuzz-config
printf '[daemon]\nlock-permission = same-user\nconstrain-permission = anyone\nsamples-permission = off\nseat-users = 1000, kiosk\n[limits]\nclients-per-uid = 1\nreserved-clients = 65536\nchanges-per-second = 1000\nsamples-rate = 1\n[daemon]\n' \
    | seed fuzz-config
printf '[daemon]\nseat-users = everyone\nsamples-permission = seat\n' | seed fuzz-config
printf '[daemon]\nauto-rotate = tablet-mode\n' | seed fuzz-config

# fuzz-mount-matrix: every distinct ACCEL_MOUNT_MATRIX in the hwdb, and the
# spellings the tests parse.
hwdb=/lib/udev/hwdb.d/60-sensor.hwdb
if [ -r "$hwdb" ]; then
    grep -oE 'ACCEL_MOUNT_MATRIX=.*' "$hwdb" | cut -d= -f2- | sort -u | while IFS= read -r m; do
        printf '%s' "$m" | seed fuzz-mount-matrix
    done
fi
for m in '0, 1, 0; 1, 0, 0; 0, 0, 1' '0,1,0;-1,0,0;-1,0,0' '-0, -1, 0; 0, 0, -1; 1, 0, 0' \
    '	1.0, 0.0, 0.0 ;0.0, 1.0, 0.0; 0.0, 0.0, 1.0' '0.5, 0, 0; 0, 0.5, 0; 0, 0, 0.5' \
    '+1, -0.0, 0; 0, 1e0, 0; 0, 0, 1' '0.7071, 0.7071, 0; -0.7071, 0.7071, 0; 0, 0, 1' \
    '1000, 1000, 1000; 1000, -1000, 0; 1000, 1000, 1000'; do
    printf '%s' "$m" | seed fuzz-mount-matrix
done

# fuzz-scan: each type the tests parse, alone and as a four-element layout
# (x|y|z|timestamp) followed by a NUL, index bytes and two scans of data.
types=$(grep -ohE '"(le|be):[su][0-9]+/[0-9]+(X[0-9]+)?>>[0-9]+' "$root"/Tests/OrientSenseTests/*.swift \
    "$root"/Tests/umockdev/*.py 2>/dev/null | tr -d '"' | sort -u)
for t in $types; do
    printf '%s\n' "$t" | seed fuzz-scan
done
printf 'le:s16/16>>0|le:s16/16>>0|le:s16/16>>0|le:s64/64>>0\000\000\001\002\003\001\002\003\004\005\006\000\000\377\377\376\375\374\373\372\371\001\002\003\004\005\006\000\000\377\377\376\375\374\373\372\371' | seed fuzz-scan
printf 'be:s12/16>>4|be:s12/16>>4|be:s12/16>>4\000\002\001\000\200\000\177\360\377\017\020\000\000' | seed fuzz-scan
printf 'le:s16/32X2>>0|le:u8/8>>0|be:u63/64>>1\000\003\001\000\377\377\001\000\200\000\000\000\000\000\000\000\377\377\377\377\377\377\377\377' | seed fuzz-scan

# fuzz-dbus: event sequences (FuzzTesting/Sources/FuzzDBus/main.swift reads a
# byte per choice): limits, the first reading, polkit on or off, then events.
# A claim, a turn, the claimer leaving; without polkit.
printf '\004\004\003\001\001\001\000\000\000\000\000\000\004\003\002\001\003\000' | seed fuzz-dbus
# Two claims waiting for polkit: one allowed, one refused, then a reading.
printf '\004\004\000\000\000\000\000\000\000\000\000\000\000\000\001\000\000\000\002\000\000\002\000\001\004\003\001\001' | seed fuzz-dbus
# Properties.Get of AccelerometerOrientation, GetAll, Introspect, and a bad signature.
printf '\004\004\003\001\001\001\000\002\000\003\001\000\001\010\000\001\000\001\000\001\011\000\000\002\000\002\013\000\004\000\000\000\000' | seed fuzz-dbus
# A claim with no sensor, the sensor appearing fresh, then going.
printf '\001\001\000\000\000\001\000\000\003\000\000\000\004\003\002\005\004\000\000\000\005' | seed fuzz-dbus
# Light, compass and proximity present with values, claimed by three senders (the
# compass on its object); then all three not answering (proximity was near);
# the compass's bound passing; a claimer leaving.
printf '\004\004\003\052\002\001\001\001\001\000\000\001\000\000\002\000\000\002\001\003\006\000\000\003\000\000\004\004\013\025\001\001\005\003\003\001' | seed fuzz-dbus

# fuzz-sensors: value NUL scale NUL offset, as sysfs gives them; hwmon's '(a,b)';
# near levels; the texts iio-sensor-proxy reads wrong or a hostile sysfs could give.
printf '10\n\0002\n\0005\n' | seed fuzz-sensors
printf '10\0002' | seed fuzz-sensors
printf '(12,200)\n' | seed fuzz-sensors
printf '( 0 , 255 )' | seed fuzz-sensors
printf '100\n\00095\000110' | seed fuzz-sensors
printf '0.000001\0001e308\000-1e308' | seed fuzz-sensors
printf '1,5\000nan\000' | seed fuzz-sensors

echo "$(du -sb "$corpus" | cut -f1) bytes in $corpus"
for d in "$corpus"/*; do echo "$(ls "$d" | wc -l) seeds in $(basename "$d")"; done
