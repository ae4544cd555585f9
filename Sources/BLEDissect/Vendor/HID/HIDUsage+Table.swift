/// A HID usage: a usage page and an id on it (USB HID Usage Tables 1.5).
///
/// Names are those of the tables, shortened where the tables repeat the page: on the
/// Keyboard/Keypad page `Keyboard a and A` is `a` and `Keyboard LeftShift` is
/// `Left Shift`, so that a filter reads `hid.key == "h"`.
public struct HIDUsage: Hashable, Sendable {
  public var page: UInt16
  public var id: UInt16

  public init(page: UInt16, id: UInt16) {
    self.page = page
    self.id = id
  }

  /// Usage pages (HID Usage Tables 1.5, section 3, Table 3.1).
  public static let genericDesktop: UInt16 = 0x01
  public static let keyboard: UInt16 = 0x07
  public static let led: UInt16 = 0x08
  public static let button: UInt16 = 0x09
  public static let consumer: UInt16 = 0x0C

  static let pages: [(page: UInt16, name: StaticString)] = [
    (0x01, "Generic Desktop"), (0x02, "Simulation Controls"), (0x03, "VR Controls"), (0x04, "Sport Controls"),
    (0x05, "Game Controls"), (0x06, "Generic Device Controls"), (0x07, "Keyboard/Keypad"), (0x08, "LED"),
    (0x09, "Button"), (0x0A, "Ordinal"), (0x0B, "Telephony Device"), (0x0C, "Consumer"), (0x0D, "Digitizers"),
    (0x0E, "Haptics"), (0x0F, "Physical Input Device"), (0x10, "Unicode"), (0x12, "Eye and Head Trackers"),
    (0x14, "Auxiliary Display"), (0x20, "Sensors"), (0x40, "Medical Instrument"), (0x41, "Braille Display"),
    (0x59, "Lighting And Illumination"), (0x80, "Monitor"), (0x84, "Power"), (0x85, "Battery System"),
    (0x8C, "Barcode Scanner"), (0x8D, "Scales"), (0x8E, "Magnetic Stripe Reader"), (0x90, "Camera Control"),
    (0x91, "Arcade"), (0xF1D0, "FIDO Alliance"),
  ]

  /// Generic Desktop page (section 4).
  static let genericDesktopNames: [(id: UInt16, name: StaticString)] = [
    (0x01, "Pointer"), (0x02, "Mouse"), (0x04, "Joystick"), (0x05, "Gamepad"), (0x06, "Keyboard"), (0x07, "Keypad"),
    (0x08, "Multi-axis Controller"), (0x09, "Tablet PC System Controls"), (0x0D, "Portable Device Control"),
    (0x30, "X"), (0x31, "Y"), (0x32, "Z"), (0x33, "Rx"), (0x34, "Ry"), (0x35, "Rz"), (0x36, "Slider"), (0x37, "Dial"),
    (0x38, "Wheel"), (0x39, "Hat Switch"), (0x3A, "Counted Buffer"), (0x3B, "Byte Count"), (0x3C, "Motion Wakeup"),
    (0x3D, "Start"), (0x3E, "Select"), (0x40, "Vx"), (0x41, "Vy"), (0x42, "Vz"), (0x43, "Vbrx"), (0x44, "Vbry"),
    (0x45, "Vbrz"), (0x46, "Vno"), (0x47, "Feature Notification"), (0x48, "Resolution Multiplier"),
    (0x80, "System Control"), (0x81, "System Power Down"), (0x82, "System Sleep"), (0x83, "System Wake Up"),
    (0x84, "System Context Menu"), (0x85, "System Main Menu"), (0x86, "System App Menu"), (0x87, "System Menu Help"),
    (0x88, "System Menu Exit"), (0x89, "System Menu Select"), (0x8A, "System Menu Right"), (0x8B, "System Menu Left"),
    (0x8C, "System Menu Up"), (0x8D, "System Menu Down"), (0x90, "D-pad Up"), (0x91, "D-pad Down"),
    (0x92, "D-pad Right"), (0x93, "D-pad Left"),
  ]

  /// Keyboard/Keypad page (section 10), 0x00–0x81 and the modifiers 0xE0–0xE7.
  static let keyboardNames: [StaticString] = [
    "None", "ErrorRollOver", "POSTFail", "ErrorUndefined",
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v",
    "w", "x", "y", "z", "1", "2", "3", "4", "5", "6", "7", "8", "9", "0",
    "Enter", "Escape", "Backspace", "Tab", "Space", "-", "=", "[", "]", "\\", "Non-US #", ";", "'", "`", ",", ".",
    "/", "Caps Lock", "F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8", "F9", "F10", "F11", "F12", "Print Screen",
    "Scroll Lock", "Pause", "Insert", "Home", "Page Up", "Delete", "End", "Page Down", "Right Arrow", "Left Arrow",
    "Down Arrow", "Up Arrow", "Num Lock", "Keypad /", "Keypad *", "Keypad -", "Keypad +", "Keypad Enter",
    "Keypad 1", "Keypad 2", "Keypad 3", "Keypad 4", "Keypad 5", "Keypad 6", "Keypad 7", "Keypad 8", "Keypad 9",
    "Keypad 0", "Keypad .", "Non-US \\", "Application", "Power", "Keypad =", "F13", "F14", "F15", "F16", "F17",
    "F18", "F19", "F20", "F21", "F22", "F23", "F24", "Execute", "Help", "Menu", "Select", "Stop", "Again", "Undo",
    "Cut", "Copy", "Paste", "Find", "Mute", "Volume Up", "Volume Down",
  ]

