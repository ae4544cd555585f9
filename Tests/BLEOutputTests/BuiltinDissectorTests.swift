import BLEDissect
import BLEOutput
import Foundation
import Testing

/// The built-in formats of Dissectors/: they parse, there are enough of them, and each
/// decodes a fixture into the text the spec implies.
@Suite struct BuiltinDissectorTests {
  static let files = BuiltinFiles.all.filter { $0.path.hasSuffix(".dissector") }

  static func parsedFiles() throws -> [DissectorFormat] {
    try files.flatMap { try DissectorFile.parse(path: $0.path, text: $0.text) }
  }

  @Test func everyBuiltinFileParses() {
    #expect(!Self.files.isEmpty)
    for file in Self.files {
      #expect(throws: Never.self, "\(file.path)") { try DissectorFile.parse(path: file.path, text: file.text) }
    }
  }

  @Test func atLeastTwoHundredFiftyCharacteristicsAndTheCommonDescriptors() throws {
    let formats = try Self.parsedFiles()
    #expect(formats.count { $0.kind == .characteristic && !$0.fields.isEmpty } >= 250)
    let descriptors = Set(formats.filter { $0.kind == .descriptor }.map(\.uuid.description))
    for uuid in [
      "2900", "2901", "2902", "2903", "2904", "2905", "2906", "2907", "2908", "290b", "290c", "290d", "290e",
    ] {
      #expect(descriptors.contains(uuid), "descriptor \(uuid)")
    }
  }

  @Test func uuidsAreUniqueAcrossFiles() throws {
    var seen: [String: String] = [:]
    for file in Self.files {
      for format in try DissectorFile.parse(path: file.path, text: file.text) {
        let key = format.uuid.description
        #expect(seen[key] == nil, "\(key) in \(file.path) and \(seen[key] ?? "")")
        seen[key] = file.path
      }
    }
  }

  /// The library parses each header's block on its own, lazily; it must get what a
  /// whole-file parse gets, and know every header.
  @Test func lazilyParsedFormatsEqualWholeFiles() throws {
    let whole = try Self.parsedFiles()
    for format in whole {
      var expected = format
      expected.isBuiltin = true
      #expect(DissectorLibrary.builtin.format(for: format.uuid) == expected, "\(format.uuid)")
    }
    #expect(DissectorLibrary.builtin.formats.count == whole.count)
  }

  /// Names agree with the assigned numbers where those list the UUID (the spec's
  /// spelling wins where the numbers database differs).
  @Test func namesAgreeWithAssignedNumbers() throws {
    // The numbers database's spellings: "Location and Speed Characteristic", "Bond Management Features".
    let spelledDifferently: Set<String> = ["2a40", "2a5f", "2a67", "2aa5"]
    for format in try Self.parsedFiles() where !spelledDifferently.contains(format.uuid.description) {
      if let assigned = AssignedNumbers.name(of: format.uuid) {
        #expect(format.name == assigned, "\(format.uuid)")
      }
    }
  }

  /// The listing is dissector text that parses back into the same format.
  @Test func listingParsesBackToTheSameFormat() throws {
    for format in DissectorLibrary.builtin.formats {
      var out = OutputBuffer(fd: -1)
      out.appendDissectorDefinition(format)
      let text = String(decoding: out.bytes, as: UTF8.self)
      let again = try #require(try DissectorFile.parse(path: format.path, text: text).first, "\(text)")
      #expect(Self.withoutPositions(again.fields) == Self.withoutPositions(format.fields), "\(text)")
      #expect(again.name == format.name && again.uuid == format.uuid && again.kind == format.kind)
    }
  }

  static func withoutPositions(_ fields: [DissectorField]) -> [DissectorField] {
    fields.map { field in
      var copy = field
      copy.line = 0
      copy.column = 0
      copy.bits = field.bits.map { bits in
        var b = bits
        b.line = 0
        b.column = 0
        return b
      }
      copy.children = withoutPositions(field.children)
      return copy
    }
  }

