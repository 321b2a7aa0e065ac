# Sourced (not run) by scripts/trixie/*.sh: a cached Debian 13 root.
#
#   trixie_root NAME ROOT ARCH PACKAGES
#
# debootstraps a minbase trixie for ARCH (amd64, or arm64 through qemu-user:
# qemu-user-static and binfmt_misc) into ROOT once, with PACKAGES
# (space-separated) installed, and records PACKAGES in ROOT/.complete-trixie;
# a later call with the same list reuses it, another list rebuilds it. NAME
# prefixes the messages. Logs go next to ROOT. Exits 1 with the reason and the
# log's tail on any failure.
# Debian 13's Swift and what Package.swift's system libraries need (the
# Makefile's DEBIAN_DEPS for building, with trixie's names); udev for the
# hwdb tests (systemd-hwdb). make check-trixie and make deb share this root.
trixie_build_packages="swiftlang pkg-config libudev-dev libsystemd-dev libevdev-dev libstdc++-14-dev libc6-dev udev"

trixie_root() {
    _name=$1 _root=$2 _arch=$3 _packages=$4
    _work=$(dirname "$_root")
    _mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
    if [ -f "$_root/.complete-trixie" ] && [ "$(cat "$_root/.complete-trixie")" = "$_arch $_packages" ]; then
        return 0
    fi
    echo "$_name: debootstrap trixie ($_arch) into $_root (cached for later runs)"
    mkdir -p "$_work"
    rm -rf "$_root" "$_root.tmp"
    _log="$_work/debootstrap-$(basename "$_root").log"
    debootstrap --arch="$_arch" --variant=minbase trixie "$_root.tmp" "$_mirror" >"$_log" 2>&1 || {
        tail -20 "$_log" >&2
        echo "$_name: debootstrap of trixie ($_arch) failed (log: $_log)" >&2
        exit 1
    }
    _log="$_work/apt-$(basename "$_root").log"
    # shellcheck disable=SC2086 # a list of package names
    chroot "$_root.tmp" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $_packages && apt-get clean" \
        >"$_log" 2>&1 || {
        tail -20 "$_log" >&2
        echo "$_name: installing $_packages into the $_arch root failed (log: $_log)" >&2
        exit 1
    }
    echo "$_arch $_packages" >"$_root.tmp/.complete-trixie"
    mv "$_root.tmp" "$_root"
}

# trixie_apt NAME ROOT PACKAGES: installs PACKAGES into the root when any is
# missing (nothing when all are there); exits 1 with apt's tail on failure.
trixie_apt() {
    _name=$1 _root=$2
    shift 2
    _missing=""
    for _p in "$@"; do
        chroot "$_root" dpkg-query -W -f='${Status}' "$_p" 2>/dev/null | grep -q "install ok installed" || _missing="$_missing $_p"
    done
    [ -n "$_missing" ] || return 0
    echo "$_name: installing$_missing into $_root"
    _log="$(dirname "$_root")/apt-$(basename "$_root").log"
    # shellcheck disable=SC2086 # a list of package names
    chroot "$_root" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $_missing && apt-get clean" \
        >"$_log" 2>&1 || {
        tail -20 "$_log" >&2
        echo "$_name: installing$_missing failed (log: $_log)" >&2
        exit 1
    }
}

# trixie_binfmt NAME: makes arm64 binaries run here (in chroots too): mounts
# binfmt_misc and registers qemu-user-static's qemu-aarch64 with the F flag
# when they are not there yet; exits 1 with the reason otherwise.
trixie_binfmt() {
    _name=$1
    _qemu=/usr/libexec/qemu-binfmt/aarch64-binfmt-P
    _binfmt=/proc/sys/fs/binfmt_misc
    { [ -x "$_qemu" ] && [ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]; } || { echo "$_name: qemu-user-static is missing (Debian: qemu-user-static)" >&2; exit 1; }
    [ -f "$_binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$_binfmt" || { echo "$_name: cannot mount binfmt_misc on $_binfmt" >&2; exit 1; }
    if [ ! -f "$_binfmt/qemu-aarch64" ]; then
        echo "$_name: registering qemu-aarch64 with binfmt_misc"
        cat /usr/lib/binfmt.d/qemu-aarch64.conf >"$_binfmt/register" || { echo "$_name: cannot register qemu-aarch64 with binfmt_misc" >&2; exit 1; }
    fi
    grep -qx enabled "$_binfmt/qemu-aarch64" || { echo "$_name: binfmt_misc's qemu-aarch64 entry is disabled" >&2; exit 1; }
    grep -q '^flags:.*F' "$_binfmt/qemu-aarch64" || { echo "$_name: binfmt_misc's qemu-aarch64 entry lacks the F flag, so it cannot run in a chroot: $(grep flags "$_binfmt/qemu-aarch64")" >&2; exit 1; }
}
