#!/usr/bin/env python3
# make-elf-seeds.py DIR - write the seed inputs of fuzz_elf (file trees in its
# record format, see fuzz_elf.c) into DIR.  The ELF files are built here by
# hand, as small as the reader accepts: a header, program headers, one
# PT_LOAD over the whole file, PT_INTERP, PT_DYNAMIC and a string table.
import os
import struct
import sys

ET_EXEC, ET_DYN = 2, 3
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ = 0, 1, 5, 10
DT_SONAME, DT_RPATH, DT_RUNPATH, DT_FLAGS_1 = 14, 15, 29, 0x6ffffffb
DF_1_NODEFLIB = 0x800


def elf(interp=None, needed=(), rpath=None, runpath=None, soname=None, nodeflib=False,
        etype=ET_DYN):
    strtab = b"\0"
    offsets = {}

    def s(x):
        nonlocal strtab
        if x not in offsets:
            offsets[x] = len(strtab)
            strtab += x.encode() + b"\0"
        return offsets[x]

    dyn = [(DT_NEEDED, s(n)) for n in needed]
    if rpath is not None:
        dyn.append((DT_RPATH, s(rpath)))
    if runpath is not None:
        dyn.append((DT_RUNPATH, s(runpath)))
    if soname is not None:
        dyn.append((DT_SONAME, s(soname)))
    if nodeflib:
        dyn.append((DT_FLAGS_1, DF_1_NODEFLIB))
    has_dyn = bool(dyn)
    nph = 1 + (interp is not None) + has_dyn
    off = 64 + 56 * nph
    interp_b = interp.encode() + b"\0" if interp is not None else b""
    interp_off = off
    off += len(interp_b)
    strtab_off = off
    off += len(strtab)
    off = (off + 7) & ~7
    dyn_off = off
    if has_dyn:
        dyn += [(DT_STRTAB, strtab_off), (DT_STRSZ, len(strtab)), (DT_NULL, 0)]
    dyn_b = b"".join(struct.pack("<qQ", t, v) for t, v in dyn)
    size = dyn_off + len(dyn_b)

    ph = [struct.pack("<IIQQQQQQ", PT_LOAD, 5, 0, 0, 0, size, size, 0x1000)]
    if interp is not None:
        ph.append(struct.pack("<IIQQQQQQ", PT_INTERP, 4, interp_off, interp_off, interp_off,
                              len(interp_b), len(interp_b), 1))
    if has_dyn:
        ph.append(struct.pack("<IIQQQQQQ", PT_DYNAMIC, 6, dyn_off, dyn_off, dyn_off,
                              len(dyn_b), len(dyn_b), 8))
    ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    eh = ident + struct.pack("<HHIQQQIHHHHHH", etype, 62, 1, 0x1000, 64, 0, 0, 64, 56, nph,
                             64, 0, 0)
    body = eh + b"".join(ph) + interp_b + strtab
    body += bytes(dyn_off - len(body)) + dyn_b
    assert len(body) == size
    return body


FILE, LINK, FIFO, DIR = 0, 1, 2, 3


def rec(kind, name, data=b""):
    if isinstance(data, str):
        data = data.encode()
    return bytes([kind, len(name)]) + name.encode() + struct.pack("<H", len(data)) + data


LOADER = elf(etype=ET_DYN, soname="ld.so")
SEEDS = {
    # an executable, its loader and a chain of libraries with a DT_NEEDED loop
    "tree": [rec(FILE, "prog", elf("ld.so", ["liba.so"], runpath="$ORIGIN/lib")),
             rec(FILE, "ld.so", LOADER),
             rec(FILE, "lib/liba.so", elf(None, ["libb.so"], soname="liba.so")),
             rec(FILE, "lib/libb.so", elf(None, ["liba.so", "libc.so"], soname="libb.so")),
             rec(FILE, "l2/libc.so", elf(None, ["libb.so"]))],
    "static": [rec(FILE, "prog", elf(etype=ET_EXEC))],
    "scripts": [rec(FILE, "prog", "#!s1 -x\n"), rec(FILE, "s1", "#! \ts2\n"),
                rec(FILE, "s2", "#!prog\n")],
    "script-elf": [rec(FILE, "prog", "#!bin/interp\n"),
                   rec(FILE, "bin/interp", elf("ld.so", ["liba.so"], rpath="${ORIGIN}/../lib")),
                   rec(FILE, "ld.so", LOADER), rec(FILE, "lib/liba.so", elf(soname="liba.so"))],
    "fifo-interp": [rec(FILE, "prog", "#!fifo\n"), rec(FIFO, "fifo")],
    "fifo-pt-interp": [rec(FILE, "prog", elf("fifo")), rec(FIFO, "fifo")],
    "fifo-lib": [rec(FILE, "prog", elf("ld.so", ["libf.so", "libg.so"])),
                 rec(FILE, "ld.so", LOADER), rec(FIFO, "lib/libf.so"),
                 rec(FIFO, "lib/glibc-hwcaps/x86-64-v3/libg.so"),
                 rec(FILE, "l2/libf.so", elf()), rec(FILE, "l2/libg.so", elf())],
    "hwcaps": [rec(FILE, "prog", elf("ld.so", ["libh.so"], runpath="$ORIGIN/x/$LIB:$PLATFORM")),
               rec(FILE, "ld.so", LOADER),
               rec(FILE, "x/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libh.so", elf()),
               rec(LINK, "x/lib/x86_64-linux-gnu/libh.so", "glibc-hwcaps/x86-64-v3/libh.so")],
    "slash-needed": [rec(FILE, "prog", elf("ld.so", ["sub/x.so"], nodeflib=True)),
                     rec(FILE, "ld.so", LOADER), rec(FILE, "sub/x.so", elf(None, ["sub/x.so"])),
                     rec(DIR, "lib/libx.so")],
    "symlink-loop": [rec(LINK, "prog", "a"), rec(LINK, "a", "prog")],
    "truncated": [rec(FILE, "prog", elf("ld.so", ["liba.so"])[:100])],
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, records in SEEDS.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"".join(records))
