import Foundation
import Testing

/// The questions a dashboard asks, answered by DuckDB (PyPI `duckdb`, installed by
/// `.ci/deps --oracles`) from bleanalyze's NDJSON and JSON, each checked against an answer
/// worked out from tshark's fields alone, never from bleanalyze:
///
/// - p95 write latency (Write Request → its Write Response or Error Response) per
///   characteristic (the handle written) per peer, DuckDB's `quantile_disc` (nearest rank);
/// - connections per peer and how each ended (the HCI reason of its Disconnection Complete,
///   null while up);
/// - notifications per characteristic per peer per second;
/// - failed connection attempts (cancelled, failed, timed out) per peer;
/// - time from the first scan start to the first notification;
/// - the top five advertisers by advertising reports.
///
/// A peer is the address of the Connection Complete that opened the handle, none for a
/// connection that was up before the capture began (or an attempt through the Filter Accept
/// List), on both sides.
@Suite(
  "Dashboard questions in DuckDB",
  .enabled(if: duckdbAvailable, "python3 -c 'import duckdb' failed (pip install duckdb); skipping"),
  .enabled(if: tsharkAvailable, "tshark not found; skipping"),
  .enabled(if: sharedAvailable, "../shared/captures not found; skipping"))
struct DashboardQuestionTests {
  /// `python3 -c script BLEANALYZE CAPTURE DIR`: prints, per question, `ok`, DuckDB's answer
  /// and the oracle's.
  static let script = #"""
    import collections, json, math, os, subprocess, sys
    import duckdb

    binary, capture, folder = sys.argv[1:4]

    def run(arguments, name):
        path = os.path.join(folder, name)
        with open(path, "wb") as file:
            subprocess.run([binary] + arguments + [capture], stdout=file, check=True)
        return path

    show = run(["show", "--format", "ndjson"], "show.ndjson")
    timeline = run(["timeline", "--format", "json"], "timeline.json")
    devices = run(["devices", "--format", "ndjson"], "devices.ndjson")
    app = run(["app", "--format", "ndjson"], "app.ndjson")
    db = duckdb.connect()

    def rows(sql):
        return db.execute(sql).fetchall()

    # The independent side: tshark's fields, one list per frame.
    def tshark(fields, display):
        out = subprocess.run(["tshark", "-2", "-n", "-r", capture, "-Y", display, "-T", "fields", "-E", "occurrence=a",
                              "-E", "aggregator=,"] + sum((["-e", f] for f in fields), []),
                             capture_output=True, text=True, check=True).stdout
        return [line.split("\t") for line in out.splitlines()]

    def number(text):
        text = text.split(",")[0]
        return int(text, 0) if text else None

    # Peers by connection handle, in frame order: Connection Complete (BR/EDR 0x03, LE 0x01, 0x0a,
    # 0x29) with status 0 starts one, Disconnection Complete (0x05) ends it.
    handle_events = tshark(["frame.number", "frame.time_epoch", "bthci_evt.code", "bthci_evt.le_meta_subevent",
                            "bthci_evt.status", "bthci_evt.connection_handle", "bthci_evt.bd_addr", "bthci_evt.reason",
                            "bthci_evt.role"],
                           "bthci_evt.code == 0x03 || bthci_evt.code == 0x05 || (bthci_evt.code == 0x3e && "
                           "(bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a || "
                           "bthci_evt.le_meta_subevent == 0x29))")
    peer_changes = collections.defaultdict(list)  # handle -> [(frame, peer or None)]
    connections = []  # [peer, reason or None]
    open_connections = {}
    for frame, time, code, subevent, status, handle, address, reason, role in handle_events:
        frame, code, status, handle = int(frame), number(code), number(status), number(handle)
        if code in (0x03, 0x3e) and status == 0 and handle is not None:
            peer = address.split(",")[0].upper() or None
            peer_changes[handle].append((frame, peer))
            open_connections[handle] = len(connections)
            connections.append([peer, None])
        elif code == 0x05 and status == 0 and handle is not None:
            if handle not in open_connections:
                # Up before the capture began: the capture never names its peer.
                open_connections[handle] = len(connections)
                connections.append([None, None])
            connections[open_connections.pop(handle)][1] = number(reason)
            peer_changes[handle].append((frame, None))

    def peer_of(handle, frame):
        peer = None
        for changed, who in peer_changes.get(handle, []):
            if changed >= frame: break
            peer = who
        return peer

