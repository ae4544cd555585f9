import BLEDissect

/// What a redacted field is, for the disclosure summary: its category and where it
/// came from (`HCI Long_Term_Key`, `SMP Pairing Confirm`, `AD Complete Local Name`,
/// `LL AdvA`).
public struct RedactionKind: Hashable, Sendable, Comparable {
  public enum Category: String, Hashable, Sendable, CaseIterable {
    /// A device address, pseudonymised.
    case address
    /// A device name, replaced by `device-N`.
    case name
    /// An Identity Resolving Key, replaced by a made-up key that resolves the
    /// pseudonymised private addresses as the original resolved the originals.
    case identityKey = "identity key"
    /// A key, pairing value, passkey or OOB value, replaced by filler.
    case secret
    /// A value that identifies a device (a serial number; revision strings with
    /// `--strict`), replaced by `serial-N`, `hardware-N`…
    case identifier
  }

  public var category: Category
  public var name: String

  public init(_ category: Category, _ name: String) {
    self.category = category
    self.name = name
  }

  public static func < (a: Self, b: Self) -> Bool {
    let order = Category.allCases
    if a.category != b.category {
      return order.firstIndex(of: a.category)! < order.firstIndex(of: b.category)!
    }
    return a.name < b.name
  }
}

/// Which fields hold secrets, names and addresses, layer by layer. The HCI address
/// parameters need no list: every `HCIParameter.address` of the command and event
/// tables is one.
public enum RedactionFields {
  /// The octet every secret is overwritten with.
  public static let filler: UInt8 = 0x00

  /// HCI parameters (by their spec names in the command and event tables) that hold
  /// keys, pairing values, passkeys, OOB data and the material keys are made from.
  public static let hciSecrets: Set<String> = [
    // BR/EDR link keys and PIN codes.
    "Link_Key", "PIN_Code",
    // LE encryption: the LTK, its EDIV and Rand, and what LE Rand returns to make them.
    "Long_Term_Key", "Random_Number", "Encrypted_Diversifier",
    // Secure Simple Pairing passkeys and numeric comparison values.
    "Numeric_Value", "Passkey",
    // OOB data, P-192 and P-256.
    "C", "R", "C_192", "R_192", "C_256", "R_256",
    // LE Encrypt (the host's e function: its key and what it encrypts).
    "Key", "Plaintext_Data", "Encrypted_Data",
    // P-256 keys and the shared secret.
    "Key_X_Coordinate", "Key_Y_Coordinate", "DH_Key",
    // The code that encrypts a BIG.
    "Broadcast_Code",
  ]

  /// HCI parameters that hold Identity Resolving Keys.
  public static let hciIdentityKeys: Set<String> = ["Peer_IRK", "Local_IRK"]

  /// HCI parameters that hold AD structures (advertising data, EIR).
  public static let hciAdvertisingData: Set<String> = [
    "Advertising_Data", "Scan_Response_Data", "Extended_Inquiry_Response",
  ]

  /// HCI parameters of several octets that are neither secret nor identifying: the
  /// tables' octet strings of 8 octets or more that `hciSecrets` leaves out on purpose.
  /// A test checks that every such parameter is on one list or the other.
  public static let hciNotSecret: Set<String> = [
    "AFH_Channel_Map", "AFH_Host_Channel_Classification", "Channel_Classification", "Channel_Map",
    "Supported_Commands", "LE_Features", "Remote_FAE_Table", "Test_Parameters", "Event_Mask",
    "Event_Mask_Page_2", "Extended_LMP_Features", "Host_Supported_Features", "LE_Event_Mask", "LE_States",
    "LMP_Features", "Parameters", "Return_Parameters", "Unparsed", "HCI_Command_Packet", "Condition",
  ]

  /// SMP commands whose parameters are secret: confirm and random values, keys,
  /// EDIV and Rand, public keys, DHKey checks. Identity Information (IRK) and Identity
  /// Address Information are handled as what they are.
  public static let smpSecrets: Set<SMPCode> = [
    .pairingConfirm, .pairingRandom, .encryptionInformation, .centralIdentification, .signingInformation,
    .pairingPublicKey, .pairingDHKeyCheck,
  ]

  /// AD types that carry names: Shortened and Complete Local Name, Broadcast_Name.
  public static let adNames: Set<UInt8> = [
    ADType.shortenedLocalName.rawValue, ADType.completeLocalName.rawValue, ADType.broadcastName.rawValue,
  ]
  /// AD types that carry addresses (six octets each): Public and Random Target
  /// Address, LE Bluetooth Device Address (with its type octet after it).
  public static let adAddresses: Set<UInt8> = [
    ADType.publicTargetAddress.rawValue, ADType.randomTargetAddress.rawValue, ADType.leBluetoothDeviceAddress.rawValue,
  ]
  /// AD types that carry OOB pairing values: Simple Pairing Hash C and Randomizer R
  /// (-192 and -256), Security Manager TK Value, LE Secure Connections Confirmation
  /// and Random Values.
  public static let adSecrets: Set<UInt8> = [0x0E, 0x0F, 0x10, 0x1D, 0x1E, 0x22, 0x23]

