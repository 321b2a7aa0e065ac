#!/bin/sh
# Builds the libFuzzer targets and runs each for FUZZ_SECONDS (issue 6).
#
#   FuzzTesting/run.sh                      every target, 60 s each
#   FUZZ_SECONDS=600 FuzzTesting/run.sh     the 10-minute run per target
#   FUZZ_SECONDS=0 FuzzTesting/run.sh       replay the committed corpora only
#   FuzzTesting/run.sh fuzz-trace fuzz-scan only these targets
#
# New corpus entries go to a scratch folder (FUZZ_WORK, default a temporary
# folder removed at the end), never into the committed Corpus/; crash-, leak-,
# timeout- and oom- inputs and each target's log go to FuzzTesting/.artifacts/.
# Exits 1 when any target found a crash, a leak, a timeout or an OOM (or did
# not run), after running the others. FUZZ_ARGS adds libFuzzer flags
# (e.g. FUZZ_ARGS=-jobs=2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
seconds=${FUZZ_SECONDS:-60}
swift=${SWIFT:-swift}
artifacts="$here/.artifacts"
targets=${*:-fuzz-request fuzz-trace fuzz-config fuzz-mount-matrix fuzz-scan fuzz-dbus fuzz-sensors}

# The Swift runtime's backtracer would otherwise be spawned on each crash and can
# hold a pipe open, so that a run never ends.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

work=${FUZZ_WORK:-}
if [ -z "$work" ]; then
    work=$(mktemp -d "${TMPDIR:-/tmp}/orientd-fuzz.XXXXXX")
    trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work" "$artifacts"

echo "Building the fuzz targets (release, -sanitize=fuzzer,address)…"
flags="-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library"
# ld.gold warns "Cannot export local symbol '__asan_…'" for every target: harmless.
# shellcheck disable=SC2086
if ! "$swift" build $flags >"$work/build.log" 2>&1; then
    grep -v "Cannot export local symbol" "$work/build.log" >&2
    exit 1
fi
grep -v "Cannot export local symbol" "$work/build.log" | tail -1
# shellcheck disable=SC2086
bin=$("$swift" build $flags --show-bin-path) || exit 1
for target in $targets; do
    [ -x "$bin/$target" ] || { echo "run.sh: $bin/$target was not built" >&2; exit 1; }
done

# Longest input per target: a protocol line a little past the 4096-byte default
# limit; several trace and config lines, each at most 4096 bytes; a mount matrix
# past its 512-byte limit; four scan types and a few scans; three sysfs
# attributes a little past their 64-byte limit.
max_len() {
    case $1 in
        fuzz-request) echo 4200 ;;
        fuzz-trace) echo 16384 ;;
        fuzz-config) echo 8192 ;;
        fuzz-mount-matrix) echo 600 ;;
        fuzz-scan) echo 512 ;;
        fuzz-dbus) echo 2048 ;;
        fuzz-sensors) echo 256 ;;
    esac
}
dict() {
    case $1 in
        fuzz-request) echo request.dict ;;
        fuzz-trace) echo trace.dict ;;
        fuzz-config) echo config.dict ;;
        fuzz-mount-matrix) echo mount-matrix.dict ;;
        fuzz-scan) echo scan.dict ;;
        fuzz-dbus) echo dbus.dict ;;
        fuzz-sensors) echo sensors.dict ;;
    esac
}

failed=""
summary=""
for target in $targets; do
    mkdir -p "$work/$target" "$artifacts/$target"
    log="$artifacts/$target.log"
    before=$(ls "$artifacts/$target" | wc -l)
    if [ "$seconds" -gt 0 ]; then
        echo "== $target: ${seconds}s"
        # shellcheck disable=SC2086
        "$bin/$target" "$work/$target" "$here/Corpus/$target" \
            -max_total_time="$seconds" -max_len="$(max_len "$target")" -dict="$here/Dictionaries/$(dict "$target")" \
            -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$artifacts/$target/" -print_final_stats=1 \
            ${FUZZ_ARGS:-} >"$log" 2>&1
    else
        echo "== $target: replaying the corpus"
        "$bin/$target" -runs=0 -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$artifacts/$target/" \
            -print_final_stats=1 "$here/Corpus/$target" >"$log" 2>&1
    fi
    status=$?
    after=$(ls "$artifacts/$target" | wc -l)
    stats=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -1 | sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]*[[:space:]]*/\1 execs, /; s/ lim:.*//; s/ corp:/ corpus/')
    rate=$(sed -n 's/^stat::average_exec_per_sec:[[:space:]]*//p' "$log")
    if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
        failed="$failed $target"
        summary="$summary$target: FAILED (exit $status) — see $log and $artifacts/$target/
"
        grep -E '^==[0-9]+==|^\*\*\*|SUMMARY|Test unit written|ERROR: libFuzzer' "$log" | head -20
    else
        summary="$summary$target: ok, $stats, ${rate:-?} exec/s
"
    fi
done

echo
printf '%s' "$summary"
if [ -n "$failed" ]; then
    echo "run.sh: findings in:$failed" >&2
    exit 1
fi
