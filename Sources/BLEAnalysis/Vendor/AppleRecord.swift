import BLEDissect

/// What a record says in the Apple Notification Center Service.
public struct ANCSRecord: Sendable {
  public var message: ANCSMessage?
  /// A Data Source notification that carries part of a response still under way:
  /// the bytes received so far.
  public var partial: Int?
  /// The frames of the notifications a Data Source response took.
  public var frames: [Int] = []
  /// An ATT Error Response to a Control Point write, by ANCS's name for it.
  public var error: String?

  var notification: ANCSNotification? { if case .notification(let n) = message { n } else { nil } }
  var command: ANCSCommand? { if case .command(let c) = message { c } else { nil } }
  var response: ANCSResponse? { if case .response(let r) = message { r } else { nil } }

  static let table: VendorFieldTable = {
    let p = "ancs"
    let r: @Sendable (VendorRecord) -> ANCSRecord? = { $0.ancs }
    let n: @Sendable (VendorRecord) -> ANCSNotification? = { $0.ancs?.notification }
    return VendorFieldTable(
      name: p,
      description:
        "Apple Notification Center Service: a Notification Source notification, a Control Point command, a Data Source response (reassembled from its notifications), or an ANCS error.",
      fields: [
        VendorField("kind", "Kind", .string, of: p, r) { record in
          switch record.message {
          case .notification: .string("notification")
          case .command: .string("command")
          case .response: .string("response")
          case nil: record.partial != nil ? .string("response_part") : record.error != nil ? .string("error") : nil
          }
        },
        VendorField("event_name", "EventID", .string, of: p, n) { .string($0.eventName) },
        VendorField("flags", "EventFlags", .strings, as: "flag", of: p, n) { .list($0.flagNames) },
        VendorField("category", "CategoryID", .string, of: p, n) { .string($0.categoryName) },
        VendorField("category_count", "CategoryCount", .integer, of: p, n) { .int($0.categoryCount) },
        VendorField("uid", "NotificationUID", .integer, of: p, r) {
          .int($0.notification?.uid ?? $0.command?.uid ?? $0.response?.uid)
        },
        VendorField("command", "CommandID", .string, of: p, r) {
          .text($0.command?.commandName ?? $0.response?.commandName)
        },
        VendorField("app", "AppIdentifier", .string, of: p, r) {
          .text($0.command?.appIdentifier ?? $0.response?.appIdentifier)
        },
        VendorField("action", "ActionID", .string, of: p, r) { .text($0.command?.actionName) },
        VendorField("attributes", "Attributes", .strings, as: "attribute", of: p, r) { record in
          if let command = record.command { return .list(command.attributeNames) }
          guard let response = record.response else { return nil }
          return .list(
            response.attributes.map {
              "\(ANCSResponse.attributeName($0.id, app: response.command == 1)): \($0.value ?? "")"
            })
        },
        VendorField("partial_bytes", "Bytes So Far", .integer, of: p, r) { .int($0.partial) },
        VendorField("frames", "Frames", .integers, as: "frame", of: p, r) {
          $0.frames.count > 1 ? .integers($0.frames.map(Int64.init)) : nil
        },
        VendorField("error_name", "Error", .string, of: p, r) { .text($0.error) },
      ])
  }()
}

/// What a record says in the Apple Media Service.
public struct AMSRecord: Sendable {
  public var message: AMSMessage?
  /// An ATT Error Response by AMS's name for it.
  public var error: String?

