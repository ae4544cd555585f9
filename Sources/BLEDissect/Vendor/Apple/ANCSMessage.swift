/// Apple Notification Center Service: an iOS device (the GATT server) tells an
/// accessory about its notifications.
///
/// Apple, "Apple Notification Center Service (ANCS) Specification" (service
/// 7905F431-B5CE-4E99-A40F-4B1E122D00D0; Notification Source 9FBF120D-6301-42D9-8C58-25E699A21DBD
/// notified, Control Point 69D1D8F3-45E1-49A8-9821-9BBDFDAAD9D9 written with response,
/// Data Source 22EAC6E9-24D6-4BB5-BE44-B36ACE7C7BFB notified). Names are the spec's
/// enumerators without their prefix (`EventIDNotificationAdded` is `NotificationAdded`).
///
/// Notification Source:
///
///     0         1            2            3              4
///     +---------+------------+------------+--------------+--------------------+
///     | EventID | EventFlags | CategoryID | CategoryCount | NotificationUID (LE) |
///     +---------+------------+------------+--------------+--------------------+
public enum ANCSMessage: Hashable, Sendable {
  case notification(ANCSNotification)
  /// A Control Point command the accessory wrote.
  case command(ANCSCommand)
  /// A whole Data Source response (reassembled from its notifications).
  case response(ANCSResponse)

  /// Reads a Notification Source value.
  public static func notification(_ bytes: [UInt8]) throws(DecodeError) -> ANCSNotification {
    var c = ByteCursor(bytes.span.bytes, layer: .ancs)
    let notification = ANCSNotification(
      event: try c.readUInt8(), flags: try c.readUInt8(), category: try c.readUInt8(),
      categoryCount: try c.readUInt8(), uid: try c.readUInt32())
    guard c.isAtEnd else {
      throw DecodeError(.invalid("\(c.remaining) bytes after the notification"), at: c.offset, layer: .ancs)
    }
    return notification
  }

  /// EventID names, from 0.
  static let events: [StaticString] = ["NotificationAdded", "NotificationModified", "NotificationRemoved"]
  /// EventFlags bit names, from bit 0.
  static let flags: [StaticString] = ["Silent", "Important", "PreExisting", "PositiveAction", "NegativeAction"]
  /// CategoryID names, from 0.
  static let categories: [StaticString] = [
    "Other", "IncomingCall", "MissedCall", "Voicemail", "Social", "Schedule", "Email", "News", "HealthAndFitness",
    "BusinessAndFinance", "Location", "Entertainment",
  ]
  /// CommandID names, from 0.
  static let commands: [StaticString] = ["GetNotificationAttributes", "GetAppAttributes", "PerformNotificationAction"]
  /// NotificationAttributeID names, from 0; Title, Subtitle and Message take a maximum length.
  static let notificationAttributes: [StaticString] = [
    "AppIdentifier", "Title", "Subtitle", "Message", "MessageSize", "Date", "PositiveActionLabel",
    "NegativeActionLabel",
  ]
  /// AppAttributeID names, from 0.
  static let appAttributes: [StaticString] = ["DisplayName"]
  /// ActionID names, from 0.
  static let actions: [StaticString] = ["Positive", "Negative"]
  /// ATT error codes the Control Point answers with.
  static let errors: [(code: UInt8, name: StaticString)] = [
    (0xA0, "Unknown command"), (0xA1, "Invalid command"), (0xA2, "Invalid parameter"), (0xA3, "Action failed"),
  ]

  static func name(_ table: [StaticString], _ code: UInt8) -> String {
    Int(code) < table.count ? table[Int(code)].description : "Reserved (\(code))"
  }

  /// The name of an ATT Error Code the Control Point returned, when it is one of ANCS's.
  public static func errorName(_ code: UInt8) -> String? {
    errors.first { $0.code == code }?.name.description
  }
}

/// A Notification Source notification.
public struct ANCSNotification: Hashable, Sendable {
  public var event: UInt8
  public var flags: UInt8
  public var category: UInt8
  public var categoryCount: UInt8
  public var uid: UInt32

  public var eventName: String { ANCSMessage.name(ANCSMessage.events, event) }
  public var categoryName: String { ANCSMessage.name(ANCSMessage.categories, category) }
  public var flagNames: [String] {
    ANCSMessage.flags.indices.compactMap { flags >> UInt8($0) & 1 == 1 ? ANCSMessage.flags[$0].description : nil }
  }
}

/// One attribute asked for or returned.
public struct ANCSAttribute: Hashable, Sendable {
  public var id: UInt8
  /// The maximum length asked for (Title, Subtitle, Message).
  public var maximumLength: UInt16?
  /// A response's value.
  public var value: String?
}

