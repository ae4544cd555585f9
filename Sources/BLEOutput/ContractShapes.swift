import BLEAnalysis
import BLECapture
import BLEDissect

/// The shapes every JSON document shares (data contract v2): a `peer` is
/// `{"address":…,"type":…,"name":…}` and a `conn` `{"id":…,"handle":…,"peer":{…}}`,
/// wherever they appear.
extension OutputBuffer {
  /// `peer`: the address, its Peer_Address_Type name (`public`, `random`,
  /// `public_identity`, `random_identity`) and the peer's name as the capture told it
  /// (`null` when it did not); `null` without an address.
  mutating func appendPeerJSON(_ address: DeviceAddress?, type: UInt8?, name: String?) {
    guard let address else { return append("null") }
    append("{\"address\":\"")
    appendAddress(address)
    append("\",\"type\":")
    if let type { appendJSONString(AdvertisingAddressType(rawValue: type).name) } else { append("null") }
    append(",\"name\":")
    if let name { appendJSONString(name) } else { append("null") }
    append("}")
  }

  /// `conn`: the connection's number, its handle and its `peer`.
  mutating func appendConnJSON(_ ref: ConnectionRef, peerName: String?) {
    append("{\"id\":")
    appendDecimal(ref.id)
    append(",\"handle\":")
    appendDecimal(Int(ref.handle))
    append(",\"peer\":")
    appendPeerJSON(ref.peer, type: ref.peerType, name: peerName)
    append("}")
  }
}

/// One capture a document was made from (`captures` of every JSON document): the file,
/// what it is, how many records and when, whether it was damaged, and the files its
/// records came from (`sources`).
public struct CaptureInfo: Sendable {
  public var file: String
  public var format: String
  public var records: Int
  public var first: Timestamp?
  public var last: Timestamp?
  public var damage: CaptureDamage?
  public var sources: [Source]

  /// One file the records came from.
  public struct Source: Sendable {
    public var path: String
    public var format: String
    public var records: Int
    public var first: Timestamp?
    public var last: Timestamp?
    /// A btsnooz summary, whose payloads are cut.
    public var summary: Bool
    /// Of `records`, those delivered (a record another file already gave is given once).
    public var delivered: Int

    public init(
      path: String, format: String, records: Int, delivered: Int? = nil, first: Timestamp?, last: Timestamp?,
      summary: Bool = false
    ) {
      self.path = path
      self.format = format
      self.records = records
      self.delivered = delivered ?? records
      self.first = first
      self.last = last
      self.summary = summary
    }
  }

  /// The capture at `file`, read to its end through `source`, with `summary` its counts.
  public init(file: String, source: any RecordSource, summary: CaptureSummary) {
    self.file = file
    format = source.formatDescription
    records = summary.records
    first = summary.first
    last = summary.last
    damage = source.damage
    // A plain capture is its own one source; an archive lists the HCI logs it merged.
    sources =
      source.sources.isEmpty
      ? [Source(path: file, format: format, records: records, first: first, last: last)]
      : source.sources.map {
        Source(
          path: $0.path, format: $0.format, records: $0.records, delivered: $0.delivered, first: $0.first,
          last: $0.last, summary: $0.isSummary)
      }
  }

  /// `{"file","format","record_count","first_ts","last_ts","damage","sources"}`.
  func appendJSON(into out: inout OutputBuffer) {
    var k = JSONKeys()
    out.append("{")
    appendFields(&k, into: &out)
    out.append("}")
  }

  /// The fields, for an object that holds more (show's `captures` items).
  func appendFields(
    _ k: inout JSONKeys, records key: StaticString = "record_count", skipFileAndFormat: Bool = false,
    into out: inout OutputBuffer
  ) {
    if !skipFileAndFormat {
      k.string("file", file, into: &out)
      k.string("format", format, into: &out)
    }
    k.integer(key, records, into: &out)
    appendSpan(first, last, &k, into: &out)
    k.key("damage", into: &out)
    JSONShowRenderer.appendDamage(damage, into: &out)
    appendSources(&k, into: &out)
  }

  func appendSources(_ k: inout JSONKeys, into out: inout OutputBuffer) {
    k.key("sources", into: &out)
    out.append("[")
    for (index, source) in sources.enumerated() {
      if index > 0 { out.append(",") }
      var s = JSONKeys()
      out.append("{")
      s.string("path", source.path, into: &out)
      s.string("format", source.format, into: &out)
      s.integer("record_count", source.records, into: &out)
      if source.delivered != source.records { s.integer("delivered_count", source.delivered, into: &out) }
      appendSpan(source.first, source.last, &s, into: &out)
      if source.summary { s.bool("summary", true, into: &out) }
      out.append("}")
    }
    out.append("]")
  }

  private func appendSpan(_ first: Timestamp?, _ last: Timestamp?, _ k: inout JSONKeys, into out: inout OutputBuffer) {
    for (key, time) in [("first_ts", first), ("last_ts", last)] as [(StaticString, Timestamp?)] {
      k.key(key, into: &out)
      if let time { JSONRecord.appendSeconds(time.unixMicroseconds, into: &out) } else { out.append("null") }
    }
  }
}

extension OutputBuffer {
  /// `,"captures":[…]` of a document that lists other items first.
  mutating func appendCapturesJSON(_ captures: [CaptureInfo]) {
    append(",\"captures\":[")
    for (index, capture) in captures.enumerated() {
      if index > 0 { append(",") }
      capture.appendJSON(into: &self)
    }
    append("]")
  }
}
