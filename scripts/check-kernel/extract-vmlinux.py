#!/usr/bin/python3
"""Write the decompressed kernel (an ELF vmlinux) inside a bzImage.

    extract-vmlinux.py VMLINUZ VMLINUX

Debian's kernel is XZ-compressed (CONFIG_KERNEL_XZ). Under QEMU's TCG the
kernel's own XZ decompressor takes a long time; the ELF booted through its
PVH entry (CONFIG_PVH) skips it. Like the kernel tree's
scripts/extract-vmlinux: finds each XZ stream in the file, decompresses it and
keeps the first result that is an ELF file.
"""
import lzma
import sys

src, dst = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
magic = b"\xfd7zXZ\x00"
start = 0
while True:
    at = data.find(magic, start)
    if at < 0:
        sys.exit(f"extract-vmlinux: no XZ-compressed ELF kernel in {src}")
    try:
        out = lzma.LZMADecompressor().decompress(data[at:])
    except lzma.LZMAError:
        out = b""
    if out[:4] == b"\x7fELF":
        open(dst, "wb").write(out)
        sys.exit(0)
    start = at + 1
