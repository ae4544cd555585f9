#!/usr/bin/env python3
"""Checks what guest.sh captured (standard library only). Usage: check.py OUT PHASE...

dumpcap is the reference. Records are compared adapter by adapter (records of two
adapters can reach two monitor sockets in a different order), as (index, opcode,
payload), in order; System Notes (opcode 12) are left out, since each socket gets its
own when it opens, and so are the Control Open and Close records of the capturers'
sockets (dumpcap, btmon, bleanalyze): a socket sees only those opened after it, and how
the capturers' start-ups interleave depends on the host's load. A record bleanalyze lacks must be one it reported as dropped. Timestamps
must equal dumpcap's to the µs, except User Logging's (opcode 13): the kernel stamps those
when each socket reads them."""
import difflib
import json
import os
import re
import struct
import subprocess
import sys
from collections import defaultdict

EPOCH_DELTA = 0x00DCDDB30F2F8000  # btsnoop epoch (year 0) -> Unix, in µs
SYSTEM_NOTE, USER_LOGGING, DEL_INDEX = 12, 13, 1
CTRL_OPEN, CTRL_CLOSE = 14, 15
CAPTURERS = {b"dumpcap", b"btmon", b"bleanalyze"}
failures = []
env = dict(line.strip().split("=", 1) for line in open(os.path.join(sys.argv[1], "env")) if "=" in line)
BLEANALYZE = env["BLEANALYZE"]


def check(ok, message):
    print(("  ok    " if ok else "  FAIL  ") + message)
    if not ok:
        failures.append(message)


def record(index, opcode, ts_us, data, dropped=0):
    return dict(index=index, opcode=opcode, ts_us=ts_us, data=data, dropped=dropped)


def btsnoop(path):
    d = open(path, "rb").read()
    assert d[:8] == b"btsnoop\0", path
    off, recs, cumulative = 16, [], 0
    while off + 24 <= len(d):
        olen, ilen, flags, drops, ts = struct.unpack(">IIIIq", d[off : off + 24])
        recs.append(record(flags >> 16, flags & 0xFFFF, ts - EPOCH_DELTA, d[off + 24 : off + 24 + ilen], drops - cumulative))
        cumulative = drops
        off += 24 + ilen
    return recs


def monitor(payload, ts_us, dropped=0):
    adapter, opcode = struct.unpack(">HH", payload[:4])  # DLT_BLUETOOTH_LINUX_MONITOR header
    return record(adapter, opcode, ts_us, payload[4:], dropped)


