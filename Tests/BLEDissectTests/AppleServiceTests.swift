import Testing

@testable import BLEDissect

/// Apple ANCS and AMS (Apple's ANCS and AMS specifications): each table row with a
/// fixture, Data Source framing, and values that do not fit.
@Suite struct AppleServiceTests {
  static let events = ["NotificationAdded", "NotificationModified", "NotificationRemoved"]
  static let categories = [
    "Other", "IncomingCall", "MissedCall", "Voicemail", "Social", "Schedule", "Email", "News", "HealthAndFitness",
    "BusinessAndFinance", "Location", "Entertainment",
  ]

  /// Notification Source: EventID n, EventFlags Important (0x02), CategoryID n, CategoryCount 3, UID 0x2a.
  @Test(arguments: 0..<12)
  func notificationSourceRow(_ n: Int) throws {
    let event = UInt8(n % 3)
    let notification = try ANCSMessage.notification([event, 0x02, UInt8(n), 0x03, 0x2A, 0x00, 0x00, 0x00])
    #expect(notification.eventName == Self.events[Int(event)])
    #expect(notification.categoryName == Self.categories[n])
    #expect(notification.flagNames == ["Important"])
    #expect(notification.categoryCount == 3 && notification.uid == 42)
  }

  @Test func eventFlags() throws {
    // EventFlags 0x1F: every flag; CategoryID 0x0C is reserved.
    let notification = try ANCSMessage.notification(vendorBytes("00 1f 0c 01 01000000"))
    #expect(notification.flagNames == ["Silent", "Important", "PreExisting", "PositiveAction", "NegativeAction"])
    #expect(notification.categoryName == "Reserved (12)")
  }

  /// Control Point commands:
  ///   Get Notification Attributes, UID 42: AppIdentifier, Title (max 32), Message (max 256), Date
  ///   Get App Attributes "com.apple.MobileSMS": DisplayName
  ///   Perform Notification Action, UID 42: Negative
  static let commands: [(hex: String, name: String, attributes: [String])] = [
    ("00 2a000000 00 01 2000 03 0001 05", "GetNotificationAttributes", ["AppIdentifier", "Title", "Message", "Date"]),
    ("01 636f6d2e6170706c652e4d6f62696c65534d5300 00", "GetAppAttributes", ["DisplayName"]),
    ("02 2a000000 01", "PerformNotificationAction", []),
  ]

  @Test(arguments: commands)
  func commandRow(_ row: (hex: String, name: String, attributes: [String])) throws {
    let command = try ANCSCommand(parsing: vendorBytes(row.hex))
    #expect(command.commandName == row.name)
    #expect(command.attributeNames == row.attributes)
    switch command.command {
    case 0: #expect(command.uid == 42 && command.attributes.map(\.maximumLength) == [nil, 32, 256, nil])
    case 1: #expect(command.appIdentifier == "com.apple.MobileSMS")
    default: #expect(command.actionName == "Negative")
    }
  }

  static let notificationAttributes = [
    "AppIdentifier", "Title", "Subtitle", "Message", "MessageSize", "Date", "PositiveActionLabel",
    "NegativeActionLabel",
  ]

  @Test(arguments: 0..<8)
  func notificationAttributeRow(_ id: Int) {
    #expect(ANCSResponse.attributeName(UInt8(id), app: false) == Self.notificationAttributes[id])
  }

  /// Data Source: the answer to Get Notification Attributes, UID 42: Title "Hi", Message "Call me".
  static let response = vendorBytes("00 2a000000 01 0200 4869 03 0700 43616c6c206d65")

  @Test func dataSourceWhole() throws {
    let response = try #require(try ANCSResponse.parse(Self.response, expected: 2))
    #expect(response.uid == 42)
    #expect(response.attributes.map(\.value) == ["Hi", "Call me"])
  }

  /// The same response in any split: nil until the last part, then the same response.
  @Test(arguments: 1..<16)
  func dataSourceInParts(_ cut: Int) throws {
    #expect(try ANCSResponse.parse(Array(Self.response.prefix(cut)), expected: 2) == nil)
    #expect(try ANCSResponse.parse(Self.response, expected: 2)?.attributes.count == 2)
  }