  /// One value per built-in format, annotated the way Wireshark would print it, and the
  /// one-line text `show` prints for it.
  static let fixtures: [(uuid: String, hex: String, text: String)] = [
    // Device Name: "Polar H10"
    ("2a00", "506f6c617220483130", "Name \"Polar H10\""),
    // Appearance: 0x0341 Heart Rate Sensor: Heart Rate Belt
    ("2a01", "4103", "Appearance Heart Rate Sensor: Heart Rate Belt"),
    // Peripheral Privacy Flag: 0 (disabled)
    ("2a02", "00", "Peripheral Privacy Flag Privacy is disabled in this device"),
    // Reconnection Address: 0xabcdef123456
    ("2a03", "563412efcdab", "Reconnection Address 0xabcdef123456"),
    // PPCP: min 6 (7.5 ms), max 12 (15 ms), latency 0, timeout 200 (2 s)
    (
      "2a04", "06000c000000c800",
      "Minimum Connection Interval 7.5 ms, Maximum Connection Interval 15 ms, Peripheral Latency 0, Connection Supervision Timeout Multiplier 2000 ms"
    ),
    // Central Address Resolution: supported
    ("2aa6", "01", "Central Address Resolution Support Address resolution is supported in this device"),
    // Resolvable Private Address Only: 0
    (
      "2ac9", "00",
      "Resolvable Private Address Only Only Resolvable Private Addresses will be used as local addresses after bonding"
    ),
    // Service Changed: 0x0001-0xffff
    (
      "2a05", "0100ffff",
      "Start of Affected Attribute Handle Range 0x0001, End of Affected Attribute Handle Range 0xffff"
    ),
    // Client Supported Features: Robust Caching, EATT, Multiple Notifications
    ("2b29", "07", "Client Supported Features Robust Caching|Enhanced ATT bearer|Multiple Handle Value Notifications"),
    // Database Hash
    ("2b2a", "000102030405060708090a0b0c0d0e0f", "Database Hash 000102030405060708090a0b0c0d0e0f"),
    // Server Supported Features: EATT Supported
    ("2b3a", "01", "Server Supported Features EATT Supported"),
    // System ID: Manufacturer Identifier 0x6789abcdef, OUI 0x012345 (little-endian)
    ("2a23", "efcdab8967452301", "Manufacturer Identifier 0x6789abcdef, Organizationally Unique Identifier 0x012345"),
    // Model Number: "H10-2020"
    ("2a24", "4831302d32303230", "Model Number \"H10-2020\""),
    // Serial Number
    ("2a25", "43343331303030", "Serial Number \"C431000\""),
    // Firmware Revision: "2.1.9"
    ("2a26", "322e312e39", "Firmware Revision \"2.1.9\""),
    // Hardware Revision
    ("2a27", "303034342e31", "Hardware Revision \"0044.1\""),
    // Software Revision
    ("2a28", "332e302e3536", "Software Revision \"3.0.56\""),
    // Manufacturer Name String "Polar Electro" padded with a NUL
    ("2a29", "506f6c617220456c656374726f00", "Manufacturer Name \"Polar Electro\""),
    // IEEE 11073 regulatory list (opaque)
    ("2a2a", "fe0400010201", "Regulatory Certification Data List fe0400010201"),
    // PnP ID: SIG source, Apple, product 0x0001, version 0x0003
    (
      "2a50", "014c0001000300",
      "Vendor ID Source Bluetooth SIG-assigned Device ID Vendor ID value from the Assigned Numbers document, Vendor ID Apple, Inc., Product ID 0x0001, Product Version 0x0003"
    ),
    // Battery Level: 95 %
    ("2a19", "5f", "Battery Level 95 %"),
    // Battery Level State: 80 %, state 0xbb
    (
      "2a1b", "50bb",
      "Battery Level 80 %, Present Present, Discharging Not Discharging, Charging Charging, Level Good Level"
    ),
    // Battery Level Status: Flags 0x03 (Identifier, Battery Level), Power State 0x0062, Identifier 0x0020, 90 %
    (
      "2bed", "03620020005a",
      "Battery Present No, Wired External Power Source Connected Yes, Wireless External Power Source Connected No, Battery Charge State Discharging: Inactive, Battery Charge Level Unknown, Charging Type Unknown or Not Charging, Identifier 0x0020, Battery Level 90 %"
    ),
    // Heart Rate Measurement: Flags 0x16 (UINT8, contact detected, RR present), 72 bpm, RR 0x0303 and 0x0321 (1/1024 s)
    (
      "2a37", "164803032103",
      "Sensor Contact Status Detected, Heart Rate Measurement Value 72 bpm, RR-Interval 0.75293 s, 0.78223 s"
    ),
    // Body Sensor Location: Chest
    ("2a38", "01", "Body Sensor Location Chest"),
    // Heart Rate Control Point: Reset Energy Expended
    ("2a39", "01", "Heart Rate Control Point Reset Energy Expended"),
    // Alert Level: High Alert
    ("2a06", "02", "Alert Level High Alert"),
    // Tx Power Level: -10 dBm
    ("2a07", "f6", "Tx Power -10 dBm"),
    // Date Time: 2024-05-24 09:30:00
    ("2a08", "e8070518091e00", "Year 2024, Month 5, Day 24, Hours 9, Minutes 30, Seconds 0"),
    // Day of Week: Friday
    ("2a09", "05", "Day of Week Friday"),
    // Day Date Time: 2024-05-24 09:30:00 Friday
    (
      "2a0a", "e8070518091e0005",
      "Date Time (Year 2024, Month 5, Day 24, Hours 9, Minutes 30, Seconds 0), Day of Week Friday"
    ),
    // Exact Time 256: ... fractions 128/256
    (
      "2a0c", "e8070518091e000580",
      "Date Time (Year 2024, Month 5, Day 24, Hours 9, Minutes 30, Seconds 0), Day of Week Friday, Fractions256 0.5 s"
    ),
    // DST Offset: Daylight Time
    ("2a0d", "04", "DST Offset Daylight Time (+1h)"),
    // Time Zone: +4 x 15 min = +60 min
    ("2a0e", "04", "Time Zone 60 min"),
    // Local Time Information: +120 min, Daylight Time
    ("2a0f", "0804", "Time Zone 120 min, Daylight Saving Time Daylight Time (+1h)"),
    // Time with DST
    (
      "2a11", "e8070518091e0004",
      "Date Time (Year 2024, Month 5, Day 24, Hours 9, Minutes 30, Seconds 0), DST Offset Daylight Time (+1h)"
    ),
    // Time Accuracy: 12/8 = 1.5 s
    ("2a12", "0c", "Accuracy 1.5 s"),
    // Time Source: GPS
    ("2a13", "02", "Time Source GPS"),
    // Reference Time Information: GPS, 1.5 s, 255+ days, 5 h
    (
      "2a14", "020cff05",
      "Time Source GPS, Time Accuracy 1.5 s, Days Since Update 255 or more days, Hours Since Update 5 h"
    ),
    // Time Update Control Point: Get Reference Update
    ("2a16", "01", "Time Update Control Point Get Reference Update"),
    // Time Update State: Idle, Timeout
    ("2a17", "0004", "Current State Idle, Result Timeout"),
    // Current Time: ... adjust reason manual
    (
      "2a2b", "e8070518091e00050001",
      "Date Time (Year 2024, Month 5, Day 24, Hours 9, Minutes 30, Seconds 0), Day of Week Friday, Fractions256 0 s, Adjust Reason Manual time update"
    ),
    // Temperature Measurement: Flags 0x06 (Celsius, Time Stamp, Type), FLOAT 0xff00016f = 36.7, 2024-05-24 12:30:00, Ear
    (
      "2a1c", "066f0100ffe80705180c1e0003",
      "Temperature Measurement Value (Celsius) 36.7 °C, Time Stamp (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0), Temperature Type Ear (usually earlobe)"
    ),
    // Temperature Type: Body (general)
    ("2a1d", "02", "Temperature Text Description Body (general)"),
    // Intermediate Temperature: Flags 0x01 (Fahrenheit), FLOAT 0xff0003f0 = 100.8
    ("2a1e", "01f00300ff", "Temperature Measurement Value (Fahrenheit) 100.8 °F"),
    // Measurement Interval: 300 s
    ("2a21", "2c01", "Measurement Interval 300 s"),
    // Blood Pressure Measurement: Flags 0x1e (mmHg, Time Stamp, Pulse Rate, User ID, Status), 116/80/89 mmHg SFLOAT, 2024-05-24 12:30:00, 72 bpm, user 1, status 0x0000
    (
      "2a35", "1e740050005900e80705180c1e004800010000",
      "Blood Pressure Measurement Compound Value - Systolic (mmHg) 116 mmHg, Blood Pressure Measurement Compound Value - Diastolic (mmHg) 80 mmHg, Blood Pressure Measurement Compound Value - Mean Arterial Pressure (mmHg) 89 mmHg, Time Stamp (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0), Pulse Rate 72 bpm, User ID 1, Body Movement Detection Flag No body movement, Cuff Fit Detection Flag Cuff fits properly, Irregular Pulse Detection Flag No irregular pulse detected, Pulse Rate Range Detection Flags Pulse rate is within the range, Measurement Position Detection Flag Proper measurement position"
    ),
    // Intermediate Cuff Pressure: Flags 0x00 (mmHg), 160 mmHg, diastolic and MAP NaN (0x07ff)
    (
      "2a36", "00a000ff07ff07",
      "Intermediate Cuff Pressure Compound Value - Current Cuff Pressure (mmHg) 160 mmHg, Intermediate Cuff Pressure Compound Value - Diastolic (unused) NaN, Intermediate Cuff Pressure Compound Value - Mean Arterial Pressure (unused) NaN"
    ),
    // Blood Pressure Feature: body movement, cuff fit, multiple bond
    (
      "2a49", "2300",
      "Blood Pressure Feature Body Movement Detection Support|Cuff Fit Detection Support|Multiple Bond Support"
    ),
    // Glucose Measurement: Flags 0x0b (Time Offset, Concentration, Status), seq 5, 2024-05-24 12:30:00, -10 min, SFLOAT 0xb05f = 95e-5 kg/L, Type/Location 0x11, Status 0x0001
    (
      "2a18", "0b0500e80705180c1e00f6ff5fb0110100",
      "Sequence Number 5, Base Time (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0), Time Offset -10 min, Glucose Concentration 0.00095 kg/L, Type Capillary Whole blood, Sample Location Finger, Sensor Status Annunciation Device battery low at time of measurement"
    ),
    // Glucose Feature: low battery, malfunction, multiple bond
    (
      "2a51", "0304",
      "Glucose Feature Low Battery Detection During Measurement Supported|Sensor Malfunction Detection Supported|Multiple Bond Supported"
    ),
    // Record Access Control Point: Response Code (0x06), Operator Null, request Report stored records, Success
    (
      "2a52", "06000101",
      "Op Code Response Code, Operator Null, Request Op Code Report stored records, Response Code Value Success"
    ),
    // RSC Measurement: Flags 0x07 (stride, distance, running), 0x0400/256 = 4 m/s, 90 /min, 100 x 0.01 m, 1000 x 0.1 m
    (
      "2a53", "0700045a6400e8030000",
      "Walking or Running Status Running, Instantaneous Speed 4 m/s, Instantaneous Cadence 90 /min, Instantaneous Stride Length 1 m, Total Distance 100 m"
    ),
    // RSC Feature
    (
      "2a54", "0700",
      "RSC Feature Instantaneous Stride Length Measurement Supported|Total Distance Measurement Supported|Walking or Running Status Supported"
    ),
    // SC Control Point: Response Code (0x10) to Update Sensor Location, Success, locations 1 and 2
    (
      "2a55", "1003010102",
      "Op Code Response Code, Request Op Code Update Sensor Location, Response Value Success, Response Parameter Top of shoe, In shoe"
    ),
    // CSC Measurement: Flags 0x03, wheel revolutions 1, 1000/1024 s, crank revolutions 20, 0xfc00/1024 = 63 s
    (
      "2a5b", "0301000000e803140000fc",
      "Cumulative Wheel Revolutions 1, Last Wheel Event Time 0.97656 s, Cumulative Crank Revolutions 20, Last Crank Event Time 63 s"
    ),
    // CSC Feature
    ("2a5c", "0300", "CSC Feature Wheel Revolution Data Supported|Crank Revolution Data Supported"),
    // Sensor Location: Rear Wheel
    ("2a5d", "0c", "Sensor Location Rear Wheel"),
    // Cycling Power Measurement: Flags 0x0020 (crank data), 150 W, 20 revolutions, 0xfc00/1024 = 63 s
    (
      "2a63", "20009600140000fc",
      "Pedal Power Balance Reference Unknown, Accumulated Torque Source Wheel Based, Instantaneous Power 150 W, Crank Revolution Data - Cumulative Crank Revolutions 20, Crank Revolution Data - Last Crank Event Time 63 s"
    ),
    // Cycling Power Feature: 0x0001000c (wheel, crank, torque based)
    (
      "2a65", "0c000100",
      "Cycling Power Feature Wheel Revolution Data Supported|Crank Revolution Data Supported, Sensor Measurement Context Torque based, Distributed System Support Unspecified (legacy sensor)"
    ),
    // Magnetic Declination: 50.00 deg
    ("2a2c", "8813", "Magnetic Declination 50 °"),
    // Elevation: 50.00 m
    ("2a6c", "881300", "Elevation 50 m"),
    // Pressure: 1017000 x0.1 = 101700.0 Pa
    ("2a6d", "a0860f00", "Pressure 101750.4 Pa"),
    // Temperature: 36.94 C
    ("2a6e", "6e0e", "Temperature 36.94 °C"),
    // Humidity: unknown
    ("2a6f", "ffff", "Humidity Value is not known"),
    // True Wind Speed: 5.00 m/s
    ("2a70", "f401", "True Wind Speed 5 m/s"),
    // True Wind Direction: 75.00 deg
    ("2a71", "4c1d", "True Wind Direction 75 °"),
    // Apparent Wind Speed
    ("2a72", "f401", "Apparent Wind Speed 5 m/s"),
    // Apparent Wind Direction
    ("2a73", "4c1d", "Apparent Wind Direction 75 °"),
    // Gust Factor: 1.5
    ("2a74", "0f", "Gust Factor 1.5"),
    // Pollen Concentration: 10000 /m3
    ("2a75", "102700", "Pollen Concentration 10000 /m³"),
    // UV Index: 7
    ("2a76", "07", "UV Index 7"),
    // Irradiance: 100.0 W/m2
    ("2a77", "e803", "Irradiance 100 W/m²"),
    // Rainfall: 12 mm
    ("2a78", "0c00", "Rainfall 12 mm"),
    // Wind Chill: -5 C
    ("2a79", "fb", "Wind Chill -5 °C"),
    // Heat Index: 30 C
    ("2a7a", "1e", "Heat Index 30 °C"),
    // Dew Point: 10 C
    ("2a7b", "0a", "Dew Point 10 °C"),
    // Barometric Pressure Trend: Steady
    ("2aa3", "09", "Barometric Pressure Trend Steady"),
    // Aerobic Heart Rate Lower Limit: 120 bpm
    ("2a7e", "78", "Aerobic Heart Rate Lower Limit 120 bpm"),
    // Age: 42
    ("2a80", "2a", "Age 42 years"),
    // Date of Birth: 1984-12-25
    ("2a85", "c0070c19", "Year 1984, Month 12, Day 25"),
    // Email Address: a@b.org
    ("2a87", "6140622e6f7267", "Email Address \"a@b.org\""),
    // First Name: Ada
    ("2a8a", "416461", "First Name \"Ada\""),
    // Gender: Female
    ("2a8c", "01", "Gender Female"),
    // Heart Rate Max: 190 bpm
    ("2a8d", "be", "Heart Rate Max 190 bpm"),
    // Height: 1.80 m
    ("2a8e", "b400", "Height 1.8 m"),
    // Last Name: Lovelace
    ("2a90", "4c6f76656c616365", "Last Name \"Lovelace\""),
    // Weight: 14860 x 0.005 = 74.3 kg
    ("2a98", "0c3a", "Weight 74.3 kg"),
    // Database Change Increment: 7
    ("2a99", "07000000", "Database Change Increment 7"),
    // User Index: Unknown User
    ("2a9a", "ff", "User Index Unknown User"),
    // User Control Point: Response Code (0x20) to Register New User, Success, user index 10
    (
      "2a9f", "2001010a",
      "Op Code Response Code, Request Op Code Register New User, Response Value Success, Response Parameter 10"
    ),
    // Weight Measurement: Flags 0x0e (SI, Time Stamp, User ID, BMI and Height), 14860 x 0.005 kg, ts, user 1, BMI 24.5, 1800 x 0.001 m
    (
      "2a9d", "0e0c3ae80705180c1e0001f5000807",
      "Weight - SI 74.3 kg, Time Stamp (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0), User ID 1, BMI 24.5 kg/m², Height - SI 1.8 m"
    ),
    // Weight Scale Feature: 0x0000010e (multiple users, BMI, weight resolution 1, height resolution 2)
    (
      "2a9e", "0e010000",
      "Weight Scale Feature Multiple Users Supported|BMI Supported, Weight Measurement Resolution Resolution of 0.5 kg or 1 lb, Height Measurement Resolution Resolution of 0.005 meter or 0.5 inch"
    ),
    // Body Composition Feature: 0x0001be03 (time stamp, multiple users, weight, height; resolutions 7 and 3)
    (
      "2a9b", "03be0100",
      "Body Composition Feature Time Stamp Supported|Multiple Users Supported|Weight Supported|Height Supported, Mass Measurement Resolution Resolution of 0.005 kg or 0.01 lb, Height Measurement Resolution Resolution of 0.001 meter or 0.1 inch"
    ),
    // Body Composition Measurement: Flags 0x0c06 (SI, Time Stamp, User ID, Weight, Height), 22.5 %, ts, user 1, 74.3 kg, 1.8 m
    (
      "2a9c", "060ce100e80705180c1e00010c3a0807",
      "Body Fat Percentage 22.5 %, Time Stamp (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0), User ID 1, Weight - Kilograms 74.3 kg, Height - Meters 1.8 m"
    ),
    // PLX Spot-Check Measurement: Flags 0x03 (Timestamp, Status), SpO2 98 %, PR 98 bpm, ts, status 0x0000
    (
      "2a5e", "0362006200e80705180c1e000000",
      "SpO2PR-Spot-Check - SpO2 98 %, SpO2PR-Spot-Check - PR 98 bpm, Timestamp (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0), Measurement Status 0x0000"
    ),
    // PLX Continuous Measurement: Flags 0x00, SpO2 98 %, PR 100 bpm
    ("2a5f", "0062006400", "SpO2PR-Normal - SpO2 98 %, SpO2PR-Normal - PR 100 bpm"),
    // PLX Features: 0x0003 (status, device status), status support 0x0008, device support 0x000010
    ("2a60", "03000800100000", "Measurement Status Support 0x0008, Device and Sensor Status Support 0x000010"),
    // Alert Status: ringer active, display active
    (
      "2a3f", "05",
      "Ringer State Ringer State active, Vibrate State Vibrate State not active, Display Alert Status Display Alert State active"
    ),
    // Ringer Control Point: Silent Mode
    ("2a40", "01", "Ringer Control Point Silent Mode"),
    // Ringer Setting: Ringer Normal
    ("2a41", "01", "Ringer Setting Ringer Normal"),
    // Alert Category ID: Call
    ("2a43", "03", "Alert Category ID Call"),
    // Alert Notification Control Point: enable new incoming for Call
    ("2a44", "0003", "Command ID Enable New Incoming Alert Notification, Category ID Call"),
    // Unread Alert Status: Email, 2
    ("2a45", "0102", "Category ID Email, Unread count 2"),
    // New Alert: Call, 1, "Ada"
    ("2a46", "0301416461", "Category ID Call, Number of New Alert 1, Text String Information \"Ada\""),
    // HID Information: bcdHID 0x0111, country 0, NormallyConnectable
    ("2a4a", "11010002", "bcdHID 0x0111, bCountryCode 0, Flags NormallyConnectable"),
    // Report Map bytes
    ("2a4b", "05010902a101", "Report Map Value 05010902a101"),
    // HID Control Point: Suspend
    ("2a4c", "00", "HID Control Point Command Suspend"),
    // Protocol Mode: Report
    ("2a4e", "01", "Protocol Mode Value Report Protocol Mode"),
    // Scan Interval Window: 96 x 0.625 = 60 ms, 48 -> 30 ms
    ("2a4f", "60003000", "LE_Scan_Interval 60 ms, LE_Scan_Window 30 ms"),
    // Scan Refresh
    ("2a31", "00", "Scan Refresh Value Server Requires Refresh"),
    // Extended Properties: Reliable Write
    ("2900", "0100", "Characteristic Extended Properties Reliable Write"),
    // User Description: "Heart Rate"
    ("2901", "48656172742052617465", "Characteristic User Description \"Heart Rate\""),
    // CCCD: Indication
    ("2902", "0200", "Characteristic Configuration Bits Indication"),
    // SCCD: Broadcast
    ("2903", "0100", "Characteristic Configuration Bits Broadcast"),
    // Characteristic Presentation Format: sint16, exponent -2, unit 0x272f (degree Celsius), SIG namespace, description 0
    (
      "2904", "0efe2f27010000",
      "Format sint16, Exponent -2, Unit Celsius temperature (degree Celsius), Name Space Bluetooth SIG Assigned Numbers, Description unknown"
    ),
    // Aggregate Format: 0x0010, 0x0014
    ("2905", "10001400", "Attribute Handle 0x0010, 0x0014"),
    // Valid Range: 00..64
    ("2906", "0064", "Lower and Upper Inclusive Values 0064"),
    // External Report Reference: 2a19
    ("2907", "192a", "External Report Reference 2a19 (Battery Level)"),
    // Report Reference: id 1, Input Report
    ("2908", "0101", "Report ID 1, Report Type Input Report"),
    // Number of Digitals: 4
    ("2909", "04", "Number of Digitals 4"),
    // Value Trigger Setting: crossed a boundary, 0x64
    ("290a", "0164", "Condition Analog - Crossed a boundary, Comparison Value 64"),
    // ES Configuration: Boolean OR
    ("290b", "01", "Trigger Logic Value Boolean OR"),
    // Environmental Sensing Measurement: flags 0, Arithmetic Mean, 60 s, 60 s, Air, 20 x 0.5 %
    (
      "290c", "0000023c00003c00000114",
      "Flags 0x0000, Sampling Function Arithmetic Mean, Measurement Period 60 s, Update Interval 60 s, Application Air, Measurement Uncertainty 10 %"
    ),
    // ES Trigger Setting: fixed interval 60 s
    ("290d", "013c0000", "Condition Use a fixed time interval between transmissions, Operand 60 s"),
    // Time Trigger Setting: not more often than 10 s
    ("290e", "020a0000", "Condition Not indicated or notified more often than a settable time, Time Interval 10 s"),
    // Exact Time 100: 2024-05-24 09:30:00, Friday, Fractions100 50 (0.5 s)
    (
      "2a0b", "e8070518091e000532",
      "Date Time (Year 2024, Month 5, Day 24, Hours 9, Minutes 30, Seconds 0), Day of Week Friday, Fractions100 0.5 s"
    ),
    // Battery Power State: 0xbb = Present 3, Discharging 2 (Not Discharging), Charging 3, Level 2 (Good)
    ("2a1a", "bb", "Present Present, Discharging Not Discharging, Charging Charging, Level Good Level"),
    // Battery Critical Status: 0x02 = Immediate Service Required
    ("2be9", "02", "Battery Critical Status Immediate Service Required"),
    // Temperature Celsius: 245 x 0.1 = 24.5 °C
    ("2a1f", "f500", "Temperature Celsius 24.5 °C"),
    // Temperature Fahrenheit: -45 x 0.1 = -4.5 °F
    ("2a20", "d3ff", "Temperature Fahrenheit -4.5 °F"),
    // Removable: 2 (Removable)
    ("2a3a", "02", "Removable Removable"),
    // Service Required: 1 (No Service Required)
    ("2a3b", "01", "Service Required No Service Required"),
    // Scientific Temperature Celsius: float64 25.125
    ("2a3c", "0000000000203940", "Scientific Temperature Celsius 25.125 °C"),
    // String: "Hello"
    ("2a3d", "48656c6c6f", "String \"Hello\""),
    // Network Availability: 1 (One or more networks available)
    ("2a3e", "01", "Network Availability One or more networks available"),
    // Alert Category ID Bit Mask: 0x0a (Email, Call), 0x02 (Instant Message)
    ("2a42", "0a02", "Category ID Bit Mask 0 Email|Call, Category ID Bit Mask 1 Instant Message"),
    // Supported New Alert Category: 0x81 (Simple Alert, Schedule), one octet
    ("2a47", "81", "Category ID Bit Mask 0 Simple Alert|Schedule"),
    // Supported Unread Alert Category: 0x09 (Simple Alert, Call), 0x01 (High Prioritized Alert)
    ("2a48", "0901", "Category ID Bit Mask 0 Simple Alert|Call, Category ID Bit Mask 1 High Prioritized Alert"),
    // Boot Keyboard Input Report: modifiers 0x02 (Left Shift), reserved 0, keys 0x0b (h) 0x0c (i) 0 0 0 0
    ("2a22", "02000b0c00000000", "Modifier Keys Left Shift, Reserved 0, Keycode 0x0b, 0x0c, 0x00, 0x00, 0x00, 0x00"),
    // Boot Keyboard Output Report: 0x03 (Num Lock, Caps Lock)
    ("2a32", "03", "LEDs Num Lock|Caps Lock"),
    // Boot Mouse Input Report: buttons 0x05 (1, 3), X -2, Y 5, device specific 01
    ("2a33", "05fe0501", "Buttons Button 1|Button 3, X Displacement -2, Y Displacement 5, Device specific 01"),
    // Digital: 0xe4 = states 0 (Inactive), 1 (Active), 2 (Tri-state), 3 (Output-state)
    ("2a56", "e4", "Digital (Digital Inactive, Digital Active, Digital Tri-state, Digital Output-state)"),
    // Analog: 0x1234 (4660)
    ("2a58", "3412", "Analog 4660"),
    // Cycling Power Vector: flags 0x17 (crank, first angle, force array; Tangential), crank revs 300, time 2048/1024 s, angle 45°, forces 120 N, -80 N
    (
      "2a64", "172c0100082d007800b0ff",
      "Instantaneous Measurement Direction Tangential Component, Crank Revolution Data - Cumulative Crank Revolutions 300, Crank Revolution Data - Last Crank Event Time 2 s, First Crank Measurement Angle 45 °, Instantaneous Force Magnitude Array 120 N, -80 N"
    ),
    // Cycling Power Control Point: Set Cumulative Value 1000
    ("2a66", "01e8030000", "Op Code Set Cumulative Value, Cumulative Value 1000"),
    // Location and Speed: flags 0x02ff (all present, Position Ok, 3D), speed 1000 (10 m/s), distance 12345 dm, lat 51.5°, lon -0.125°, elevation 25.5 m, heading 90°, rolling 30 s, UTC 2024-05-24 12:30:00
    (
      "2a67", "ff02e803393000c046b21e30edecfff6090028231ee80705180c1e00",
      "Position Status Position Ok, Speed and Distance format 3D, Elevation Source Positioning System, Heading Source Heading based on movement, Instantaneous Speed 10 m/s, Total Distance 1234.5 m, Location - Latitude 51.5 °, Location - Longitude -0.125 °, Elevation 25.5 m, Heading 90 °, Rolling Time 30 s, UTC Time (Year 2024, Month 5, Day 24, Hours 12, Minutes 30, Seconds 0)"
    ),
    // Navigation: flags 0x008f (remaining distance, vertical, ETA, Position Ok, waypoint reached), bearing 45°, heading 90°, remaining 500 m, vertical -3.5 m, ETA 2024-05-24 13:00:00
    (
      "2a68", "8f0094112823881300a2feffe80705180d0000",
      "Flags Waypoint Reached, Position Status Position Ok, Heading Source Heading based on movement, Navigation Indicator Type To Waypoint, Bearing 45 °, Heading 90 °, Remaining Distance 500 m, Remaining Vertical Distance -3.5 m, Estimated Time of Arrival (Year 2024, Month 5, Day 24, Hours 13, Minutes 0, Seconds 0)"
    ),
    // Position Quality: flags 0x00ff (all present, Position Ok), 6 in solution, 9 in view, TTFF 30.5 s, EHPE 2.5 m, EVPE 4 m, HDOP 1, VDOP 1.4
    (
      "2a69", "ff0006093101fa000000900100000507",
      "Position Status Position Ok, Number of Beacons in Solution 6, Number of Beacons in View 9, Time to First Fix 30.5 s, EHPE 2.5 m, EVPE 4 m, HDOP 1, VDOP 1.4"
    ),
    // LN Feature: 0x001f007f (speed ... UTC time; VDOP, masking, fix rate, elevation, position status)
    (
      "2a6a", "7f001f00",
      "LN Feature Instantaneous Speed Supported|Total Distance Supported|Location Supported|Elevation Supported|Heading Supported|Rolling Time Supported|UTC Time Supported|Vertical Dilution of Precision Supported|Location and Speed Characteristic Content Masking Supported|Fix Rate Setting Supported|Elevation Setting Supported|Position Status Supported"
    ),
    // LN Control Point: Navigation Control, Start notification of the Navigation characteristic
    (
      "2a6b", "0301",
      "Op Code Navigation Control, Navigation Control Start Notification of the Navigation characteristic"
    ),
    // Descriptor Value Changed: flags 0x0003 (Client, ES Trigger Settings changed), characteristic 2a6e
    (
      "2a7d", "03006e2a",
      "Flags Change to one or more ES Trigger Setting Descriptors, Source of Change Client, Characteristic UUID 2a6e (Temperature)"
    ),
    // Magnetic Flux Density - 2D: x 1000, y -24 (10^-7 T)
    ("2aa0", "e803e8ff", "Magnetic Flux Density - X-Axis 0.0001 T, Magnetic Flux Density - Y-Axis -0.0000024 T"),
    // Magnetic Flux Density - 3D: 1000, 24, -484 (10^-7 T)
    (
      "2aa1", "e80318001cfe",
      "Magnetic Flux Density - X-Axis 0.0001 T, Magnetic Flux Density - Y-Axis 0.0000024 T, Magnetic Flux Density - Z-Axis -0.0000484 T"
    ),
    // Aerobic Threshold: 140 bpm
    ("2a7f", "8c", "Aerobic Threshold 140 bpm"),
    // Anaerobic Heart Rate Lower Limit: 150 bpm
    ("2a81", "96", "Anaerobic Heart Rate Lower Limit 150 bpm"),
    // Anaerobic Heart Rate Upper Limit: 175 bpm
    ("2a82", "af", "Anaerobic Heart Rate Upper Limit 175 bpm"),
    // Anaerobic Threshold: 160 bpm
    ("2a83", "a0", "Anaerobic Threshold 160 bpm"),
    // Aerobic Heart Rate Upper Limit: 145 bpm
    ("2a84", "91", "Aerobic Heart Rate Upper Limit 145 bpm"),
    // Date of Threshold Assessment: 2024-10-15
    ("2a86", "e8070a0f", "Year 2024, Month 10, Day 15"),
    // Fat Burn Heart Rate Lower Limit: 100 bpm
    ("2a88", "64", "Fat Burn Heart Rate Lower Limit 100 bpm"),
    // Fat Burn Heart Rate Upper Limit: 120 bpm
    ("2a89", "78", "Fat Burn Heart Rate Upper Limit 120 bpm"),
    // Five Zone Heart Rate Limits: 114, 130, 150, 170 bpm
    (
      "2a8b", "728296aa",
      "Five Zone Heart Rate Limits - Very light / Light Limit 114 bpm, Five Zone Heart Rate Limits - Light / Moderate Limit 130 bpm, Five Zone Heart Rate Limits - Moderate / Hard Limit 150 bpm, Five Zone Heart Rate Limits - Hard / Maximum Limit 170 bpm"
    ),
    // Hip Circumference: 96 x 0.01 m
    ("2a8f", "6000", "Hip Circumference 0.96 m"),
    // Maximum Recommended Heart Rate: 180 bpm
    ("2a91", "b4", "Maximum Recommended Heart Rate 180 bpm"),
    // Resting Heart Rate: 60 bpm
    ("2a92", "3c", "Resting Heart Rate 60 bpm"),
    // Sport Type for Aerobic and Anaerobic Thresholds: 2 (Cycling (Ergometer))
    ("2a93", "02", "Sport Type for Aerobic and Anaerobic Thresholds Cycling (Ergometer)"),
    // Three Zone Heart Rate Limits: 125, 155 bpm
    (
      "2a94", "7d9b",
      "Three zone Heart Rate Limits - Light (Fat burn) / Moderate (Aerobic) Limit 125 bpm, Three zone Heart Rate Limits - Moderate (Aerobic) / Hard (Anaerobic) Limit 155 bpm"
    ),
    // Two Zone Heart Rate Limit: 130 bpm
    ("2a95", "82", "Two zone Heart Rate Limit - Fat burn / Fitness Limit 130 bpm"),
    // VO2 Max: 45 mL/kg/min
    ("2a96", "2d", "VO2 Max 45 mL/kg/min"),
    // Waist Circumference: 82 x 0.01 m
    ("2a97", "5200", "Waist Circumference 0.82 m"),
    // Language: "en"
    ("2aa2", "656e", "Language \"en\""),
    // Bond Management Control Point: 3 (Delete bond of requesting device (LE transport only)), authorization "1234"
    ("2aa4", "0331323334", "Op Code Delete bond of requesting device (LE transport only), Authorization Code \"1234\""),
    // Bond Management Feature: 0x51 (requesting both, requesting LE, all both), 0x30 (others both + code), 0x04 (identify)
    (
      "2aa5", "513004",
      "Bond Management Feature Delete bond of requesting device (BR/EDR and LE) supported|Delete bond of requesting device (LE transport only) supported|Remove all bonds on server (BR/EDR and LE) supported, Bond Management Feature (octet 2) Remove all but the active bond on server (BR/EDR and LE) supported|Authorization Code required for feature above, Bond Management Feature (octet 3) Identify yourself supported"
    ),
    // CGM Measurement: size 11, flags 0x83 (trend, quality, status octet), 100 mg/dL, 5 min, status 0x04 (sensor type incorrect), trend -1.0, quality 95 %
    (
      "2aa7", "0b836400050004f6ff5f00",
      "Size 11 B, CGM Glucose Concentration 100 mg/dL, Time Offset 5 min, Sensor Status Annunciation - Status-Octet Sensor type incorrect for device, CGM Trend Information -1 mg/dL/min, CGM Quality 95 %"
    ),
    // CGM Feature: 0x01e201 (calibration, low battery, multiple bond, multiple sessions, trend, quality), type 9 (ISF) location 5 (subcutaneous), CRC 0xffff (not supported)
    (
      "2aa8", "01e20159ffff",
      "CGM Feature Calibration Supported|Low Battery Detection supported|Multiple Bond supported|Multiple Sessions supported|CGM Trend Information supported|CGM Quality supported, CGM Type Interstitial Fluid (ISF), CGM Sample Location Subcutaneous tissue, E2E-CRC E2E-CRC not supported"
    ),
    // CGM Status: 15 min, status 0x03, cal/temp 0x04, warning 0x01, CRC 0xbbaa
    (
      "2aa9", "0f00030401aabb",
      "Time Offset 15 min, CGM Status - Status-Octet Session stopped|Device battery low, CGM Status - Cal/Temp-Octet Calibration recommended, CGM Status - Warning-Octet Sensor result lower than the Patient Low level, E2E-CRC 0xbbaa"
    ),
    // CGM Session Start Time: 2024-05-24 08:30:00, time zone +4 (60 min), DST 4 (+1h), CRC 0x3412
    (
      "2aaa", "e8070518081e0004041234",
      "Session Start Time (Year 2024, Month 5, Day 24, Hours 8, Minutes 30, Seconds 0), Time Zone 60 min, DST-Offset Daylight Time (+1h), E2E-CRC 0x3412"
    ),
    // CGM Session Run Time: 168 h, no CRC
    ("2aab", "a800", "CGM Session Run Time 168 h"),
    // CGM Specific Ops Control Point: Set CGM Communication Interval 5 min
    ("2aac", "0105", "Op Code Set CGM Communication Interval, Communication Interval 5 min"),
    // Indoor Positioning Configuration: 0x3d (coordinates, tx power, altitude, floor, uncertainty; WGS84)
    (
      "2aad", "3d",
      "Indoor Positioning Configuration Presence of coordinates in advertising packets|Presence of Tx Power field in advertising packets|Presence of Altitude field in advertising packets|Presence of Floor Number in advertising packets|Presence of Uncertainty in advertising packets, Coordinate system used in advertising packets WGS84 coordinate system"
    ),
    // Latitude: 515000000 x 10^-7 = 51.5°
    ("2aae", "c046b21e", "Latitude 51.5 °"),
    // Longitude: -1250000 x 10^-7 = -0.125°
    ("2aaf", "30edecff", "Longitude -0.125 °"),
    // Local North Coordinate: 1000 dm = 100 m
    ("2ab0", "e803", "Local North Coordinate 100 m"),
    // Local East Coordinate: -1000 dm = -100 m
    ("2ab1", "18fc", "Local East Coordinate -100 m"),
    // Uncertainty: 0x35 (Mobile, update time 2 (up to 6 s), precision 3 (2-5 m))
    ("2ab4", "35", "Stationary Mobile, Update Time Up to 6 s, Precision 2-5 m"),
    // Location Name: "Lobby"
    ("2ab5", "4c6f626279", "Location Name \"Lobby\""),
    // URI: "http://a.eu/x"
    ("2ab6", "687474703a2f2f612e65752f78", "URI \"http://a.eu/x\""),
    // HTTP Headers: "Host: a.eu"
    ("2ab7", "486f73743a20612e6575", "HTTP Headers \"Host: a.eu\""),
    // HTTP Status Code: 200, data status 0x05 (Headers Received, Body Received)
    ("2ab8", "c80005", "Status Code 200, Data Status Headers Received|Body Received"),
    // HTTP Entity Body: "{}"
    ("2ab9", "7b7d", "HTTP Entity Body \"{}\""),
    // HTTP Control Point: 1 (HTTP GET Request)
    ("2aba", "01", "HTTP Control Point HTTP GET Request"),
    // HTTPS Security: 1 (True)
    ("2abb", "01", "HTTPS Security True"),
    // OTS Feature: OACP 0x021b (create, delete, execute, read, abort), OLCP 0x0d (go to, request number, clear marking)
    (
      "2abd", "1b0200000d000000",
      "OACP Features OACP Create Op Code Supported|OACP Delete Op Code Supported|OACP Execute Op Code Supported|OACP Read Op Code Supported|OACP Abort Op Code Supported, OLCP Features OLCP Go To Op Code Supported|OLCP Request Number of Objects Op Code Supported|OLCP Clear Marking Op Code Supported"
    ),
    // Object Name: "log.txt"
    ("2abe", "6c6f672e747874", "Object Name \"log.txt\""),
    // Object Type: 2aca
    ("2abf", "ca2a", "Object Type 2aca"),
    // Object Size: current 4096, allocated 8192
    ("2ac0", "0010000000200000", "Current Size 4096 B, Allocated Size 8192 B"),
    // Object First-Created: 2024-01-12 08:30:00
    ("2ac1", "e807010c081e00", "Year 2024, Month 1, Day 12, Hours 8, Minutes 30, Seconds 0"),
    // Object Last-Modified: 2024-05-24 09:00:30
    ("2ac2", "e807051809001e", "Year 2024, Month 5, Day 24, Hours 9, Minutes 0, Seconds 30"),
    // Object ID: 0x000000000102
    ("2ac3", "020100000000", "Object ID 0x000000000102"),
    // Object Properties: 0x0d (Delete, Read, Write)
    ("2ac4", "0d000000", "Object Properties Delete|Read|Write"),
    // Object Action Control Point: Read, offset 0, length 4096
    ("2ac5", "050000000000100000", "Op Code Read, Offset 0 B, Length 4096 B"),
    // Object List Control Point: Go To object 0x000000000108
    ("2ac6", "05080100000000", "Op Code Go To, Object ID 0x000000000108"),
    // Object List Filter: Name Starts With "log"
    ("2ac7", "016c6f67", "Filter Name Starts With, Name \"log\""),
    // Object Changed: flags 0x05 (Client, metadata changed), object 0x000000000108
    (
      "2ac8", "05080100000000",
      "Flags Change occurred to the object metadata, Source of Change Client, Object ID 0x000000000108"
    ),
    // Fitness Machine Feature: 0x5207 (average speed, cadence, total distance, expended energy, elapsed time, power), targets 0x0c (resistance, power)
    (
      "2acc", "075200000c000000",
      "Fitness Machine Features Average Speed Supported|Cadence Supported|Total Distance Supported|Expended Energy Supported|Elapsed Time Supported|Power Measurement Supported, Target Setting Features Resistance Target Setting Supported|Power Target Setting Supported"
    ),
    // Treadmill Data: flags 0x0584 (distance, energy, heart rate, elapsed), 10.5 km/h, 1000 m, 180 kcal, 600 kcal/h, 10 kcal/min, 140 bpm, 1200 s
    (
      "2acd", "84051a04e80300b40058020a8cb004",
      "Instantaneous Speed 10.5 km/h, Total Distance 1000 m, Total Energy 180 kcal, Energy Per Hour 600 kcal, Energy Per Minute 10 kcal, Heart Rate 140 bpm, Elapsed Time 1200 s"
    ),
    // Cross Trainer Data: flags 0 (speed only), speed 1100 (11 km/h)
    ("2ace", "0000004c04", "Movement Direction Forward, Instantaneous Speed 11 km/h"),
    // Step Climber Data: flags 0x0002 (step per minute), floors 5, steps 100, 60 /min
    ("2acf", "0200050064003c00", "Floors 5, Step Count 100, Step per Minute 60 /min"),
    // Stair Climber Data: flags 0x0022 (step per minute, energy), floors 7, 45 /min, energy 30 kcal, 210 kcal/h, 4 kcal/min
    (
      "2ad0", "220007002d001e00d20004",
      "Floors 7, Step per Minute 45 /min, Total Energy 30 kcal, Energy Per Hour 210 kcal, Energy Per Minute 4 kcal"
    ),
    // Rower Data: flags 0x002c (distance, pace, power), stroke rate 22 /min, 250 strokes, 1200 m, pace 115 s, power 180 W
    (
      "2ad1", "2c002cfa00b004007300b400",
      "Stroke Rate 22 /min, Stroke Count 250, Total Distance 1200 m, Instantaneous Pace 115 s, Instantaneous Power 180 W"
    ),
    // Indoor Bike Data: flags 0x0044 (cadence, power), 25 km/h, cadence 80 /min, power 200 W
    (
      "2ad2", "4400c409a000c800",
      "Instantaneous Speed 25 km/h, Instantaneous Cadence 80 /min, Instantaneous Power 200 W"
    ),
    // Training Status: flags 0x01 (string), Warming Up, "Warm up"
    ("2ad3", "01025761726d207570", "Training Status Warming Up, Training Status String \"Warm up\""),
    // Supported Speed Range: 1 to 25 km/h, increment 0.1 km/h
    ("2ad4", "6400c4090a00", "Minimum Speed 1 km/h, Maximum Speed 25 km/h, Minimum Increment 0.1 km/h"),
    // Supported Inclination Range: -10 % to 20 %, increment 0.5 %
    ("2ad5", "9cffc8000500", "Minimum Inclination -10 %, Maximum Inclination 20 %, Minimum Increment 0.5 %"),
    // Supported Resistance Level Range: 1 to 20, increment 1
    ("2ad6", "0a00c8000a00", "Minimum Resistance Level 1, Maximum Resistance Level 20, Minimum Increment 1"),
    // Supported Heart Rate Range: 80 to 200 bpm, increment 5
    ("2ad7", "50c805", "Minimum Heart Rate 80 bpm, Maximum Heart Rate 200 bpm, Minimum Increment 5 bpm"),
    // Supported Power Range: 25 to 1500 W, increment 5 W
    ("2ad8", "1900dc050500", "Minimum Power 25 W, Maximum Power 1500 W, Minimum Increment 5 W"),
    // Fitness Machine Control Point: Set Target Power 200 W
    ("2ad9", "05c800", "Op Code Set Target Power, Target Power 200 W"),
    // Fitness Machine Status: Target Power Changed, 250 W
    ("2ada", "08fa00", "Op Code Target Power Changed, New Target Power 250 W"),
    // Glucose Measurement Context: flags 0x07 (carbohydrate, meal, tester-health), seq 1, Snack 25e-3 kg, Postprandial, tester Self health No health issues
    (
      "2a34", "0701000419d00251",
      "Sequence Number 1, Carbohydrate ID Snack, Carbohydrate 0.025 kg, Meal Postprandial (after meal), Tester Self, Health No health issues"
    ),
    // Boolean: True
    ("2ae2", "01", "Boolean True"),
    // Chromatic Distance From Planckian: -150 x 10^-5
    ("2ae3", "6aff", "Chromatic Distance From Planckian -0.0015"),
    // Chromaticity Coordinates: x 20627/65536, y 21450/65536
    ("2ae4", "9350ca53", "Chromaticity x-coordinate 0.314743, Chromaticity y-coordinate 0.327301"),
    // Chromaticity In CCT And Duv Values: 6500 K, Duv 0.00032
    ("2ae5", "64192000", "Correlated Color Temperature 6500 K, Chromaticity Distance From Planckian 0.00032"),
    // Chromaticity Tolerance: 50 x 0.0001
    ("2ae6", "32", "Chromaticity Tolerance 0.005"),
    // CIE 13.3-1995 Color Rendering Index: 92
    ("2ae7", "5c", "Color Rendering Index 92"),
    // Coefficient: float32 1.5
    ("2ae8", "0000c03f", "Coefficient 1.5"),
    // Correlated Color Temperature: 2700 K
    ("2ae9", "8c0a", "Correlated Color Temperature 2700 K"),
    // Count 16: 0xffff (Value is not known)
    ("2aea", "ffff", "Count 16 Value is not known"),
    // Count 24: 100000
    ("2aeb", "a08601", "Count 24 100000"),
    // Country Code: 578 (Norway)
    ("2aec", "4202", "Country Code 578"),
    // Date UTC: 19867 days since 1970-01-01 (2024-05-24)
    ("2aed", "9b4d00", "Date 19867 days"),
    // Electric Current: 150 x 0.01 A
    ("2aee", "9600", "Electric Current 1.5 A"),
    // Electric Current Range: 0.1 to 20 A
    ("2aef", "0a00d007", "Minimum Electric Current Value 0.1 A, Maximum Electric Current Value 20 A"),
    // Electric Current Specification: 0.1, 5, 20 A
    (
      "2af0", "0a00f401d007",
      "Minimum Electric Current Value 0.1 A, Typical Electric Current Value 5 A, Maximum Electric Current Value 20 A"
    ),
    // Energy: 1234 kWh
    ("2af2", "d20400", "Energy 1234 kWh"),
    // Energy In A Period Of Day: 12 kWh from 6.0 h to 18.0 h
    ("2af3", "0c00003cb4", "Energy 12 kWh, Start Time 6 h, End Time 18 h"),
    // Fixed String 8: "ABCDEFGH"
    ("2af8", "4142434445464748", "Fixed String 8 \"ABCDEFGH\""),
    // Fixed String 16: "Kitchen light" and NUL padding
    ("2af5", "4b69746368656e206c69676874000000", "Fixed String 16 \"Kitchen light\""),
    // Fixed String 24: "Serial 0123456789" and NUL padding
    ("2af6", "53657269616c203031323334353637383900000000000000", "Fixed String 24 \"Serial 0123456789\""),
    // Fixed String 36: a room name and NUL padding
    (
      "2af7", "4275696c64696e6720372c20666c6f6f7220332c20726f6f6d2031320000000000000000",
      "Fixed String 36 \"Building 7, floor 3, room 12\""
    ),
    // Fixed String 64: "A 64-octet string" and NUL padding
    (
      "2bde",
      "412036342d6f6374657420737472696e670000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
      "Fixed String 64 \"A 64-octet string\""
    ),
    // Generic Level: 32768
    ("2af9", "0080", "Generic Level 32768"),
    // Global Trade Item Number: 4006381333931
    ("2afa", "abadefcea403", "Global Trade Item Number 4006381333931"),
    // Illuminance: 50000 x 0.01 = 500 lx
    ("2afb", "50c300", "Illuminance 500 lx"),
    // Luminous Efficacy: 105 lm/W
    ("2afc", "1a04", "Luminous Efficacy 105 lm/W"),
    // Luminous Energy: 20 x 1000 lm·h
    ("2afd", "140000", "Luminous Energy 20000 lm·h"),
    // Luminous Exposure: 3 x 1000 lx·h
    ("2afe", "030000", "Luminous Exposure 3000 lx·h"),
    // Luminous Flux: 800 lm
    ("2aff", "2003", "Luminous Flux 800 lm"),
    // Luminous Flux Range: 100 to 1600 lm
    ("2b00", "64004006", "Minimum Luminous Flux 100 lm, Maximum Luminous Flux 1600 lm"),
    // Luminous Intensity: 250 cd
    ("2b01", "fa00", "Luminous Intensity 250 cd"),
    // Mass Flow: 12 g/s
    ("2b02", "0c00", "Mass Flow 12 g/s"),
    // Perceived Lightness: 40000
    ("2b03", "409c", "Perceived Lightness 40000"),
    // Percentage 8: 150 x 0.5 = 75 %
    ("2b04", "96", "Percentage 8 75 %"),
    // Power: 60.5 W
    ("2b05", "5d0200", "Power 60.5 W"),
    // Power Specification: 1, 60.5, 100 W
    ("2b06", "0a00005d0200e80300", "Minimum Power Value 1 W, Typical Power Value 60.5 W, Maximum Power Value 100 W"),
    // Relative Runtime In A Current Range: 50 % between 0.1 and 1.5 A
    ("2b07", "640a009600", "Relative Runtime Value 50 %, Minimum Current 0.1 A, Maximum Current 1.5 A"),
    // Relative Runtime In A Generic Level Range: 10 % between 0 and 32767
    ("2b08", "140000ff7f", "Relative Runtime Value 10 %, Minimum Generic Level 0, Maximum Generic Level 32767"),
    // Relative Value In A Voltage Range: 100 % between 3 and 4 V
    ("2b09", "c8c0000001", "Relative Value 100 %, Minimum Voltage 3 V, Maximum Voltage 4 V"),
    // Relative Value In An Illuminance Range: 5 % between 0 and 100 lx
    ("2b0a", "0a000000102700", "Relative Value 5 %, Minimum Illuminance 0 lx, Maximum Illuminance 100 lx"),
    // Relative Value In A Period Of Day: 25 % from 22.0 h to 6.0 h
    ("2b0b", "32dc3c", "Relative Value 25 %, Start Time 22 h, End Time 6 h"),
    // Relative Value In A Temperature Range: 15 % between -5 and 25 °C
    ("2b0c", "1e0cfec409", "Relative Value 15 %, Minimum Temperature Value -5 °C, Maximum Temperature Value 25 °C"),
    // Temperature 8: -9 x 0.5 = -4.5 °C
    ("2b0d", "f7", "Temperature 8 -4.5 °C"),
    // Temperature 8 In A Period Of Day: 20.5 °C from 0 h to 24 h
    ("2b0e", "2900f0", "Temperature 20.5 °C, Start Time 0 h, End Time 24 h"),
    // Temperature Range: 18 to 24 °C
    ("2b10", "08076009", "Minimum Temperature 18 °C, Maximum Temperature 24 °C"),
    // Time Decihour 8: 0xff (Value is not known)
    ("2b12", "ff", "Time Decihour 8 Value is not known"),
    // Time Hour 24: 8760 h
    ("2b14", "382200", "Time Hour 24 8760 h"),
    // Time Millisecond 24: 1.5 s
    ("2b15", "dc0500", "Time Millisecond 24 1.5 s"),
    // Time Second 16: 3600 s
    ("2b16", "100e", "Time Second 16 3600 s"),
    // Time Second 8: 30 s
    ("2b17", "1e", "Time Second 8 30 s"),
    // Time Second 32: 86400 s
    ("2be6", "80510100", "Time Second 32 86400 s"),
    // Voltage: 14720 / 64 = 230 V
    ("2b18", "8039", "Voltage 230 V"),
    // Voltage Specification: 200, 230, 250 V
    ("2b19", "00328039803e", "Minimum Voltage Value 200 V, Typical Voltage Value 230 V, Maximum Voltage Value 250 V"),
    // Voltage Frequency: 50 Hz
    ("2be8", "3200", "Voltage Frequency 50 Hz"),
    // High Voltage: 400 V
    ("2be0", "006400", "High Voltage 400 V"),
    // High Temperature: 1500 x 0.5 = 750 °C
    ("2bdf", "dc05", "High Temperature 750 °C"),
    // Volume Flow: 1.5 L/s
    ("2b1b", "dc05", "Volume Flow 1.5 L/s"),
    // Chromaticity Coordinate: 32768 / 65536 = 0.5
    ("2b1c", "0080", "Chromaticity Coordinate 0.5"),
    // Volume State: volume 128, Not Muted, change counter 7
    ("2b7d", "800007", "Volume_Setting 128, Mute Not Muted, Change_Counter 7"),
    // Volume Control Point: Set Absolute Volume, counter 7, volume 200
    ("2b7e", "0407c8", "Opcode Set Absolute Volume, Change_Counter 7, Volume_Setting 200"),
    // Volume Flags: User Set Volume Setting
    ("2b7f", "01", "Volume_Setting_Persisted User Set Volume Setting"),
    // Volume Offset State: offset -100, counter 3
    ("2b80", "9cff03", "Volume_Offset -100, Change_Counter 3"),
    // Audio Location: Front Left, Front Right
    ("2b81", "03000000", "Audio Location Front Left|Front Right"),
    // Volume Offset Control Point: Set Volume Offset, counter 3, offset 50
    ("2b82", "01033200", "Opcode Set Volume Offset, Change_Counter 3, Volume_Offset 50"),
    // Audio Output Description: "Left earbud"
    ("2b83", "4c65667420656172627564", "Audio Output Description \"Left earbud\""),
    // Audio Input State: gain -10, Not Muted, Manual, counter 9
    ("2b77", "f6000209", "Gain_Setting -10, Mute Not Muted, Gain_Mode Manual, Change_Counter 9"),
    // Gain Settings Attribute: units 5 (0.5 dB), minimum -64, maximum 63
    ("2b78", "05c03f", "Gain_Setting_Units 0.5 dB, Gain_Setting_Minimum -64, Gain_Setting_Maximum 63"),
    // Audio Input Status: Active
    ("2b7a", "01", "Audio Input Status Active"),
    // Audio Input Control Point: Set Gain Setting, counter 9, gain -20
    ("2b7b", "0109ec", "Opcode Set Gain Setting, Change_Counter 9, Gain_Setting -20"),
    // Audio Input Description: "Microphone"
    ("2b7c", "4d6963726f70686f6e65", "Audio Input Description \"Microphone\""),
    // Mute: Muted
    ("2bc3", "01", "Mute Muted"),
    // Coordinated Set Size: 2
    ("2b85", "02", "Coordinated Set Size 2"),
    // Set Member Lock: Locked
    ("2b86", "02", "Set Member Lock Locked"),
    // Set Member Rank: 1
    ("2b87", "01", "Set Member Rank 1"),
    // Sink Audio Locations: Front Left
    ("2bca", "01000000", "Sink Audio Locations Front Left"),
    // Source Audio Locations: Front Center
    ("2bcc", "04000000", "Source Audio Locations Front Center"),
    // Available Audio Contexts: sink Conversational|Media, source Conversational
    ("2bcd", "06000200", "Available_Sink_Contexts Conversational|Media, Available_Source_Contexts Conversational"),
    // Supported Audio Contexts: sink all twelve, source Unspecified|Conversational
    (
      "2bce", "ff0f0300",
      "Supported_Sink_Contexts Unspecified|Conversational|Media|Game|Instructional|Voice assistants|Live|Sound effects|Notifications|Ringtone|Alerts|Emergency alarm, Supported_Source_Contexts Unspecified|Conversational"
    ),
    // TMAP Role: Call Terminal, Unicast Media Receiver
    ("2b51", "0a00", "TMAP Role Call Terminal (CT)|Unicast Media Receiver (UMR)"),
    // Hearing Aid Features: Binaural, Independent Presets, Dynamic Presets
    ("2bda", "18", "Hearing Aid Features Independent Presets|Dynamic Presets, Hearing Aid Type Binaural Hearing Aid"),
    // Active Preset Index: 3
    ("2bdc", "03", "Active Preset Index 3"),
    // Content Control ID: 1
    ("2bba", "01", "Content Control ID 1"),
    // Media Player Name: "Music"
    ("2b93", "4d75736963", "Media Player Name \"Music\""),
    // Track Title: "Clair de lune"
    ("2b97", "436c616972206465206c756e65", "Track Title \"Clair de lune\""),
    // Track Duration: 310.5 s
    ("2b98", "4a790000", "Track Duration 310.5 s"),
    // Track Position: -1 (unavailable)
    ("2b99", "ffffffff", "Track Position Track position is unavailable"),
    // Media State: Paused
    ("2ba3", "02", "Media State Paused"),
    // Bearer Provider Name: "Carrier"
    ("2bb3", "43617272696572", "Bearer Provider Name \"Carrier\""),
    // Bearer Technology: LTE
    ("2bb5", "03", "Bearer Technology LTE"),
    // Status Flags: Inband Ringtone Enabled
    ("2bbb", "0100", "Inband Ringtone Enabled, Silent Mode Server is not in silent mode"),
    // Call State: call 1 Active incoming; call 2 Locally Held outgoing
    (
      "2bbd", "010300020401",
      "Call (Call_Index 1, State Active, Incoming/Outgoing Call is an incoming call), (Call_Index 2, State Locally Held, Incoming/Outgoing Call is an outgoing call)"
    ),
    // Termination Reason: call 1, Remote party ended the call
    ("2bc0", "0102", "Call_Index 1, Reason_Code Remote party ended the call"),
    // Incoming Call: call 2, "tel:+4712345678"
    ("2bc1", "0274656c3a2b34373132333435363738", "Call_Index 2, URI \"tel:+4712345678\""),
    // Call Friendly Name: call 2, "Ada"
    ("2bc2", "02416461", "Call_Index 2, Friendly_Name \"Ada\""),
  ]