def pcap(path):
    d = open(path, "rb").read()
    magic = struct.unpack("<I", d[:4])[0]
    e = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    nano = struct.unpack(e + "I", d[:4])[0] == 0xA1B23C4D
    off, recs = 24, []
    while off + 16 <= len(d):
        s, frac, incl, _ = struct.unpack(e + "IIII", d[off : off + 16])
        recs.append(monitor(d[off + 16 : off + 16 + incl], s * 1_000_000 + (frac // 1000 if nano else frac)))
        off += 16 + incl
    return recs


def pcapng(path):
    d = open(path, "rb").read()
    off, recs, e, resolution = 0, [], "<", []
    while off + 12 <= len(d):
        kind = struct.unpack(e + "I", d[off : off + 4])[0]
        if kind == 0x0A0D0D0A:
            e = "<" if d[off + 8 : off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            resolution = []
        length = struct.unpack(e + "I", d[off + 4 : off + 8])[0]
        body = d[off + 8 : off + length - 4]
        if kind == 1:
            units = 1_000_000
            for code, value in options(body[8:], e):
                if code == 9:
                    units = 2 ** (value[0] & 0x7F) if value[0] & 0x80 else 10 ** value[0]
            resolution.append(units)
        elif kind == 6:
            iface, high, low, caplen, _ = struct.unpack(e + "IIIII", body[:20])
            dropped = 0
            for code, value in options(body[20 + (caplen + 3) // 4 * 4 :], e):
                if code == 4:
                    dropped = struct.unpack(e + "Q", value)[0]
            units = resolution[iface]
            recs.append(monitor(body[20 : 20 + caplen], ((high << 32) | low) * 1_000_000 // units, dropped))
        off += length
    return recs


def options(data, e):
    off = 0
    while off + 4 <= len(data):
        code, length = struct.unpack(e + "HH", data[off : off + 4])
        if code == 0:
            break
        yield code, data[off + 4 : off + 4 + length]
        off += 4 + (length + 3) // 4 * 4


def shared_view(recs):
    """The records every capturing socket sees alike: no System Notes, and no Control Open
    or Close of a capturer's socket, or of a socket opened before this one (its Close only).
    The kernel reuses cookies, so each Close belongs to the last Open of its cookie."""
    kept, capturer = [], {}  # cookie -> whether the socket open now is a capturer's
    for r in recs:
        if r["opcode"] == SYSTEM_NOTE:
            continue
        cookie = r["data"][:4]
        if r["opcode"] == CTRL_OPEN and len(r["data"]) >= 14:
            capturer[cookie] = r["data"][14 : 14 + r["data"][13]].rstrip(b"\0") in CAPTURERS
            if capturer[cookie]:
                continue
        elif r["opcode"] == CTRL_CLOSE and capturer.pop(cookie, True):
            continue
        kept.append(r)
    return kept


def key(r):
    return (r["index"], r["opcode"], r["data"])


def compare(name, ref, recs, reported, adapter=None):
    """Per adapter, in order: bleanalyze's records against dumpcap's."""
    keep = lambda r: adapter is None or r["index"] == adapter
    a, b = defaultdict(list), defaultdict(list)
    for r in filter(keep, shared_view(ref)):
        a[r["index"]].append(r)
    for r in filter(keep, shared_view(recs)):
        b[r["index"]].append(r)
    missing = extra = same = 0
    deltas = []
    for index in sorted(set(a) | set(b)):
        x, y = a[index], b[index]
        sm = difflib.SequenceMatcher(a=[key(r) for r in x], b=[key(r) for r in y], autojunk=False)
        blocks = sm.get_matching_blocks()
        matched = sum(bl.size for bl in blocks)
        same += matched
        missing += len(x) - matched
        extra += len(y) - matched
        deltas += [y[bl.b + k]["ts_us"] - x[bl.a + k]["ts_us"] for bl in blocks for k in range(bl.size)
                   if x[bl.a + k]["opcode"] != USER_LOGGING]
    total = sum(len(v) for v in a.values())
    print(f"  {name}: {same + extra} records, dumpcap {total}: missing {missing}, extra {extra}, reported dropped {reported}")
    check(extra == 0, f"{name}: no record that dumpcap lacks")
    check(missing == reported, f"{name}: missing ({missing}) equals reported dropped ({reported})")
    nonzero = sum(1 for v in deltas if v)
    check(nonzero == 0, f"{name}: kernel timestamps equal to dumpcap's to the µs ({nonzero} of {len(deltas)} differ"
          + (f", {min(deltas)}..{max(deltas)} µs)" if deltas else ")"))
    return missing, extra


def opens(path, count):
    """tshark and bleanalyze both read the file whole, without an error."""
    t = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.number"], capture_output=True, text=True)
    check(t.returncode == 0 and len(t.stdout.split()) == count,
          f"tshark reads {os.path.basename(path)}: status {t.returncode}, {len(t.stdout.split())} of {count} frames")
    b = subprocess.run([BLEANALYZE, "show", "--format", "ndjson", path], capture_output=True, text=True)
    check(b.returncode == 0 and len(b.stdout.splitlines()) == count,
          f"bleanalyze reads {os.path.basename(path)}: status {b.returncode}, {len(b.stdout.splitlines())} of {count} records")


def read(path):
    return open(path, errors="replace").read() if os.path.exists(path) else ""


def status(path):
    text = read(path).strip()
    return int(text) if text.lstrip("-").isdigit() else None


def dropped_in_ndjson(path):
    total = 0
    for line in read(path).splitlines():
        for d in json.loads(line).get("diagnostics", []):
            if d["id"] == "capture.dropped":
                total += int(d["message"].split()[0])
    return total


def dropped_total(stderr):
    """The total live reports on stderr at the end (in the summary line too)."""
    m = re.search(r"the kernel dropped (\d+) record", read(stderr))
    return int(m.group(1)) if m else 0


def phase_run(o):
    err = read(f"{o}/nonroot.err")
    check(status(f"{o}/nonroot.rc") == 2 and "CAP_NET_RAW" in err and "setcap" in err,
          f"without CAP_NET_RAW: exit {status(f'{o}/nonroot.rc')}, says {err.strip()!r}")
    check(status(f"{o}/list-none.rc") == 0 and "no Bluetooth adapters" in read(f"{o}/list-none.txt"),
          "live --list with no adapter: " + read(f"{o}/list-none.txt").strip())
    listed = [int(m) for m in re.findall(r"^hci(\d+) ", read(f"{o}/list.txt"), re.M)]
    known = sorted(int(m) for m in re.findall(r"^hci(\d+):", read(f"{o}/hciconfig.txt"), re.M))
    check(status(f"{o}/list.rc") == 0 and len(listed) >= 2 and listed == known,
          f"live --list in index order: {listed}, hciconfig {known}")
    try:
        listed_json = [a["index"] for a in json.loads(read(f"{o}/list.json"))["adapters"]]
    except ValueError:
        listed_json = None
    check(listed_json == known, f"live --list --format json in index order: {listed_json}")
    for f in ("live.stderr", "live-text.stderr", "live-hci1.stderr"):
        line = read(f"{o}/{f}").splitlines()[:1]
        check(bool(line) and line[0].startswith("bleanalyze: capturing on"), f"{f}: {line}")
    for name, signal in (("live", "SIGINT"), ("live-text", "SIGTERM"), ("live-hci1", "SIGINT")):
        check(status(f"{o}/{name}.rc") == 0, f"{name} stopped by {signal}: exit {status(f'{o}/{name}.rc')}")
    ref = pcapng(f"{o}/dumpcap.pcapng")
    shared = shared_view(ref)
    print(f"  dumpcap: {len(ref)} records ({len(shared)} without system notes and capturers' socket records)")
    bt = btsnoop(f"{o}/btmon.btsnoop")
    btmon_same = sum(bl.size for bl in difflib.SequenceMatcher(
        a=[key(r) for r in shared], b=[key(r) for r in shared_view(bt)], autojunk=False).get_matching_blocks())
    print(f"  btmon (for comparison): {len(bt)} records, missing {len(shared) - btmon_same} against dumpcap")

    pcap_records = pcap(f"{o}/live.pcap")
    ndjson = [json.loads(l) for l in read(f"{o}/live.ndjson").splitlines()]
    outcomes = [x for x in ndjson if x.get("type") == "outcome"]
    records = [x for x in ndjson if x.get("type") != "outcome"]
    reported = dropped_total(f"{o}/live.stderr")
    check(dropped_in_ndjson(f"{o}/live.ndjson") <= reported, "capture.dropped diagnostics within the total")
    compare("live NDJSON -w live.pcap (SIGINT)", ref, pcap_records, reported)
    check(len(records) == len(pcap_records)
          and all(abs(x["ts"] * 1e6 - r["ts_us"]) <= 1 for x, r in zip(records, pcap_records)),
          f"NDJSON objects ({len(records)}) are the pcap's records ({len(pcap_records)}) with their timestamps")
    print(f"  NDJSON late outcomes (requests open at the end): {len(outcomes)}")
    opens(f"{o}/live.pcap", len(pcap_records))

    text_records = btsnoop(f"{o}/live.btsnoop")
    reported = dropped_total(f"{o}/live-text.stderr")
    check(sum(r["dropped"] for r in text_records) <= reported, "btsnoop cumulative drops within the total")
    compare("live text -w live.btsnoop (SIGTERM)", ref, text_records, reported)
    summary = re.findall(r"^# (\d+) records? in ", read(f"{o}/live.txt"), re.M)
    check(summary == [str(len(text_records))], f"text ends with the summary line: {summary} records")
    opens(f"{o}/live.btsnoop", len(text_records))

    hci1 = pcapng(f"{o}/live-hci1.pcapng")
    reported = dropped_total(f"{o}/live-hci1.stderr")
    compare("live hci1 -w live-hci1.pcapng (SIGINT)", ref, hci1, reported, adapter=1)
    check(all(r["index"] == 1 for r in hci1), "live hci1 holds adapter 1 only")
    opens(f"{o}/live-hci1.pcapng", len(hci1))

    timeline = subprocess.run([BLEANALYZE, "timeline", "--format", "json", f"{o}/live.btsnoop"],
                              capture_output=True, text=True)
    doc = json.loads(timeline.stdout) if timeline.returncode == 0 else {"connections": [], "adapter_events": []}
    removed = {}
    for event in doc.get("adapter_events", []):
        if event["change"] == "removed":
            removed.setdefault(event["adapter"], event["frame"])
    still = [c["id"] for c in doc["connections"] if c["disconnect"] is None and c["adapter"] in removed]
    gone = [c["id"] for c in doc["connections"] if (c["disconnect"] or {}).get("initiator") == "adapter_gone"]
    events = defaultdict(int)
    for event in doc.get("adapter_events", []):
        events[event["change"]] += 1
    print(f"  timeline: {len(doc['connections'])} connections, {len(gone)} ended by adapter_gone; adapter events {dict(events)}")
    check(timeline.returncode == 0 and not still and events["added"] > 0 and events["opened"] > 0,
          f"timeline: no connection on a removed adapter left 'still connected' ({still}); Index Added and Open Index listed")


def phase_drops(o):
    """The flood's records are checked against what was written (dumpcap itself may lose
    some of them on a busy host), the others against dumpcap."""
    ref = pcapng(f"{o}/dumpcap.pcapng")
    flooded = int(read(f"{o}/flooded").strip() or 0)
    flood = lambda r: r["opcode"] == USER_LOGGING and b"live-e2e\0" in r["data"]
    logged = sum(1 for r in ref if flood(r))
    print(f"  dumpcap has {logged} of the {flooded} logging records written")
    check(status(f"{o}/live.rc") == 0, f"live stopped by SIGINT: exit {status(f'{o}/live.rc')}")
    recs = pcapng(f"{o}/live.pcapng")
    in_stream = dropped_in_ndjson(f"{o}/live.ndjson")
    total = dropped_total(f"{o}/live.stderr")
    pcapng_drops = sum(r["dropped"] for r in recs)
    check(pcapng_drops == in_stream, f"epb_dropcount in live.pcapng ({pcapng_drops}) equals the NDJSON's capture.dropped ({in_stream})")
    received = len({r["data"] for r in recs if flood(r)})
    check(received == sum(1 for r in recs if flood(r)), "no logging record twice")
    flood_missing = flooded - received
    print(f"  drops: bleanalyze has {received} of the {flooded} logging records written: missing {flood_missing}")
    others_missing, _ = compare(
        "drops: the other records against dumpcap", [r for r in ref if not flood(r)], [r for r in recs if not flood(r)],
        total - flood_missing)
    check(flood_missing + others_missing == total,
          f"missing ({flood_missing} logging + {others_missing} others) equals reported dropped ({total})")
    check(flood_missing + others_missing > 0, f"the test made the kernel drop records ({flood_missing + others_missing})")
    print(f"  reported: {total} in all (stderr), {in_stream} of them in capture.dropped diagnostics on "
          f"{sum(1 for r in recs if r['dropped'])} records, {total - in_stream} after the last record")
    gaps(ref, recs)


def gaps(ref, recs):
    """Where each run of missing records is, against where capture.dropped was put."""
    a, b = shared_view(ref), shared_view(recs)
    sm = difflib.SequenceMatcher(a=[key(r) for r in a], b=[key(r) for r in b], autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "delete":
            marked = sorted((abs(j - j1), j - j1, b[j]["dropped"]) for j in range(len(b)) if b[j]["dropped"])
            where = (f"nearest capture.dropped ({marked[0][2]}) {marked[0][1]:+d} records from the record after it"
                     if marked else "no capture.dropped")
            print(f"  gap of {i2 - i1} records before bleanalyze's record {j1 + 1} "
                  f"(opcode {b[j1]['opcode'] if j1 < len(b) else '-'}): {where}")


def phase_rate(o):
    rows = defaultdict(dict)
    for name in sorted(os.listdir(o)):
        m = re.match(r"(bleanalyze|btmon|dumpcap)-(\d+)\.flood$", name)
        if not m:
            continue
        tool, rate = m.group(1), int(m.group(2))
        count, seconds = read(f"{o}/{name}").split()
        path = f"{o}/{tool}-{rate}." + ("pcapng" if tool == "dumpcap" else "btsnoop")
        recs = (pcapng if tool == "dumpcap" else btsnoop)(path) if os.path.exists(path) else []
        got = sum(1 for r in recs if r["opcode"] == USER_LOGGING and b"live-e2e\0" in r["data"])
        rows[rate][tool] = (got, int(count), int(count) / float(seconds))
        if tool == "bleanalyze":
            reported = dropped_total(f"{o}/{tool}-{rate}.stderr")
            print(f"  {rate}/s: bleanalyze lacks {int(count) - got} logging records, reported {reported} dropped")
    print("  records received of written, at the rate the flood reached (records/s)")
    print("  rate asked   bleanalyze               btmon                    dumpcap")
    best = {}
    for rate in sorted(rows):
        cells = []
        for tool in ("bleanalyze", "btmon", "dumpcap"):
            got, count, achieved = rows[rate].get(tool, (0, 0, 0))
            cells.append(f"{got}/{count} at {achieved:.0f}".ljust(24))
            if count and got == count:
                best[tool] = max(best.get(tool, 0), achieved)
        print(f"  {rate:>10}   " + " ".join(cells))
    print("  highest rate taken without a loss (records/s): "
          + ", ".join(f"{tool} {best.get(tool, 0):.0f}" for tool in ("bleanalyze", "btmon", "dumpcap")))


out = sys.argv[1]
for phase in sys.argv[2:]:
    print(f"== {phase}")
    globals()["phase_" + phase](os.path.join(out, phase))
print(f"{len(failures)} failed" if failures else "live-e2e: every check passed")
sys.exit(1 if failures else 0)