  static let modifierNames: [StaticString] = [
    "Left Control", "Left Shift", "Left Alt", "Left GUI", "Right Control", "Right Shift", "Right Alt", "Right GUI",
  ]

  /// LED page (section 11).
  static let ledNames: [StaticString] = [
    "Undefined", "Num Lock", "Caps Lock", "Scroll Lock", "Compose", "Kana", "Power", "Shift", "Do Not Disturb",
    "Mute",
  ]

  /// Consumer page (section 15): the controls keyboards and remotes send.
  static let consumerNames: [(id: UInt16, name: StaticString)] = [
    (0x01, "Consumer Control"), (0x02, "Numeric Key Pad"), (0x03, "Programmable Buttons"), (0x04, "Microphone"),
    (0x05, "Headphone"), (0x06, "Graphic Equalizer"), (0x30, "Power"), (0x31, "Reset"), (0x32, "Sleep"),
    (0x40, "Menu"), (0x41, "Menu Pick"), (0x42, "Menu Up"), (0x43, "Menu Down"), (0x44, "Menu Left"),
    (0x45, "Menu Right"), (0x46, "Menu Escape"), (0x6F, "Display Brightness Increment"),
    (0x70, "Display Brightness Decrement"), (0xB0, "Play"), (0xB1, "Pause"), (0xB2, "Record"), (0xB3, "Fast Forward"),
    (0xB4, "Rewind"), (0xB5, "Scan Next Track"), (0xB6, "Scan Previous Track"), (0xB7, "Stop"), (0xB8, "Eject"),
    (0xB9, "Random Play"), (0xBC, "Repeat"), (0xCD, "Play/Pause"), (0xCF, "Voice Command"), (0xE0, "Volume"),
    (0xE2, "Mute"), (0xE3, "Bass"), (0xE9, "Volume Increment"), (0xEA, "Volume Decrement"),
    (0x183, "AL Consumer Control Configuration"), (0x18A, "AL Email Reader"), (0x192, "AL Calculator"),
    (0x194, "AL Local Machine Browser"), (0x196, "AL Internet Browser"), (0x19E, "AL Terminal Lock/Screensaver"),
    (0x1A7, "AL Documents"), (0x1AE, "AL Keyboard Layout"), (0x221, "AC Search"), (0x223, "AC Home"),
    (0x224, "AC Back"), (0x225, "AC Forward"), (0x226, "AC Stop"), (0x227, "AC Refresh"), (0x22A, "AC Bookmarks"),
    (0x22D, "AC Zoom In"), (0x22E, "AC Zoom Out"), (0x232, "AC Full Screen View"), (0x238, "AC Pan"),
    (0x29D, "AC Next Keyboard Layout Select"),
  ]

  /// The usage's name: from the tables above, `Button 3` on the Button page, else
  /// `Usage 0x0045` with the page's name.
  public var name: String {
    switch page {
    case Self.genericDesktop:
      if let name = Self.genericDesktopNames.first(where: { $0.id == id })?.name { return name.description }
    case Self.keyboard:
      if Int(id) < Self.keyboardNames.count { return Self.keyboardNames[Int(id)].description }
      if (0xE0...0xE7).contains(id) { return Self.modifierNames[Int(id - 0xE0)].description }
    case Self.led:
      if Int(id) < Self.ledNames.count { return Self.ledNames[Int(id)].description }
    case Self.button:
      return id == 0 ? "No Button" : "Button \(id)"
    case Self.consumer:
      if let name = Self.consumerNames.first(where: { $0.id == id })?.name { return name.description }
    default: break
    }
    return "\(Self.pageName(page)) 0x\(hex(id))"
  }

  /// `Generic Desktop`, `Vendor-defined 0xff00`, `Page 0x0013`.
  public static func pageName(_ page: UInt16) -> String {
    if let name = pages.first(where: { $0.page == page })?.name { return name.description }
    if page >= 0xFF00 { return "Vendor-defined 0x\(hex(page))" }
    return "Page 0x\(hex(page))"
  }

  /// The character a key types on a US layout (`h`, with shift `H`), nil for keys
  /// that type none.
  public static func character(_ key: UInt16, shift: Bool) -> String? {
    switch key {
    case 0x04...0x1D:
      let letter = Character(Unicode.Scalar(UInt8(0x61 + key - 0x04)))
      return shift ? String(letter).uppercased() : String(letter)
    case 0x1E...0x38:
      let plain = Array("1234567890\n\u{1B}\u{08}\t -=[]\\#;'`,./")
      let shifted = Array("!@#$%^&*()\n\u{1B}\u{08}\t _+{}|~:\"~<>?")
      let index = Int(key - 0x1E)
      let character = shift ? shifted[index] : plain[index]
      return character == "\u{1B}" || character == "\u{08}" ? nil : String(character)
    default: return nil
    }
  }
}
