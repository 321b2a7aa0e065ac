#!/usr/bin/env python3
"""Which async frames would trip swiftlang/swift#91639 (found by Debian 13's
swiftlang 6.0.3, whose LLVM asserts in CoroFrame.cpp at
`Layout->getElementOffset(F.LayoutFieldIndex) == F.Offset`; a toolchain without
assertions writes past the task allocation instead).

    swiftc -emit-ir -Onone … -o module.ll && scripts/trixie/async-frame-layout.py module.ll

Takes IR after coroutine splitting (-Onone keeps the `<fn>.Frame` type names)
and replays the assertion: CoroFrame's builder places each field at its
alignment clamped to 16 (the async context's), the DataLayout at its natural
one, so a field whose natural alignment (a 32-byte <4 x double>) the clamped
offset misses is that mismatch; and a frame larger than its context (`<fn>Tu`)
is the overflow. Needs the toolchain's clang, llvm-nm and llvm-objcopy on PATH
(they evaluate the layouts). Exits 1 when any frame mismatches or overflows."""
import re, subprocess, sys, tempfile, os
ll = open(sys.argv[1]).read()
frames = [(m[1], m[0], m[2]) for m in re.findall(r'^(%"([^"]+)\.Frame") = type \{ (.*) \}$', ll, re.M)]
ctx = {m[0]: int(m[1]) for m in re.findall(r'^@"([^"]+)Tu" = .*async_func_pointer <\{ i32 .*, i32 (\d+) \}>', ll, re.M)}
def split(body):
    out, depth, cur = [], 0, ''
    for ch in body:
        if ch in '<{[': depth += 1
        if ch in '>}]': depth -= 1
        if ch == ',' and depth == 0: out.append(cur.strip()); cur = ''
        else: cur += ch
    if cur.strip(): out.append(cur.strip())
    return out
probes, keys = [], []
for fi, (fn, ty, body) in enumerate(frames):
    elems = split(body)
    keys.append(('size', fi, -1)); probes.append(f'ptrtoint (ptr getelementptr ({ty}, ptr null, i32 1) to i64)')
    for ei, et in enumerate(elems):
        keys.append(('off', fi, ei)); probes.append(f'ptrtoint (ptr getelementptr ({ty}, ptr null, i32 0, i32 {ei}) to i64)')
        keys.append(('esz', fi, ei)); probes.append(f'ptrtoint (ptr getelementptr ({et}, ptr null, i32 1) to i64)')
        keys.append(('eal', fi, ei)); probes.append(f'ptrtoint (ptr getelementptr ({{ i8, {et} }}, ptr null, i32 0, i32 1) to i64)')
arr = f'@layoutprobe = global [{len(probes)} x i64] [' + ', '.join('i64 ' + p for p in probes) + ']\n'
with tempfile.TemporaryDirectory() as d:
    open(d + '/p.ll', 'w').write(ll + '\n' + arr)
    subprocess.run(['clang', '-c', '-Wno-override-module', d + '/p.ll', '-o', d + '/p.o'], check=True)
    syms = subprocess.run(['llvm-nm', d + '/p.o'], capture_output=True, text=True).stdout
    subprocess.run(['llvm-objcopy', '-O', 'binary', '--only-section=.data', d + '/p.o', d + '/data'], check=True)
    data = open(d + '/data', 'rb').read()
base = int(re.search(r'([0-9a-f]+) [dD] layoutprobe$', syms, re.M)[1], 16)
val = {k: int.from_bytes(data[base + 8 * i: base + 8 * i + 8], 'little') for i, k in enumerate(keys)}
mismatched = overflow = 0
for fi, (fn, ty, body) in enumerate(frames):
    elems = split(body)
    expect = 0
    bad = []
    for ei, et in enumerate(elems):
        off = val[('off', fi, ei)]
        align = min(val[('eal', fi, ei)], 16)  # the builder clamps to the async context's alignment
        expect = (expect + align - 1) // align * align
        if off != expect: bad.append(f'field {ei} ({et[:40]}) at {off}, builder {expect}')
        expect = off + val[('esz', fi, ei)]
    size, c = val[('size', fi, -1)], ctx.get(fn)
    over = c is not None and size > c
    if bad or over:
        print(f'{fn}: frame {size}, context {c}: ' + '; '.join(bad[:3]))
    mismatched += bool(bad); overflow += over
print(f'{len(frames)} async frames: {mismatched} laid out unlike the builder (the assertion), {overflow} larger than their context')
sys.exit(1 if mismatched or overflow else 0)