  /// LL Control PDU parameters that are session key material: LL_ENC_REQ's Rand,
  /// EDIV, SKD and IV, LL_ENC_RSP's SKD and IV.
  public static let llSecrets: [UInt8: Set<String>] = [
    0x03: ["Rand", "EDIV", "SKDC", "IVC"], 0x04: ["SKDP", "IVP"],
  ]

  /// show's fields (``ShowField`` ids) whose values `redact` replaces, by what they
  /// hold. A test holds it to the registry: every field of show's record that holds an
  /// address is here, so a new one needs a decision.
  public static let showFields: [String: RedactionKind.Category] = [
    "adv.address": .address, "conn.peer": .address, "conn.peer.address": .address, "ll.adv_address": .address,
    "ll.init_address": .address, "ll.scan_address": .address, "ll.target_address": .address, "adv.name": .name,
    "conn.peer.name": .name,
  ]

  /// The Device Name characteristic (GAP), whose value is a name.
  public static let deviceName = BluetoothUUID(uuid16: 0x2A00)
  /// The Reconnection Address characteristic, whose value is an address.
  public static let reconnectionAddress = BluetoothUUID(uuid16: 0x2A03)

  /// What `redact` does with the values of a SIG characteristic or descriptor, by its
  /// 16-bit UUID. A value whose attribute is on no row (a vendor UUID, a handle that
  /// discovery never named) is not known to be safe: `--keep-values` keeps it,
  /// `--blank-values` (the default) fills it; the disclosure summary lists both.
  public static let valueRules: [UInt16: ValueRule] = {
    var rules: [UInt16: ValueRule] = [
      // GAP: Device Name, Reconnection Address. System ID (DIS) is made from the
      // device's address (Manufacturer Identifier = its low three octets and 0xFFFE,
      // OUI = its high three).
      0x2A00: .name, 0x2A03: .address, 0x2A23: .systemID,
      // DIS: the Serial Number String names one device; the revision strings name
      // a build that few devices share (replaced with --strict).
      0x2A25: .identifier(.serialNumber), 0x2A26: .revision(.firmwareRevision),
      0x2A27: .revision(.hardwareRevision), 0x2A28: .revision(.softwareRevision),
    ]
    for uuid in safeValues { rules[uuid] = .safe }
    for uuid: UInt16 in 0x2800...0x2803 { rules[uuid] = .declaration }
    return rules
  }()

  /// Characteristics and descriptors whose values identify no device and no person:
  /// SIG formats made only of numbers,
  /// flags and enumerations (a test checks each against its built-in format), plus
  /// the product-level strings of Device Information (manufacturer, model).
  /// Left out on purpose: text a user or app can set (Characteristic User
  /// Description, New Alert), HID reports (keystrokes), opaque octets, and the User
  /// Data service (age, date of birth, weight: a person's data).
  public static let safeValues: Set<UInt16> = [
    // Descriptors: Extended Properties, Client and Server Characteristic
    // Configuration, Presentation and Aggregate Format, Valid Range, Report
    // Reference, Number of Digitals, the trigger and sensing settings.
    0x2900, 0x2902, 0x2903, 0x2904, 0x2905, 0x2906, 0x2908, 0x2909, 0x290A, 0x290B, 0x290C, 0x290D, 0x290E,
    // GAP and GATT: Appearance, Peripheral Privacy Flag, Preferred Connection
    // Parameters, Service Changed, Central Address Resolution, RPA Only, Client and
    // Server Supported Features, Database Hash.
    0x2A01, 0x2A02, 0x2A04, 0x2A05, 0x2AA6, 0x2AC9, 0x2B29, 0x2B2A, 0x2B3A,
    // Device Information: Manufacturer Name and Model Number Strings, PnP ID.
    0x2A24, 0x2A29, 0x2A50,
    // Battery, Immediate Alert, Tx Power.
    0x2A19, 0x2A1B, 0x2BED, 0x2A06, 0x2A07,
    // Time.
    0x2A08, 0x2A09, 0x2A0A, 0x2A0C, 0x2A0D, 0x2A0E, 0x2A0F, 0x2A11, 0x2A12, 0x2A13, 0x2A14, 0x2A16, 0x2A17, 0x2A2B,
    // Health and fitness measurements, features and control points.
    0x2A18, 0x2A1C, 0x2A1D, 0x2A1E, 0x2A21, 0x2A35, 0x2A36, 0x2A37, 0x2A38, 0x2A39, 0x2A49, 0x2A51, 0x2A52, 0x2A53,
    0x2A54, 0x2A55, 0x2A5B, 0x2A5C, 0x2A5D, 0x2A5E, 0x2A5F, 0x2A60, 0x2A63, 0x2A65, 0x2A9B, 0x2A9C, 0x2A9D, 0x2A9E,
    // Environmental sensing.
    0x2A2C, 0x2A6C, 0x2A6D, 0x2A6E, 0x2A6F, 0x2A70, 0x2A71, 0x2A72, 0x2A73, 0x2A74, 0x2A75, 0x2A76, 0x2A77, 0x2A78,
    0x2A79, 0x2A7A, 0x2A7B, 0x2AA3,
    // Alert Notification and Phone Alert Status (counts and categories, not the alert text).
    0x2A3F, 0x2A40, 0x2A41, 0x2A43, 0x2A44, 0x2A45,
    // HID: Information, Control Point, Protocol Mode; Scan Parameters.
    0x2A4A, 0x2A4C, 0x2A4E, 0x2A31, 0x2A4F,
  ]

