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
  public static let adNames: Set<UInt8> = [0x08, 0x09, 0x30]
  /// AD types that carry addresses (six octets each): Public and Random Target
  /// Address, LE Bluetooth Device Address (with its type octet after it).
  public static let adAddresses: Set<UInt8> = [0x17, 0x18, 0x1B]
  /// AD types that carry OOB pairing values: Simple Pairing Hash C and Randomizer R
  /// (-192 and -256), Security Manager TK Value, LE Secure Connections Confirmation
  /// and Random Values.
  public static let adSecrets: Set<UInt8> = [0x0E, 0x0F, 0x10, 0x1D, 0x1E, 0x22, 0x23]

  /// LL Control PDU parameters that are session key material: LL_ENC_REQ's Rand,
  /// EDIV, SKD and IV, LL_ENC_RSP's SKD and IV.
  public static let llSecrets: [UInt8: Set<String>] = [
    0x03: ["Rand", "EDIV", "SKDC", "IVC"], 0x04: ["SKDP", "IVP"],
  ]

  /// The Device Name characteristic (GAP), whose value is a name.
  public static let deviceName = BluetoothUUID(uuid16: 0x2A00)
  /// The Reconnection Address characteristic, whose value is an address.
  public static let reconnectionAddress = BluetoothUUID(uuid16: 0x2A03)

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