/// A Control Point command.
public struct ANCSCommand: Hashable, Sendable {
  public var command: UInt8
  public var uid: UInt32?
  public var appIdentifier: String?
  public var attributes: [ANCSAttribute] = []
  public var action: UInt8?

  public var commandName: String { ANCSMessage.name(ANCSMessage.commands, command) }
  public var actionName: String? { action.map { ANCSMessage.name(ANCSMessage.actions, $0) } }

  /// The names of the attributes asked for.
  public var attributeNames: [String] {
    attributes.map { ANCSResponse.attributeName($0.id, app: command == 1) }
  }

  public init(command: UInt8) { self.command = command }

  /// Reads a Control Point value.
  public init(parsing bytes: [UInt8]) throws(DecodeError) {
    var c = ByteCursor(bytes.span.bytes, layer: .ancs)
    command = try c.readUInt8()
    switch command {
    case 0:
      uid = try c.readUInt32()
      while !c.isAtEnd {
        let id = try c.readUInt8()
        // Title, Subtitle and Message are followed by the maximum length wanted.
        var maximum: UInt16?
        if (1...3).contains(id) { maximum = try c.readUInt16() }
        attributes.append(ANCSAttribute(id: id, maximumLength: maximum))
      }
    case 1:
      appIdentifier = try ANCSResponse.string(&c)
      while !c.isAtEnd { attributes.append(ANCSAttribute(id: try c.readUInt8())) }
    case 2:
      uid = try c.readUInt32()
      action = try c.readUInt8()
      guard c.isAtEnd else {
        throw DecodeError(.invalid("\(c.remaining) bytes after the action"), at: c.offset, layer: .ancs)
      }
    default:
      throw DecodeError(.invalid("unknown CommandID \(command)"), at: 0, layer: .ancs)
    }
  }
}

/// A Data Source response: the command it answers, the notification or app, and the
/// attributes with their values.
///
///     CommandID, NotificationUID (4) or AppIdentifier (NUL-terminated),
///     then per attribute: AttributeID (1), Length (2, LE), value (UTF-8)
public struct ANCSResponse: Hashable, Sendable {
  public var command: UInt8
  public var uid: UInt32?
  public var appIdentifier: String?
  public var attributes: [ANCSAttribute] = []

  public var commandName: String { ANCSMessage.name(ANCSMessage.commands, command) }

  /// An attribute's name: of a notification, or of an app (`app`).
  public static func attributeName(_ id: UInt8, app: Bool) -> String {
    ANCSMessage.name(app ? ANCSMessage.appAttributes : ANCSMessage.notificationAttributes, id)
  }

  /// A NUL-terminated UTF-8 string.
  static func string(_ c: inout ByteCursor) throws(DecodeError) -> String {
    let start = c.offset
    var bytes: [UInt8] = []
    while true {
      let byte = try c.readUInt8()
      if byte == 0 { break }
      bytes.append(byte)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw DecodeError(.invalid("an AppIdentifier that is not UTF-8"), at: start, layer: .ancs)
    }
    return text
  }

  /// Reads the Data Source bytes received so far. Nil while they are a beginning
  /// that more notifications will complete: fewer attributes than `expected` (the
  /// count the command asked for; without it, until an attribute ends exactly at
  /// the end), or an attribute cut short.
  public static func parse(_ bytes: [UInt8], expected: Int?) throws(DecodeError) -> ANCSResponse? {
    var c = ByteCursor(bytes.span.bytes, layer: .ancs)
    do throws(DecodeError) {
      var response = ANCSResponse(command: try c.readUInt8())
      switch response.command {
      case 0: response.uid = try c.readUInt32()
      case 1: response.appIdentifier = try string(&c)
      default: throw DecodeError(.invalid("unknown CommandID \(response.command)"), at: 0, layer: .ancs)
      }
      while !c.isAtEnd {
        let id = try c.readUInt8()
        let length = Int(try c.readUInt16())
        let start = c.offset
        let value = try c.readBytes(length)
        guard let text = String(validating: value, as: UTF8.self) else {
          throw DecodeError(.invalid("an attribute value that is not UTF-8"), at: start, layer: .ancs)
        }
        response.attributes.append(ANCSAttribute(id: id, value: text))
        if let expected, response.attributes.count >= expected { break }
      }
      if let expected, response.attributes.count < expected { return nil }
      guard c.isAtEnd else {
        throw DecodeError(.invalid("\(c.remaining) bytes after the last attribute"), at: c.offset, layer: .ancs)
      }
      return response
    } catch {
      if case .truncated = error.kind { return nil }
      throw error
    }
  }
}