  @Test("a built-in format decodes its fixture", arguments: fixtures)
  func fixture(uuid: String, hex: String, text: String) throws {
    let result = try #require(DissectorLibrary.builtin.decode(Self.bytes(hex), uuid: BluetoothUUID(uuid)!))
    #expect(result.diagnostic == nil, "\(result.problem ?? "")")
    var out = OutputBuffer(fd: -1)
    out.appendDecodedText(result.fields)
    #expect(String(decoding: out.bytes, as: UTF8.self) == text)
    var json = OutputBuffer(fd: -1)
    json.appendDecodedJSON(result.fields)
    #expect(
      (try? JSONSerialization.jsonObject(with: Data(json.bytes))) is [String: Any],
      "\(String(decoding: json.bytes, as: UTF8.self))")
  }

  /// The octets of a fixture's hex.
  static func bytes(_ hex: String) -> [UInt8] {
    stride(from: 0, to: hex.count, by: 2).map {
      UInt8(hex[hex.index(hex.startIndex, offsetBy: $0)..<hex.index(hex.startIndex, offsetBy: $0 + 2)], radix: 16)!
    }
  }

  @Test func everyBuiltinFormatHasAFixture() throws {
    let covered = Set(Self.fixtures.map(\.uuid))
    #expect(covered.count == Self.fixtures.count, "one fixture per format")
    for format in try Self.parsedFiles() where !format.fields.isEmpty {
      #expect(covered.contains(format.uuid.description), "no fixture for \(format.uuid) \(format.name)")
    }
  }
}
