# Sourced (not run) by the check targets' scripts: what they build once and
# reuse (debootstrapped roots, the guest kernel) lives outside the work tree, so
# a clean checkout (CI) finds what an earlier run built.
#
#   ORIENTD_CI_CACHE   the cache's directory (default /var/cache/orientd-ci).
#                      Delete an entry, or the whole directory, to rebuild it.
#
#   cached NAME ENTRY FILE RECIPE [WHAT...]
#
# Sets cache_path to $ORIENTD_CI_CACHE/ENTRY, built by RECIPE, a function
# defined in FILE, called as `RECIPE DIR WHAT...` to fill the new directory DIR
# (it logs to $cache_log and exits with the reason when it fails). The entry's
# key is WHAT (suite, architecture, packages…) and a hash of RECIPE's own lines
# in FILE (from `RECIPE() {` to the first `}` at the start of a line), kept in
# ENTRY/.cache-key: an entry whose key differs is stale and built anew, so a
# change to a package list or to the recipe rebuilds it, and nothing else does.
# NAME prefixes the messages.
#
# An entry is never changed while in use: the first run to need a build takes
# ENTRY.lock exclusively (another run at the same time waits), and every run
# then holds it shared until it exits, so no run rebuilds what another is
# reading. Users that write (a chroot) put a layer over it (trixie_overlay in
# scripts/trixie/root.sh).
cache=${ORIENTD_CI_CACHE:-/var/cache/orientd-ci}
cache_path=""
cache_log=""
_cache_fd=10

cached() {
    _cache_name=$1 _cache_entry=$2 _cache_file=$3 _cache_recipe=$4
    shift 4
    cache_path="$cache/$_cache_entry"
    cache_log="$cache_path.log"
    _cache_key=$(printf '%s\n' "$@"; printf 'recipe %s\n' "$(sed -n "/^$_cache_recipe() {/,/^}/p" "$_cache_file" | sha256sum | cut -c1-16)")
    case $_cache_key in *"recipe e3b0c44298fc1c14") echo "$_cache_name: no function $_cache_recipe in $_cache_file" >&2; exit 2 ;; esac
    mkdir -p "$(dirname "$cache_path")"
    # One descriptor per entry, held until the script exits (dash: 0–9).
    _cache_fd=$((_cache_fd - 1))
    [ "$_cache_fd" -ge 3 ] || { echo "$_cache_name: too many cache entries in one run" >&2; exit 2; }
    eval "exec $_cache_fd>>\"\$cache_path.lock\""
    if ! flock -n -s "$_cache_fd"; then
        echo "$_cache_name: waiting for another run to finish with $cache_path"
        flock -s "$_cache_fd"
    fi
    [ "$(cat "$cache_path/.cache-key" 2>/dev/null)" != "$_cache_key" ] || return 0
    flock -x "$_cache_fd"
    if [ "$(cat "$cache_path/.cache-key" 2>/dev/null)" != "$_cache_key" ]; then
        if [ -d "$cache_path" ]; then
            echo "$_cache_name: $cache_path is stale (its key: $(tr '\n' ' ' <"$cache_path/.cache-key" 2>/dev/null)); building it anew"
        else
            echo "$_cache_name: building $cache_path (cached for later runs; ORIENTD_CI_CACHE)"
        fi
        _cache_start=$(date +%s)
        rm -rf "$cache_path" "$cache_path.tmp"
        mkdir -p "$cache_path.tmp"
        : >"$cache_log"
        "$_cache_recipe" "$cache_path.tmp" "$@"
        echo "$_cache_key" >"$cache_path.tmp/.cache-key"
        mv "$cache_path.tmp" "$cache_path"
        echo "$_cache_name: built $cache_path in $(($(date +%s) - _cache_start)) s"
    fi
    flock -s "$_cache_fd"
}

# cache_fail NAME WHAT: the last lines of $cache_log and the reason; exits 1.
cache_fail() {
    tail -20 "$cache_log" >&2
    echo "$1: $2 (log: $cache_log)" >&2
    exit 1
}
