import Foundation
import Testing

@testable import BLECapture

@Suite struct CaptureFileTests {
  @Test func zeroLengthFileIsEmpty() throws {
    let error = try openError([])
    #expect(error?.reason == .empty)
    let sample = #expect(throws: CaptureError.self) { try CaptureFile.open(samplePath("empty.btsnoop")) }
    #expect(sample?.reason == .empty)
  }

  @Test func textFileIsNotACapture() throws {
    // "Hello, this is not a capture.\n"
    let bytes: [UInt8] = [
      0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x2C, 0x20, 0x74, 0x68, 0x69, 0x73, 0x20, 0x69, 0x73, 0x20, 0x6E,
      0x6F, 0x74, 0x20, 0x61, 0x20, 0x63, 0x61, 0x70, 0x74, 0x75, 0x72, 0x65, 0x2E, 0x0A,
    ]
    let error = try openError(bytes)
    #expect(error?.reason == .notACapture)
    #expect(error?.description.contains("expected btsnoop") == true)
    let sample = #expect(throws: CaptureError.self) { try CaptureFile.open(samplePath("not-a-capture.txt")) }
    #expect(sample?.reason == .notACapture)
  }

  @Test func missingFileCannotBeOpened() {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)").path
    let error = #expect(throws: CaptureError.self) { try CaptureFile.open(path) }
    guard case .cannotOpen(let why) = error?.reason else {
      Issue.record("expected cannotOpen, got \(String(describing: error))")
      return
    }
    #expect(why.contains("No such file"))
    #expect(error?.path == path)
  }

  @Test func directoryCannotBeOpened() {
    let error = #expect(throws: CaptureError.self) {
      try CaptureFile.open(FileManager.default.temporaryDirectory.path)
    }
    guard case .cannotOpen(let why) = error?.reason else {
      Issue.record("expected cannotOpen, got \(String(describing: error))")
      return
    }
    #expect(why.hasPrefix("is a directory, and not an Android bugreport or iOS sysdiagnose folder"))
  }
}
