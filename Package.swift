// swift-tools-version: 6.1
import PackageDescription

/// Release builds optimize across the pipeline's modules: the record path calls small
/// accessors and generic helpers of the modules before it on every record.
let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

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
    .target(name: "BLECapture", dependencies: ["CPcap", "CBluetooth", "CZlib"], swiftSettings: crossModule),
    .target(
      name: "BLEDissect",
      dependencies: ["BLECapture"],
      swiftSettings: [.enableExperimentalFeature("Lifetimes")] + crossModule
    ),
    .target(name: "BLEAnalysis", dependencies: ["BLEDissect"], swiftSettings: crossModule),
    .target(
      name: "BLEOutput", dependencies: ["BLEAnalysis"], resources: [.embedInCode("Schemas"), .embedInCode("Fleet")],
      swiftSettings: crossModule),
    .executableTarget(
      name: "bleanalyze",
      dependencies: [
        "BLECapture", "BLEOutput",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: crossModule
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