    def close(a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            return a.keys() == b.keys() and all(close(a[k], b[k]) for k in a)
        if isinstance(a, float) or isinstance(b, float):
            return a is not None and b is not None and abs(a - b) < 0.002
        return a == b

    def p95(values):
        # The nearest rank, as DuckDB's quantile_disc: the ceil(0.95 n)-th smallest value.
        values = sorted(values)
        return values[math.ceil(len(values) * 0.95) - 1]

    answers = {}

    # 1. p95 write latency (Write Request → Write Response or Error Response) per characteristic
    # (the handle written) per peer, in ms.
    ours = {f"{peer}/{handle}": value for peer, handle, value in rows(f"""
        select conn.peer.address, att.handle, quantile_disc(att.latency_ms, 0.95)
        from read_ndjson('{show}', ignore_errors = true, sample_size = -1)
        where att.opcode = 18 and att.latency_ms is not null group by all""")}
    # ATT has one request outstanding per bearer and direction: a Write Response or an Error
    # Response for a Write Request answers the last Write Request sent the other way.
    latencies = collections.defaultdict(list)
    waiting = {}
    for frame, time, direction, handle, opcode, attribute, request in tshark(
            ["frame.number", "frame.time_epoch", "hci_h4.direction", "bthci_acl.chandle", "btatt.opcode", "btatt.handle",
             "btatt.req_opcode_in_error"],
            "btatt.opcode == 0x12 || btatt.opcode == 0x13 || (btatt.opcode == 0x01 && btatt.req_opcode_in_error == 0x12)"):
        handle, opcode, direction = number(handle), number(opcode), number(direction)
        if opcode == 0x12:
            waiting[(handle, direction)] = (int(frame), float(time), number(attribute))
        elif (handle, 1 - direction) in waiting:
            sent_frame, sent, written = waiting.pop((handle, 1 - direction))
            latencies[f"{peer_of(handle, sent_frame)}/{written}"].append(round((float(time) - sent) * 1000, 3))
    answers["p95 write latency per characteristic per peer"] = (ours, {k: p95(v) for k, v in latencies.items()})

    # 2. Connections per peer and how each ended (the HCI reason, null while up).
    ours = collections.defaultdict(list)
    for peer, reason in rows(f"""
        select c.peer.address, c.disconnect.reason
        from (select unnest(connections) as c from read_json('{timeline}', maximum_object_size = 1000000000))"""):
        ours[str(peer)].append(reason)
    theirs = collections.defaultdict(list)
    for peer, reason in connections:
        theirs[str(peer)].append(reason)
    answers["connections per peer and how each ended"] = (
        {k: sorted(v, key=str) for k, v in ours.items()}, {k: sorted(v, key=str) for k, v in theirs.items()})

    # 3. Notifications per characteristic (handle) per peer per second.
    ours = {f"{peer}/{handle}/{second}": count for peer, handle, second, count in rows(f"""
        select conn.peer.address, att.handle, floor(ts)::bigint, count(*)
        from read_ndjson('{show}', ignore_errors = true, sample_size = -1) where att.opcode = 27 group by all""")}
    theirs = collections.Counter()
    for frame, time, handle, attribute in tshark(["frame.number", "frame.time_epoch", "bthci_acl.chandle", "btatt.handle"],
                                                 "btatt.opcode == 0x1b"):
        theirs[f"{peer_of(number(handle), int(frame))}/{number(attribute)}/{int(float(time))}"] += 1
    answers["notifications per characteristic per second"] = (ours, dict(theirs))

    # 4. Failed connection attempts (cancelled, failed, timed out) per peer.
    ours = {str(peer): count for peer, count in rows(f"""
        select a.peer.address, count(*) from (select unnest(connection_attempts) as a
          from read_json('{timeline}', maximum_object_size = 1000000000))
        where a.outcome in ('cancelled', 'failed', 'timed_out') group by all""")}
    theirs = collections.Counter()
    pending = None
    for frame, code, opcode, address, filter_policy, status, subevent, role, status_opcode in tshark(
            ["frame.number", "bthci_evt.code", "bthci_cmd.opcode", "bthci_cmd.bd_addr", "bthci_cmd.le_initiator_filter_policy",
             "bthci_evt.status", "bthci_evt.le_meta_subevent", "bthci_evt.role", "bthci_evt.opcode"],
            "bthci_cmd.opcode == 0x200d || bthci_cmd.opcode == 0x2043 || (bthci_evt.code == 0x0f && (bthci_evt.opcode == 0x200d || bthci_evt.opcode == 0x2043)) || "
            "(bthci_evt.code == 0x3e && (bthci_evt.le_meta_subevent == 0x01 || bthci_evt.le_meta_subevent == 0x0a || bthci_evt.le_meta_subevent == 0x29))"):
        if opcode:
            pending = (address.split(",")[0].upper() or None) if number(filter_policy) in (None, 0) else None
            pending = [pending]
        elif pending is not None and number(code) == 0x0f:
            if number(status) != 0:
                theirs[str(pending[0])] += 1
                pending = None
        elif pending is not None and number(role) in (None, 0):
            if number(status) != 0: theirs[str(pending[0])] += 1
            pending = None
    answers["failed connection attempts per peer"] = (ours, dict(theirs))

    # 5. Seconds from the first scan start to the first notification.
    ours = rows(f"""
        select (select min(ts) from read_ndjson('{show}', ignore_errors = true, sample_size = -1) where att.opcode = 27)
          - (select min(start_ts) from read_ndjson('{app}', ignore_errors = true, sample_size = -1) where call = 'scan')""")[0][0]
    scans = tshark(["frame.time_epoch"], "(bthci_cmd.opcode == 0x200c || bthci_cmd.opcode == 0x2042) && bthci_cmd.le_scan_enable == 1")
    notifications = tshark(["frame.time_epoch"], "btatt.opcode == 0x1b")
    theirs = (float(notifications[0][0]) - float(scans[0][0])) if scans and notifications else None
    answers["time from scan start to first notification"] = (
        None if ours is None else round(float(ours), 6), None if theirs is None else round(theirs, 6))

    # 6. The top 5 advertisers by advertising reports (with their counts).
    ours = {address: count for address, count in rows(f"""
        select address, list_sum(map_values(report_counts)) as total
        from read_json('{devices}', format = 'newline_delimited',
          columns = {{address: 'VARCHAR', report_counts: 'MAP(VARCHAR, BIGINT)'}})
        order by total desc, address limit 5""")}
    theirs = collections.Counter()
    for (addresses,) in tshark(["bthci_evt.bd_addr"], "bthci_evt.code == 0x3e && (bthci_evt.le_meta_subevent == 0x02 || bthci_evt.le_meta_subevent == 0x0d)"):
        for address in addresses.split(","):
            if address: theirs[address.upper()] += 1
    theirs = dict(sorted(theirs.items(), key=lambda item: (-item[1], item[0]))[:5])
    answers["top advertisers by reports"] = (ours, theirs)

    print(json.dumps({question: {"ok": close(a, b), "duckdb": a, "oracle": b} for question, (a, b) in answers.items()}))
    """#

  @Test(
    "six dashboard questions, DuckDB on bleanalyze's output against tshark",
    arguments: [
      "synthetic/ios-central.btsnoop", "synthetic/android-central.btsnoop", "real/AndroidPad__btsnoop_hci.btsnoop",
      "real/bluethooth_light_controll__btsnoop_hci.btsnoop", "real/fossibot-bluetooth__btsnoop_hci.btsnoop",
    ])
  func questions(_ name: String) throws {
    let folder = Paths.scratchFile("duckdb")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let capture = Paths.captures.appending(path: name).path
    let output = execute(pythonOnPath, ["python3", "-c", Self.script, Paths.binary.path, capture, folder.path])
    #expect(output.status == 0, "\(name): \(output.stderr)")
    let answers = try #require(
      try JSONSerialization.jsonObject(with: output.stdout) as? [String: [String: Any]], "\(output.stderr)")
    #expect(answers.count == 6)
    for (question, answer) in answers.sorted(by: { $0.key < $1.key }) {
      #expect(
        answer["ok"] as? Bool == true,
        "\(name): \(question): DuckDB says \(answer["duckdb"] ?? "nil"), tshark \(answer["oracle"] ?? "nil")")
    }
  }
}

/// `/usr/bin/env`, to run the `python3` on PATH (where pip put duckdb).
let pythonOnPath = URL(fileURLWithPath: "/usr/bin/env")
/// The `python3` on PATH can `import duckdb`.
let duckdbAvailable = execute(pythonOnPath, ["python3", "-c", "import duckdb"]).status == 0
