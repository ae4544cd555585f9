// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "bleanalyze",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "bleanalyze", targets: ["bleanalyze"]),
    .executable(name: "bleanalyze-fuzz", targets: ["bleanalyze-fuzz"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
  ],
  targets: [
    // System libraries.
    .systemLibrary(name: "CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
    .systemLibrary(name: "CBluetooth", pkgConfig: "bluez", providers: [.apt(["libbluetooth-dev"])]),
    .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

    // Pipeline: capture → dissect → analysis → output → CLI.
    .target(name: "BLECapture", dependencies: ["CPcap", "CBluetooth", "CZlib"]),
    .target(
      name: "BLEDissect",
      dependencies: ["BLECapture"],
      swiftSettings: [.enableExperimentalFeature("Lifetimes")]
    ),
    .target(name: "BLEAnalysis", dependencies: ["BLEDissect"]),
    .target(
      name: "BLEOutput", dependencies: ["BLEAnalysis"], resources: [.embedInCode("Schemas"), .embedInCode("Fleet")]),
    .executableTarget(
      name: "bleanalyze",
      dependencies: [
        "BLECapture", "BLEOutput",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),

    // Fuzzing: the targets (a library the regression tests call) and libFuzzer's
    // entry point or a replay tool (.ci/fuzz builds it with -DFUZZING).
    .target(name: "BLEFuzz", dependencies: ["BLECapture", "BLEOutput", "CZlib"]),
    .executableTarget(name: "bleanalyze-fuzz", dependencies: ["BLEFuzz"]),

    .testTarget(name: "BLECaptureTests", dependencies: ["BLECapture"]),
    .testTarget(
      name: "BLEDissectTests",
      dependencies: ["BLEDissect"],
      swiftSettings: [.enableExperimentalFeature("Lifetimes")]
    ),
    .testTarget(name: "BLEAnalysisTests", dependencies: ["BLEAnalysis"]),
    .testTarget(name: "BLEOutputTests", dependencies: ["BLEOutput"]),
    .testTarget(name: "EndToEndTests", dependencies: ["bleanalyze"], exclude: ["Golden", "ReportDOM"]),
    .testTarget(name: "BLEFuzzTests", dependencies: ["BLEFuzz"]),
  ]
)