  @Test func dataSourceHostile() {
    // CommandID 2 has no Data Source response.
    #expect(throws: DecodeError.self) { try ANCSResponse.parse(vendorBytes("02 2a000000"), expected: nil) }
    // An attribute value that is not UTF-8.
    #expect(throws: DecodeError.self) { try ANCSResponse.parse(vendorBytes("00 2a000000 01 0100 ff"), expected: 1) }
    // Bytes after the attributes asked for.
    #expect(throws: DecodeError.self) { try ANCSResponse.parse(vendorBytes("00 2a000000 01 0000 ee"), expected: 1) }
    // A notification of 7 bytes; a command cut inside its UID.
    #expect(throws: DecodeError.self) { try ANCSMessage.notification(vendorBytes("00 00 00 00 2a0000")) }
    #expect(throws: DecodeError.self) { try ANCSCommand(parsing: vendorBytes("00 2a00")) }
    // An unknown CommandID.
    #expect(throws: DecodeError.self) { try ANCSCommand(parsing: vendorBytes("07")) }
  }

  @Test func errorNames() {
    #expect(ANCSMessage.errorName(0xA0) == "Unknown command")
    #expect(ANCSMessage.errorName(0xA3) == "Action failed")
    #expect(AMSMessage.errorName(0xA2) == "Absent Attribute")
    #expect(AMSMessage.errorName(0x01) == nil)
  }

  static let remoteCommands = [
    "Play", "Pause", "TogglePlayPause", "NextTrack", "PreviousTrack", "VolumeUp", "VolumeDown", "AdvanceRepeatMode",
    "AdvanceShuffleMode", "SkipForward", "SkipBackward", "LikeTrack", "DislikeTrack", "BookmarkTrack",
  ]

  /// Remote Command written: one RemoteCommandID.
  @Test(arguments: 0..<14)
  func remoteCommandRow(_ id: Int) throws {
    let message = try AMSMessage.remoteCommand([UInt8(id)], fromClient: true)
    #expect(message == .remoteCommand(UInt8(id)))
    #expect(AMSMessage.commandName(UInt8(id)) == Self.remoteCommands[id])
  }

  static let entityAttributes: [(entity: UInt8, attribute: UInt8, name: String)] = [
    (0, 0, "Name"), (0, 1, "PlaybackInfo"), (0, 2, "Volume"), (1, 0, "Index"), (1, 1, "Count"), (1, 2, "ShuffleMode"),
    (1, 3, "RepeatMode"), (2, 0, "Artist"), (2, 1, "Album"), (2, 2, "Title"), (2, 3, "Duration"),
  ]

  /// Entity Update notified: EntityID, AttributeID, EntityUpdateFlags Truncated, "Abc".
  @Test(arguments: entityAttributes)
  func entityUpdateRow(_ row: (entity: UInt8, attribute: UInt8, name: String)) throws {
    let message = try AMSMessage.entityUpdate([row.entity, row.attribute, 0x01, 0x41, 0x62, 0x63], fromClient: false)
    #expect(message == .update(entity: row.entity, attribute: row.attribute, flags: 1, value: "Abc"))
    #expect(AMSMessage.attributeName(row.attribute, entity: row.entity) == row.name)
    #expect(AMSMessage.entityName(row.entity) == ["Player", "Queue", "Track"][Int(row.entity)])
  }

  @Test func otherAMSValues() throws {
    // Remote Command notified: the supported commands.
    #expect(try AMSMessage.remoteCommand([0, 1, 2], fromClient: false) == .supportedCommands([0, 1, 2]))
    // Entity Update written: Track, Artist + Title.
    #expect(try AMSMessage.entityUpdate([2, 0, 2], fromClient: true) == .subscribe(entity: 2, attributes: [0, 2]))
    // Entity Attribute written, then read.
    #expect(try AMSMessage.entityAttribute([2, 2], fromClient: true) == .select(entity: 2, attribute: 2))
    #expect(try AMSMessage.entityAttribute(Array("Song".utf8), fromClient: false) == .value("Song"))
    // Too short, too long, not UTF-8.
    #expect(throws: DecodeError.self) { try AMSMessage.remoteCommand([], fromClient: true) }
    #expect(throws: DecodeError.self) { try AMSMessage.remoteCommand([1, 2], fromClient: true) }
    #expect(throws: DecodeError.self) { try AMSMessage.entityUpdate([2, 0], fromClient: false) }
    #expect(throws: DecodeError.self) { try AMSMessage.entityAttribute([2], fromClient: true) }
    #expect(throws: DecodeError.self) { try AMSMessage.entityUpdate([2, 0, 0, 0xFF], fromClient: false) }
    #expect(AMSMessage.attributeName(0, entity: 3) == "Reserved (0)")
  }
}
