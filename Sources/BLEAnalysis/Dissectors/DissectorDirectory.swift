import BLECapture
import BLEDissect

#if canImport(Glibc)
  import Glibc
#endif

/// Users' `*.dissector` files: the default per-user folder and the directories given
/// with `--dissectors`, read with plain system calls.
public enum DissectorDirectory {
  /// `${XDG_CONFIG_HOME:-~/.config}/bleanalyze/dissectors` (a relative XDG_CONFIG_HOME
  /// is ignored, as the XDG spec asks); nil without HOME.
  public static var defaultFolder: String? {
    if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") {
      return config + "/bleanalyze/dissectors"
    }
    guard let home = environment("HOME"), !home.isEmpty else { return nil }
    return home + "/.config/bleanalyze/dissectors"
  }

  static func environment(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The library of the built-ins, then the default folder's files (when it exists),
  /// then each directory's: a later file replaces an earlier format with the same UUID.
  public static func library(defaultFolder: String? = defaultFolder, directories: [String]) throws(DissectorLoadError)
    -> DissectorLibrary
  {
    var files: [(path: String, text: String)] = []
    if let defaultFolder {
      files += try self.files(in: defaultFolder, missingIsEmpty: true)
    }
    for directory in directories {
      files += try self.files(in: directory, missingIsEmpty: false)
    }
    guard !files.isEmpty else { return .builtin }
    do {
      return try DissectorLibrary(adding: files)
    } catch {
      throw .syntax(error)
    }
  }

  /// The `*.dissector` files under `directory` (subdirectories too), by path. A missing
  /// directory is empty when `missingIsEmpty`, else an error.
  public static func files(in directory: String, missingIsEmpty: Bool = false) throws(DissectorLoadError)
    -> [(path: String, text: String)]
  {
    var info = stat()
    guard stat(directory, &info) == 0 else {
      if errno == ENOENT && missingIsEmpty { return [] }
      throw .io(path: directory, message: errnoText())
    }
    guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .io(path: directory, message: "not a directory") }
    var paths: [String] = []
    try collect(directory, into: &paths, depth: 0)
    return try paths.sorted().map { path throws(DissectorLoadError) in (path, try contents(path)) }
  }

  static func collect(_ directory: String, into paths: inout [String], depth: Int) throws(DissectorLoadError) {
    guard depth < 8, let handle = opendir(directory) else {
      if depth >= 8 { return }
      throw .io(path: directory, message: errnoText())
    }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafePointer(to: &entry.pointee.d_name) {
        String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
      }
      if !name.hasPrefix(".") { names.append(name) }
    }
    for name in names {
      let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
      var info = stat()
      guard stat(path, &info) == 0 else { continue }
      if (info.st_mode & S_IFMT) == S_IFDIR {
        try collect(path, into: &paths, depth: depth + 1)
      } else if name.hasSuffix(".dissector") {
        paths.append(path)
      }
    }
  }

  /// A file's text (invalid UTF-8 becomes U+FFFD, which the parser then reports).
  static func contents(_ path: String) throws(DissectorLoadError) -> String {
    do {
      return try TextFile.read(path, limit: 1 << 22, tooLarge: "larger than 4 MiB; not a dissector file")
    } catch {
      throw .file(error)
    }
  }

  static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Why users' dissector files could not be loaded.
public enum DissectorLoadError: Error, CustomStringConvertible {
  /// A directory cannot be read.
  case io(path: String, message: String)
  /// A file cannot be read.
  case file(CaptureError)
  /// A file does not parse: `FILE:LINE:COL: message`.
  case syntax(DissectorError)

  public var description: String {
    switch self {
    case .io(let path, let message): "\(path): \(message)"
    case .file(let error): error.description
    case .syntax(let error): error.description
    }
  }
}
