#!/usr/bin/env bash
# Runs the test suites under AddressSanitizer (with LeakSanitizer) and
# ThreadSanitizer; the `make check-sanitize` target.
#
#   scripts/check-sanitize.sh                 # address, then thread
#   scripts/check-sanitize.sh address         # one of them
#
# address: builds the package and its tests with --sanitize=address into
#   .build/asan (the normal .build/debug is untouched), runs the Swift tests
#   with the integration tests pointed at the ASan-built orientd and orientctl,
#   then the umockdev suite and the socket-activation tests against the
#   ASan-built daemon (under umockdev's LD_PRELOAD: ASan's runtime is linked
#   into the executable, so the preload order does not matter).
# thread: the same with --sanitize=thread into .build/tsan, Swift tests only
#   (the daemon is single-threaded; the threads are in the tests, OrientClient
#   and the Swift runtime).
#
# Every sanitized process writes its reports to .build/sanitize/<kind>/<kind>.<pid>
# (ASAN_OPTIONS/TSAN_OPTIONS log_path), whether or not the test that ran it
# looked at its stderr; any report fails the run and is printed at the end.
# Leaks are checked (detect_leaks=1). The suppressions in scripts/sanitizers/
# (lsan.supp, asan.supp) name only Foundation and XCTest bugs reached from the
# test runner, each with its evidence.
# The Swift tests run one at a time (--no-parallel): on a 2-CPU machine a
# parallel run under TSan's slowdown starves Swift's cooperative thread pool
# and fails ~20 OrientClient tests on their timeouts, for no thread reason
# (docs/robustness.md); SANITIZE_PARALLEL=1 runs them in parallel anyway.
#
# Environment: SWIFT (default swift), SWIFT_FLAGS (extra build flags, e.g.
# -Xswiftc -warnings-as-errors), SANITIZE_PARALLEL=1, SANITIZE_VERBOSE=1 (the
# tests' whole output, not only failures), SANITIZE_SKIP_UMOCKDEV=1.
# Exit status: 0 clean, 1 a test failed or a sanitizer reported something.

