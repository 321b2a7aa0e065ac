# Sourced (not run) by scripts/check-kernel/run.sh and scripts/check-ssc/run.sh,
# after scripts/cache.sh, with $repo set and fail() defined: the guest's kernel,
# one cache entry both use (check-kernel/kernel-amd64).
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
