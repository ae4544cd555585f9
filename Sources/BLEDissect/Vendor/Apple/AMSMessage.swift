/// Apple Media Service: an accessory controls the iOS device's media player and
/// follows what it plays.
///
/// Apple, "Apple Media Service (AMS) Specification" (service
/// 89D3502B-0F36-433A-8EF4-C502AD55F8DC; Remote Command 9B3C81D8-57B1-4A8A-B8DF-0E56F7CA51C2
/// written and notified, Entity Update 2F7CABCE-808D-411F-9A0C-BB92BA96C102 written with
/// response and notified, Entity Attribute C6B2F38C-23AB-46D8-A6AB-A3A870BBD5D7 written
/// and read). Names are the spec's enumerators without their prefix.
///
/// An Entity Update notification:
///
///     0          1             2                   3
///     +----------+-------------+-------------------+----------------------+
///     | EntityID | AttributeID | EntityUpdateFlags | Value (UTF-8, rest)  |
///     +----------+-------------+-------------------+----------------------+
public enum AMSMessage: Hashable, Sendable {
  /// Remote Command written: the command to perform.
  case remoteCommand(UInt8)
  /// Remote Command notified: the commands the media player supports now.
  case supportedCommands([UInt8])
  /// Entity Update written: the attributes of an entity to be notified about.
  case subscribe(entity: UInt8, attributes: [UInt8])
  /// Entity Update notified: one attribute's new value.
  case update(entity: UInt8, attribute: UInt8, flags: UInt8, value: String)
  /// Entity Attribute written: the attribute a read will return in full.
  case select(entity: UInt8, attribute: UInt8)
  /// Entity Attribute read: the attribute's full value.
  case value(String)

  /// RemoteCommandID names, from 0.
  static let commands: [StaticString] = [
    "Play", "Pause", "TogglePlayPause", "NextTrack", "PreviousTrack", "VolumeUp", "VolumeDown", "AdvanceRepeatMode",
    "AdvanceShuffleMode", "SkipForward", "SkipBackward", "LikeTrack", "DislikeTrack", "BookmarkTrack",
  ]
  /// EntityID names, from 0.
  static let entities: [StaticString] = ["Player", "Queue", "Track"]
  /// AttributeID names per entity, from 0.
  static let attributes: [[StaticString]] = [
    ["Name", "PlaybackInfo", "Volume"], ["Index", "Count", "ShuffleMode", "RepeatMode"],
    ["Artist", "Album", "Title", "Duration"],
  ]
  /// ATT error codes AMS answers with.
  static let errors: [(code: UInt8, name: StaticString)] = [
    (0xA0, "Invalid State"), (0xA1, "Invalid Command"), (0xA2, "Absent Attribute"),
  ]

  public static func commandName(_ id: UInt8) -> String { ANCSMessage.name(commands, id) }
  public static func entityName(_ id: UInt8) -> String { ANCSMessage.name(entities, id) }
  public static func attributeName(_ id: UInt8, entity: UInt8) -> String {
    Int(entity) < attributes.count ? ANCSMessage.name(attributes[Int(entity)], id) : "Reserved (\(id))"
  }
  /// The name of an ATT Error Code AMS returned, when it is one of its own.
  public static func errorName(_ code: UInt8) -> String? {
    errors.first { $0.code == code }?.name.description
  }

  /// Reads a value of the Remote Command characteristic.
  public static func remoteCommand(_ bytes: [UInt8], fromClient: Bool) throws(DecodeError) -> AMSMessage {
    guard fromClient else { return .supportedCommands(bytes) }
    guard bytes.count == 1 else {
      throw bytes.isEmpty
        ? DecodeError(.truncated(needed: 1, available: 0), at: 0, layer: .ams)
        : DecodeError(.invalid("\(bytes.count - 1) bytes after the RemoteCommandID"), at: 1, layer: .ams)
    }
    return .remoteCommand(bytes[0])
  }

  /// Reads a value of the Entity Update characteristic.
  public static func entityUpdate(_ bytes: [UInt8], fromClient: Bool) throws(DecodeError) -> AMSMessage {
    let needed = fromClient ? 1 : 3
    guard bytes.count >= needed else {
      throw DecodeError(.truncated(needed: needed - bytes.count, available: 0), at: bytes.count, layer: .ams)
    }
    guard !fromClient else { return .subscribe(entity: bytes[0], attributes: Array(bytes.dropFirst())) }
    return .update(entity: bytes[0], attribute: bytes[1], flags: bytes[2], value: try text(bytes.dropFirst(3), at: 3))
  }

  /// Reads a value of the Entity Attribute characteristic.
  public static func entityAttribute(_ bytes: [UInt8], fromClient: Bool) throws(DecodeError) -> AMSMessage {
    guard fromClient else { return .value(try text(bytes[...], at: 0)) }
    guard bytes.count == 2 else {
      throw bytes.count < 2
        ? DecodeError(.truncated(needed: 2 - bytes.count, available: 0), at: bytes.count, layer: .ams)
        : DecodeError(.invalid("\(bytes.count - 2) bytes after the AttributeID"), at: 2, layer: .ams)
    }
    return .select(entity: bytes[0], attribute: bytes[1])
  }

  private static func text(_ bytes: ArraySlice<UInt8>, at offset: Int) throws(DecodeError) -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw DecodeError(.invalid("a value that is not UTF-8"), at: offset, layer: .ams)
    }
    return text
  }
}