  static let table: VendorFieldTable = {
    let p = "ams"
    let m: @Sendable (VendorRecord) -> AMSMessage? = { $0.ams?.message }
    return VendorFieldTable(
      name: p,
      description:
        "Apple Media Service: a Remote Command, an Entity Update request or notification, an Entity Attribute request or value, or an AMS error.",
      fields: [
        VendorField("kind", "Kind", .string, of: p, m) { message in
          switch message {
          case .remoteCommand: .string("remote_command")
          case .supportedCommands: .string("supported_commands")
          case .subscribe: .string("entity_update_request")
          case .update: .string("entity_update")
          case .select: .string("entity_attribute_request")
          case .value: .string("entity_attribute")
          }
        },
        VendorField("command", "RemoteCommandID", .string, of: p, m) { message in
          guard case .remoteCommand(let id) = message else { return nil }
          return .string(AMSMessage.commandName(id))
        },
        VendorField("commands", "Supported Commands", .strings, of: p, m) { message in
          guard case .supportedCommands(let ids) = message else { return nil }
          return .list(ids.map(AMSMessage.commandName))
        },
        VendorField("entity", "EntityID", .string, of: p, m) { message in
          switch message {
          case .subscribe(let entity, _), .update(let entity, _, _, _), .select(let entity, _):
            .string(AMSMessage.entityName(entity))
          default: nil
          }
        },
        VendorField("attributes", "AttributeIDs", .strings, as: "attribute", of: p, m) { message in
          switch message {
          case .subscribe(let entity, let attributes):
            .list(attributes.map { AMSMessage.attributeName($0, entity: entity) })
          case .update(let entity, let attribute, _, _), .select(let entity, let attribute):
            .list([AMSMessage.attributeName(attribute, entity: entity)])
          default: nil
          }
        },
        VendorField("truncated", "Truncated", .bool, of: p, m) { message in
          guard case .update(_, _, let flags, _) = message else { return nil }
          return .bool(flags & 0x01 != 0)
        },
        VendorField("value", "Value", .string, of: p, m) { message in
          switch message {
          case .update(_, _, _, let value), .value(let value): .string(value)
          default: nil
          }
        },
        VendorField("error_name", "Error", .string, of: p, { $0.ams }) { .text($0.error) },
      ])
  }()
}

/// Follows ANCS and AMS per connection: Data Source responses reassembled from their
/// notifications, knowing from the Control Point command how many attributes to wait for.
struct AppleTracker {
  struct Link {
    var data: [UInt8] = []
    var frames: [Int] = []
    /// Attributes the last Control Point command asked for.
    var expected: Int?
  }

  static let maximumData = 65_536
  private var links: [Int: Link] = [:]

  var connectionCount: Int { links.count }

  mutating func analyze(_ pdu: VendorPDU) -> VendorOutcome {
    do throws(DecodeError) {
      switch pdu.role {
      case .ancsNotificationSource:
        return VendorOutcome(.ancs(ANCSRecord(message: .notification(try ANCSMessage.notification(pdu.value)))))
      case .ancsControlPoint:
        let command = try ANCSCommand(parsing: pdu.value)
        var link = Link()
        if command.command != 2 { link.expected = command.attributes.count }
        links[pdu.connection.id] = link
        return VendorOutcome(.ancs(ANCSRecord(message: .command(command))))
      case .ancsDataSource:
        return try dataSource(pdu)
      case .amsRemoteCommand:
        return VendorOutcome(
          .ams(AMSRecord(message: try AMSMessage.remoteCommand(pdu.value, fromClient: pdu.fromClient))))
      case .amsEntityUpdate:
        return VendorOutcome(
          .ams(AMSRecord(message: try AMSMessage.entityUpdate(pdu.value, fromClient: pdu.fromClient))))
      default:
        return VendorOutcome(
          .ams(AMSRecord(message: try AMSMessage.entityAttribute(pdu.value, fromClient: pdu.fromClient))))
      }
    } catch {
      if pdu.role == .ancsDataSource { links[pdu.connection.id]?.data.removeAll() }
      let ancs = pdu.role.protocolName.description == "ancs"
      return VendorOutcome(diagnostics: [.vendor(ancs ? "ancs.invalid" : "ams.invalid", error)])
    }
  }

  private mutating func dataSource(_ pdu: VendorPDU) throws(DecodeError) -> VendorOutcome {
    var link = links[pdu.connection.id, default: Link()]
    defer { links[pdu.connection.id] = link }
    guard link.data.count + pdu.value.count <= Self.maximumData else {
      link.data.removeAll()
      link.frames.removeAll()
      return VendorOutcome(diagnostics: [
        Diagnostic(
          id: "vendor.state.limit", severity: .info,
          "an ANCS Data Source response grew past \(Self.maximumData) bytes; it is dropped")
      ])
    }
    link.data += pdu.value
    link.frames.append(pdu.frame)
    let response: ANCSResponse?
    do {
      response = try ANCSResponse.parse(link.data, expected: link.expected)
    } catch {
      link.data.removeAll()
      link.frames.removeAll()
      throw error
    }
    guard let response else {
      return VendorOutcome(.ancs(ANCSRecord(partial: link.data.count)))
    }
    let record = ANCSRecord(message: .response(response), frames: link.frames)
    link.data.removeAll()
    link.frames.removeAll()
    return VendorOutcome(.ancs(record))
  }

  mutating func ended(_ connection: Int) { links[connection] = nil }
}
