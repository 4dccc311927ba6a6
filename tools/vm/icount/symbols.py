#!/usr/bin/env python3
"""Names the block addresses of tools/vm/run-icount's profiles: the top symbols of each side, per call.

    python3 tools/vm/icount/symbols.py OUT_DIR [TOP]

OUT_DIR is run-icount's output folder: profiles.txt ("CASE STOP_MARK CALLS U0 K0 U1 K1": the profile window of each
case), icount.log (the plugin's "icount prof" / "icount at" lines), maps_CASE_server.txt / maps_CASE_client.txt
(/proc/PID/maps) and perfmap_CASE_server.txt / perfmap_CASE_client.txt (the JVMs' perf maps, jcmd Compiler.perfmap).
vCPU 0 ran the responder (server), vCPU 1 the requester (client). JIT-compiled code is named through the perf map,
native code through the mapping's file and its ELF symbols (nm, readelf: the guest runs the host's files).
Prints one table per case and side: user-space instructions per call by symbol, the TOP (default 30) largest.
"""
import bisect
import collections
import os
import subprocess
import sys


def read_perfmap(path):
    spans = []
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 2)
                if len(parts) == 3:
                    try:
                        spans.append((int(parts[0], 16), int(parts[1], 16), parts[2]))
                    except ValueError:
                        pass
    spans.sort()
    return spans, [s[0] for s in spans]


def read_maps(path):
    maps = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.split(None, 5)
                if len(parts) < 5:
                    continue
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                name = parts[5].strip() if len(parts) == 6 else ""
                maps.append((lo, hi, int(parts[2], 16), name))
    maps.sort()
    return maps, [m[0] for m in maps]


_elf_cache = {}


def elf(path):
    """(load segments [(offset, vaddr, filesz)], sorted symbols [(value, name)]) of an ELF file, or None."""
    if path in _elf_cache:
        return _elf_cache[path]
    result = None
    if os.path.isfile(path):
        try:
            segs = []
            out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                f = line.split()
                if f and f[0] == "LOAD":
                    segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
            syms = {}
            for args in (["nm", "-n", "--defined-only", path], ["nm", "-D", "-n", "--defined-only", path]):
                out = subprocess.run(args, capture_output=True, text=True).stdout
                for line in out.splitlines():
                    f = line.split(None, 2)
                    if len(f) == 3 and f[1] in "tTwWiI":
                        syms.setdefault(int(f[0], 16), f[2])
            ordered = sorted(syms.items())
            result = (segs, ordered, [s[0] for s in ordered])
        except (OSError, ValueError):
            result = None
    _elf_cache[path] = result
    return result


def name_of(addr, perfmap, maps):
    spans, starts = perfmap
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and spans[i][0] <= addr < spans[i][0] + max(spans[i][1], 1):
        return "[jit] " + spans[i][2]
    mlist, mstarts = maps
    j = bisect.bisect_right(mstarts, addr) - 1
    if j < 0 or addr >= mlist[j][1]:
        return "[unmapped]"
    lo, _, off, path = mlist[j]
    if not path.startswith("/"):
        return path or "[anon]"
    info = elf(path)
    base = os.path.basename(path)
    if info is None:
        return base
    segs, syms, sstarts = info
    foff = addr - lo + off
    vaddr = None
    for s_off, s_vaddr, s_size in segs:
        if s_off <= foff < s_off + s_size:
            vaddr = foff - s_off + s_vaddr
            break
    if vaddr is None:
        return base
    k = bisect.bisect_right(sstarts, vaddr) - 1
    return "%s %s" % (base, syms[k][1] if k >= 0 else "?")


def main():
    out = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    cases = []
    with open(os.path.join(out, "profiles.txt")) as f:
        for line in f:
            f2 = line.split()
            if len(f2) >= 3:
                cases.append((f2[0], f2[1], float(f2[2])))
    wanted = {stop for _, stop, _ in cases}
    addrs = collections.defaultdict(list)   # (stop, vcpu) -> [(addr, insns)]
    totals = {}
    with open(os.path.join(out, "icount.log"), errors="replace") as f:
        for line in f:
            if line.startswith("icount at "):
                _, _, stop, vcpu, addr, insns = line.split()
                if stop in wanted:
                    addrs[(stop, int(vcpu))].append((int(addr, 16), int(insns)))
            elif line.startswith("icount prof "):
                f2 = line.split()
                if f2[2] in wanted:
                    totals[(f2[2], int(f2[4]))] = int(f2[6])
    for case, stop, calls in cases:
        for vcpu, who in ((0, "server"), (1, "client")):
            side = "responder (server, vCPU 0)" if vcpu == 0 else "requester (client, vCPU 1)"
            perfmap = read_perfmap(os.path.join(out, "perfmap_%s_%s.txt" % (case, who)))
            maps = read_maps(os.path.join(out, "maps_%s_%s.txt" % (case, who)))
            by = collections.Counter()
            listed = 0
            for addr, insns in addrs.get((stop, vcpu), []):
                by[name_of(addr, perfmap, maps)] += insns
                listed += insns
            total = totals.get((stop, vcpu), 0)
            print()
            print("# %s, %s: user-space instructions per call by symbol (profile window, %.0f calls; %.1f per call in all, "
                  "%.1f%% of them in the dumped addresses)" % (case, side, calls, total / calls if calls else 0,
                                                             100.0 * listed / total if total else 0))
            for name, insns in by.most_common(top):
                print("%10.1f %5.1f%%  %s" % (insns / calls if calls else 0, 100.0 * insns / total if total else 0, name))


if __name__ == "__main__":
    main()
