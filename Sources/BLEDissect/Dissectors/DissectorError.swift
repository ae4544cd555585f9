/// A `*.dissector` file that cannot be read: where (file, line and column, from 1) and
/// what, in lower case (`unknown type 'u17'; expected u8, u16, …`).
public struct DissectorError: Error, Hashable, Sendable, CustomStringConvertible {
  public var path: String
  public var line: Int
  public var column: Int
  public var message: String

  public init(path: String, line: Int, column: Int, _ message: String) {
    self.path = path
    self.line = line
    self.column = column
    self.message = message
  }

  /// `FILE:LINE:COL: message`, as compilers print it.
  public var description: String { "\(path):\(line):\(column): \(message)" }
}