set -u -o pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
SWIFT=${SWIFT:-swift}
read -r -a EXTRA_FLAGS <<< "${SWIFT_FLAGS:-}"
OUT=$ROOT/.build/sanitize
LSAN_SUPPRESSIONS=$ROOT/scripts/sanitizers/lsan.supp
ASAN_SUPPRESSIONS=$ROOT/scripts/sanitizers/asan.supp
KINDS=("$@")
[ ${#KINDS[@]} -eq 0 ] && KINDS=(address thread)
PARALLEL=--no-parallel
[ "${SANITIZE_PARALLEL:-}" = 1 ] && PARALLEL=--parallel

# The Swift runtime's crash backtracer would start a helper process inside a
# sanitized run; the sanitizers print their own stacks.
export SWIFT_BACKTRACE=enable=no

failures=()
summary=()

now() { date +%s; }

# step NAME LOG COMMAND...: runs COMMAND with its output in LOG; prints the
# failures (or everything, with SANITIZE_VERBOSE=1); records the outcome.
step() {
    local name=$1 log=$2
    shift 2
    local start status
    start=$(now)
    echo "== $name"
    if [ "${SANITIZE_VERBOSE:-}" = 1 ]; then
        "$@" 2>&1 | tee "$log"
        status=${PIPESTATUS[0]}
    else
        "$@" > "$log" 2>&1
        status=$?
    fi
    local took=$(( $(now) - start ))
    if [ "$status" -ne 0 ]; then
        [ "${SANITIZE_VERBOSE:-}" = 1 ] || grep -E '✘|^(FAIL|ERROR):|^error:|Error:|Traceback|AssertionError' "$log" | head -40
        echo "   failed (status $status) after ${took} s; full output: ${log#"$ROOT"/}"
        failures+=("$name")
    else
        # One line of what ran: Swift Testing's and unittest's own summaries.
        grep -E '^(✔|✘) Test run with|^Ran [0-9]+ tests|^Build complete' "$log" | tail -2 | sed 's/^/   /'
        echo "   ok after ${took} s"
    fi
    summary+=("$(printf '%-34s %-6s %5d s' "$name" "$([ "$status" -eq 0 ] && echo ok || echo FAILED)" "$took")")
    return "$status"
}

# reports KIND DIR: fails the run when any sanitized process wrote a report.
reports() {
    local kind=$1 dir=$2 files
    files=$(find "$dir" -type f 2>/dev/null | sort)
    if [ -z "$files" ]; then
        echo "   no $kind report from any process"
        return
    fi
    echo "   $kind reports:"
    local file
    for file in $files; do
        echo "---- ${file#"$ROOT"/} ($(grep -m1 -oE '(ERROR|WARNING): [A-Za-z]+Sanitizer: [^(]*' "$file" || echo report))"
        head -60 "$file"
        [ "$(wc -l < "$file")" -gt 60 ] && echo "     … $(wc -l < "$file") lines in all"
    done
    failures+=("$kind reports")
}

run_address() {
    local scratch=.build/asan bin=$ROOT/.build/asan/debug dir=$OUT/asan
    rm -rf "$dir" && mkdir -p "$dir"
    step "address: build" "$OUT/asan-build.log" \
        "$SWIFT" build --build-tests --sanitize=address --scratch-path "$scratch" "${EXTRA_FLAGS[@]}" || return
    [ -x "$bin/orientd" ] || return
    # detect_leaks: LeakSanitizer at every sanitized process's exit (the daemon
    # exits through exit(3) on SIGTERM, so its leaks are checked too).
    # detect_stack_use_after_return: fake stacks catch returned-frame pointers.
    # strict_string_checks: libc string functions check the whole string.
    # suppressions: toolchain bugs reached from the test runner (asan.supp, lsan.supp).
    export ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:suppressions=$ASAN_SUPPRESSIONS:log_path=$dir/asan"
    export LSAN_OPTIONS="suppressions=$LSAN_SUPPRESSIONS:print_suppressions=0"
    export ORIENTD_SANITIZED=address  # lets a test relax figures a sanitizer inflates (RSS)
    ORIENTD_BINARY=$bin/orientd ORIENTCTL_BINARY=$bin/orientctl \
        step "address: swift test" "$OUT/asan-test.log" \
        "$SWIFT" test --skip-build --sanitize=address --scratch-path "$scratch" "$PARALLEL" || true
    if [ -z "${SANITIZE_SKIP_UMOCKDEV:-}" ] && command -v umockdev-wrapper >/dev/null; then
        ORIENTD_BUILD_DIR=$bin ORIENTD=$bin/orientd ORIENTCTL=$bin/orientctl \
            step "address: umockdev suite" "$OUT/asan-umockdev.log" \
            umockdev-wrapper /usr/bin/python3 -m unittest discover -s Tests/umockdev -v || true
    fi
    if [ -d Tests/activation ]; then
        ORIENTD=$bin/orientd step "address: activation tests" "$OUT/asan-activation.log" \
            /usr/bin/python3 -m unittest discover -s Tests/activation -v || true
    fi
    unset ASAN_OPTIONS LSAN_OPTIONS ORIENTD_SANITIZED
    reports AddressSanitizer "$dir"
}

run_thread() {
    local scratch=.build/tsan bin=$ROOT/.build/tsan/debug dir=$OUT/tsan
    rm -rf "$dir" && mkdir -p "$dir"
    step "thread: build" "$OUT/tsan-build.log" \
        "$SWIFT" build --build-tests --sanitize=thread --scratch-path "$scratch" "${EXTRA_FLAGS[@]}" || return
    [ -x "$bin/orientd" ] || return
    # halt_on_error=0: report every race, not only the first; a process that
    # saw one still exits with status 66. second_deadlock_stack: both stacks
    # of a lock-order inversion.
    export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:log_path=$dir/tsan"
    export ORIENTD_SANITIZED=thread
    ORIENTD_BINARY=$bin/orientd ORIENTCTL_BINARY=$bin/orientctl \
        step "thread: swift test" "$OUT/tsan-test.log" \
        "$SWIFT" test --skip-build --sanitize=thread --scratch-path "$scratch" "$PARALLEL" || true
    unset TSAN_OPTIONS ORIENTD_SANITIZED
    reports ThreadSanitizer "$dir"
}

mkdir -p "$OUT"
for kind in "${KINDS[@]}"; do
    case $kind in
        address) run_address ;;
        thread) run_thread ;;
        *) echo "usage: $0 [address] [thread]" >&2; exit 64 ;;
    esac
done

echo
echo "check-sanitize summary:"
printf '  %s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
    echo "FAILED: ${failures[*]}"
    exit 1
fi
echo "clean: no test failed, no sanitizer report"