  /// The rule for a value of attribute type `uuid`, nil when it is not known to be safe.
  public static func valueRule(_ uuid: BluetoothUUID?) -> ValueRule? {
    guard let short = uuid?.shortValue, short <= 0xFFFF else { return nil }
    return valueRules[UInt16(short)]
  }

  /// Addresses that name no device: all zeros (none given) and all ones.
  public static func isPlaceholder(_ address: DeviceAddress) -> Bool {
    address.rawValue == 0 || address.rawValue == 0xFFFF_FFFF_FFFF
  }

  /// Whether a layout holds anything `redact` replaces: an address, a name, a secret,
  /// an IRK or AD structures.
  static func matters(_ layout: [HCIParameter]) -> Bool {
    layout.contains { parameter in
      switch parameter {
      case .address, .text: true
      case .repeated(_, _, _, let inner): matters(inner)
      default:
        hciSecrets.contains(parameter.name) || hciIdentityKeys.contains(parameter.name)
          || hciAdvertisingData.contains(parameter.name)
      }
    }
  }

  /// The commands, Command Complete return blocks, events and LE subevents whose
  /// layouts matter, from the tables: the others need no look.
  static let commandsThatMatter = Set(HCIParameters.commands.filter { matters($0.parameters ?? []) }.map(\.opcode))
  static let returnsThatMatter = Set(
    HCIParameters.commands.filter { matters($0.returnParameters ?? []) }.map(\.opcode))
  static let eventsThatMatter = Set(HCIParameters.events.filter { matters($0.parameters ?? []) }.map(\.code))
  static let subeventsThatMatter = Set(HCIParameters.leSubevents.filter { matters($0.parameters ?? []) }.map(\.code))

  /// Whether an HCI command or event may hold a field to replace.
  static func matters(_ hci: HCILayer) -> Bool {
    switch hci.type {
    case .command: return commandsThatMatter.contains(hci.opcode ?? 0)
    case .event:
      switch hci.event {
      case HCIEventCode.commandComplete.rawValue: return returnsThatMatter.contains(hci.opcode ?? 0)
      case HCIEventCode.leMeta.rawValue: return subeventsThatMatter.contains(hci.subevent ?? 0)
      default: return eventsThatMatter.contains(hci.event ?? 0)
      }
    default: return false
    }
  }

  /// Diagnostics that do not mean some bytes went unparsed.
  static let parsedAnyway: Set<String> = [
    "ll.retransmission", "att.mtu.exceeded", "smp.key_size.invalid", "smp.value.reserved", "att.decoded.extra",
    "att.decoded.truncated", "att.lookahead.limit", "adv.data.truncated", "conn.limit", "gatt.queue.limit",
    "l2cap.channels.limit",
  ]
}

/// What `redact` does with an attribute value (`RedactionFields.valueRules`).
public enum ValueRule: Hashable, Sendable {
  /// A device name: `device-N`, as in advertising.
  case name
  /// An address: its pseudonym.
  case address
  /// System ID: its address octets become the pseudonym's.
  case systemID
  /// An identifier: a pseudonym of its kind.
  case identifier(IdentifierKind)
  /// A revision string: kept, or a pseudonym of its kind with `--strict`.
  case revision(IdentifierKind)
  /// Known to identify nothing: kept (and still swept).
  case safe
  /// A declaration (service, include, characteristic) that discovery reads: GATT's
  /// structure, not a value; neither counted nor swept as one.
  case declaration
}

/// The kinds of identifying text values, each with its own pseudonyms.
public enum IdentifierKind: String, Hashable, Sendable, CaseIterable {
  case serialNumber = "serial"
  case firmwareRevision = "firmware"
  case hardwareRevision = "hardware"
  case softwareRevision = "software"

  /// The spec name of the characteristic, for the summary.
  public var characteristic: String {
    switch self {
    case .serialNumber: "Serial Number String"
    case .firmwareRevision: "Firmware Revision String"
    case .hardwareRevision: "Hardware Revision String"
    case .softwareRevision: "Software Revision String"
    }
  }

  /// `serial-N` and its shorter forms (`sn-N`, `sN`, `N`), as names have theirs.
  var forms: (long: String, short: String, letter: String) {
    switch self {
    case .serialNumber: ("serial-", "sn-", "s")
    case .firmwareRevision: ("firmware-", "fw-", "f")
    case .hardwareRevision: ("hardware-", "hw-", "h")
    case .softwareRevision: ("software-", "sw-", "w")
    }
  }
}
