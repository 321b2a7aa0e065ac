# Sourced (not run) by scripts/check-kernel/run.sh and scripts/check-ssc/run.sh,
# after scripts/cache.sh, with $repo set and fail() defined: the guest's kernel,
# one cache entry both use (check-kernel/kernel-amd64), and the recipe of
# their roots (guest_recipe, after guest_kernel has set kdir).
#
#   guest_kernel   sets kver (e.g. 6.1.0-57-amd64: CHECK_KERNEL_VERSION, or
#                  what linux-image-amd64 depends on) and kdir (the entry:
#                  tree/, the package's files, and vmlinux)

# kernel_recipe DIR VERSION: the package's tree, and the decompressed ELF,
# booted through its PVH entry: the kernel's own XZ decompressor is very slow
# under TCG.
kernel_recipe() {
    mkdir -p "$1/deb"
    (cd "$1/deb" && apt-get download "linux-image-$2") >>"$cache_log" 2>&1 || cache_fail check-kernel "apt-get download linux-image-$2"
    dpkg-deb -x "$1"/deb/*.deb "$1/tree" || cache_fail check-kernel "dpkg-deb -x of linux-image-$2"
    rm -rf "$1/deb"
    /usr/bin/python3 "$here/extract-vmlinux.py" "$1/tree/boot/vmlinuz-$2" "$1/vmlinux" || cache_fail check-kernel "no vmlinux in linux-image-$2"
}

# kernel_recipe's $here is this directory: guest_kernel sets it locally (the
# scripts run under /bin/sh, dash, whose `local` is seen by the functions
# called).
guest_kernel() {
    local here
    here="$repo/scripts/check-kernel"
    kver=${CHECK_KERNEL_VERSION:-}
    if [ -z "$kver" ]; then
        kver=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -1)
        if [ -z "$kver" ]; then
            apt-get update -qq >/dev/null 2>&1 || true
            kver=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: linux-image-\(.*\)$/\1/p' | head -1)
        fi
    fi
    [ -n "$kver" ] || fail "no kernel package: apt-cache knows no linux-image-amd64 (apt-get update?)"
    cached check-kernel check-kernel/kernel-amd64 "$here/kernel.sh" kernel_recipe "$kver" "extract-vmlinux.py $(sha256sum <"$here/extract-vmlinux.py" | cut -c1-16)"
    kdir=$cache_path
}

# guest_recipe DIR SUITE PACKAGES VERSION MODULE-DIRS HOSTNAME [UNPACKED]: a
# guest's debootstrapped root (check-kernel's, check-ssc's), with the
# kernel's modules (from $kdir), and it packed as an initramfs. UNPACKED:
# packages of the host's own suite whose files are unpacked into it without
# their dependencies (libinput-tools' command line tools, whose package pulls
# in GTK for its GUI).
guest_recipe() {
    debootstrap --variant=minbase --include="$3" "$2" "$1/root" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >>"$cache_log" 2>&1 \
        || cache_fail "$6" "debootstrap of $2 failed"
    for _p in ${7:-}; do
        mkdir -p "$1/debs"
        (cd "$1/debs" && apt-get download "$_p") >>"$cache_log" 2>&1 && dpkg-deb -x "$1/debs/$_p"_*.deb "$1/root" \
            || cache_fail "$6" "unpacking $_p"
    done
    rm -rf "$1/debs"
    chroot "$1/root" apt-get clean
    rm -rf "$1"/root/usr/share/doc/* "$1"/root/usr/share/man/* "$1"/root/usr/share/locale/* \
        "$1"/root/usr/share/info/* "$1"/root/var/lib/apt/lists/* "$1"/root/var/cache/debconf/*-old
    # The kernel's modules (merged /usr: /lib is /usr/lib), then their index.
    _mods="$1/root/usr/lib/modules/$4"
    mkdir -p "$_mods/kernel"
    for _d in $5; do
        mkdir -p "$_mods/kernel/$(dirname "$_d")"
        cp -a "$kdir/tree/lib/modules/$4/kernel/$_d" "$_mods/kernel/$_d"
    done
    cp -a "$kdir/tree/lib/modules/$4"/modules.builtin* "$kdir/tree/lib/modules/$4/modules.order" "$_mods/"
    chroot "$1/root" depmod "$4" || cache_fail "$6" "depmod for $4"
    # A root on the initramfs: nothing to mount, nothing to check.
    : >"$1/root/etc/fstab"
    echo "$6" >"$1/root/etc/hostname"
    (cd "$1/root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$1/root.cpio" \
        || cache_fail "$6" "packing the root into root.cpio"
}
