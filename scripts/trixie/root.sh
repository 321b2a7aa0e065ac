# Sourced (not run) by scripts/trixie/*.sh and scripts/check-boot/run.sh: a
# cached Debian 13 root (scripts/cache.sh: outside the work tree, in
# $ORIENTD_CI_CACHE, default /var/cache/orientd-ci).
#
#   trixie_root NAME ENTRY ARCH PACKAGES
#
# Sets trixie_root_dir to the cache's ENTRY: a minbase trixie for ARCH (amd64,
# or arm64 through qemu-user: qemu-user-static and binfmt_misc) with PACKAGES
# (space-separated) installed, debootstrapped the first time and whenever the
# architecture, the list or trixie_recipe below changes. NAME prefixes the
# messages. Exits 1 with the reason and the log's tail on any failure.
#
# A root that a build writes into is used through trixie_overlay, never
# written itself.
. "$(dirname "$here")/cache.sh"

# Debian 13's Swift and what Package.swift's system libraries need (the
# Makefile's DEBIAN_DEPS for building, with trixie's names); udev for the
# hwdb tests (systemd-hwdb); what make deb needs (debhelper, dpkg-dev,
# lintian, and build-essential, which dpkg-checkbuilddeps asks for). make
# check-trixie, make deb and make check-arm64 share this root.
trixie_build_packages="swiftlang pkg-config libudev-dev libsystemd-dev libevdev-dev libstdc++-14-dev libc6-dev udev debhelper dpkg-dev lintian build-essential"

trixie_recipe() {
    _dir=$1 _arch=$2 _packages=$3
    debootstrap --arch="$_arch" --variant=minbase trixie "$_dir" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >>"$cache_log" 2>&1 \
        || cache_fail "$_name" "debootstrap of trixie ($_arch) failed"
    # shellcheck disable=SC2086 # a list of package names
    chroot "$_dir" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $_packages && apt-get clean" \
        >>"$cache_log" 2>&1 || cache_fail "$_name" "installing $_packages into the $_arch root failed"
}

trixie_root() {
    _name=$1
    cached "$1" "$2" "$(dirname "$here")/trixie/root.sh" trixie_recipe "$3" "$4"
    trixie_root_dir=$cache_path
}

# trixie_overlay LOWER DIR: prepares a writable layer over the cached root
# LOWER in DIR (emptied: each run starts from the cache as it is) and sets
# trixie_overlay_options; in the caller's private mount namespace,
#   mount -t overlay overlay -o "$trixie_overlay_options" DIR/merged
# then gives the root to chroot into, its writes kept in DIR/upper.
trixie_overlay() {
    rm -rf "$2"
    mkdir -p "$2/upper" "$2/work" "$2/merged"
    trixie_overlay_options="lowerdir=$1,upperdir=$2/upper,workdir=$2/work"
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
