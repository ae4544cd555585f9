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

  @Test func atLeastSixtyCharacteristicsAndTheCommonDescriptors() throws {
    let formats = try Self.parsedFiles()
    #expect(formats.count { $0.kind == .characteristic && !$0.fields.isEmpty } >= 60)
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
    let spelledDifferently: Set<String> = ["2a40", "2a5f"]
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
  ]

  @Test("a built-in format decodes its fixture", arguments: fixtures)
  func fixture(uuid: String, hex: String, text: String) throws {
    let bytes = stride(from: 0, to: hex.count, by: 2).map {
      UInt8(hex[hex.index(hex.startIndex, offsetBy: $0)..<hex.index(hex.startIndex, offsetBy: $0 + 2)], radix: 16)!
    }
    let result = try #require(DissectorLibrary.builtin.decode(bytes, uuid: BluetoothUUID(uuid)!))
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

  @Test func everyBuiltinFormatHasAFixture() throws {
    let covered = Set(Self.fixtures.map(\.uuid))
    #expect(covered.count == Self.fixtures.count, "one fixture per format")
    for format in try Self.parsedFiles() where !format.fields.isEmpty {
      #expect(covered.contains(format.uuid.description), "no fixture for \(format.uuid) \(format.name)")
    }
  }
}
