/// AES-128 encryption of one block (FIPS-197), the security function `e` of Core
/// 6.0, Vol 3, Part H, 2.2.1, and the random address hash `ah` built on it (2.2.2).
///
/// Only what resolving private addresses needs: a few blocks per address, so a plain
/// table-free implementation (no Foundation, no dependency) is enough.
public enum AES128 {
  /// Encrypts `block` with `key`; both are 16 octets, most significant first (the
  /// order of FIPS-197 and of the spec's `e`).
  public static func encrypt(key: [UInt8], block: [UInt8]) -> [UInt8] {
    precondition(key.count == 16 && block.count == 16, "AES-128 takes 16-octet keys and blocks")
    let roundKeys = expand(key)
    var state = block
    addRoundKey(&state, roundKeys, round: 0)
    for round in 1...10 {
      for i in 0..<16 { state[i] = sbox[Int(state[i])] }
      shiftRows(&state)
      if round < 10 { mixColumns(&state) }
      addRoundKey(&state, roundKeys, round: round)
    }
    return state
  }

  /// The random address hash `ah(k, r) = e(k, r') mod 2^24`, where `r'` is the 24-bit
  /// `prand` padded with zeros to 128 bits. `irk` is most significant octet first.
  public static func ah(irk: [UInt8], prand: UInt32) -> UInt32 {
    var block = [UInt8](repeating: 0, count: 16)
    block[13] = UInt8(truncatingIfNeeded: prand >> 16)
    block[14] = UInt8(truncatingIfNeeded: prand >> 8)
    block[15] = UInt8(truncatingIfNeeded: prand)
    let out = encrypt(key: irk, block: block)
    return UInt32(out[13]) << 16 | UInt32(out[14]) << 8 | UInt32(out[15])
  }

  /// Whether `address`, a resolvable private address (`prand` in the top 24 bits,
  /// `hash` in the low 24), was made with `irk` (Core 6.0, Vol 6, Part B, 1.3.2.3).
  public static func resolves(_ address: DeviceAddress, irk: [UInt8]) -> Bool {
    let prand = UInt32(truncatingIfNeeded: address.rawValue >> 24) & 0xFF_FFFF
    let hash = UInt32(truncatingIfNeeded: address.rawValue) & 0xFF_FFFF
    return ah(irk: irk, prand: prand) == hash
  }

  // MARK: - FIPS-197

  /// The 11 round keys, 16 octets each, one after the other (5.2).
  static func expand(_ key: [UInt8]) -> [UInt8] {
    var w = key
    w.reserveCapacity(176)
    var rcon: UInt8 = 0x01
    while w.count < 176 {
      var t = Array(w[(w.count - 4)...])
      if w.count % 16 == 0 {
        t = [sbox[Int(t[1])] ^ rcon, sbox[Int(t[2])], sbox[Int(t[3])], sbox[Int(t[0])]]
        rcon = xtime(rcon)
      }
      for i in 0..<4 { w.append(w[w.count - 16] ^ t[i]) }
    }
    return w
  }

  static func addRoundKey(_ state: inout [UInt8], _ keys: [UInt8], round: Int) {
    for i in 0..<16 { state[i] ^= keys[round * 16 + i] }
  }

  /// The state is column-major: octet `i` is row `i % 4`, column `i / 4`.
  static func shiftRows(_ state: inout [UInt8]) {
    let old = state
    for row in 1..<4 {
      for column in 0..<4 { state[column * 4 + row] = old[((column + row) % 4) * 4 + row] }
    }
  }

  static func mixColumns(_ state: inout [UInt8]) {
    for column in 0..<4 {
      let a = Array(state[(column * 4)..<(column * 4 + 4)])
      let all = a[0] ^ a[1] ^ a[2] ^ a[3]
      for row in 0..<4 { state[column * 4 + row] = a[row] ^ all ^ xtime(a[row] ^ a[(row + 1) % 4]) }
    }
  }

  /// Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
  static func xtime(_ b: UInt8) -> UInt8 { (b << 1) ^ (b & 0x80 != 0 ? 0x1B : 0) }

  /// The S-box, computed once from its definition (5.1.1): the multiplicative
  /// inverse in GF(2^8) followed by the affine transformation.
  static let sbox: [UInt8] = {
    var box = [UInt8](repeating: 0, count: 256)
    var p: UInt8 = 1
    var q: UInt8 = 1
    // p runs over the powers of the generator 3, q over those of its inverse.
    repeat {
      p = p ^ xtime(p)
      q ^= q << 1
      q ^= q << 2
      q ^= q << 4
      if q & 0x80 != 0 { q ^= 0x09 }
      let r = q ^ rotl(q, 1) ^ rotl(q, 2) ^ rotl(q, 3) ^ rotl(q, 4)
      box[Int(p)] = r ^ 0x63
    } while p != 1
    box[0] = 0x63
    return box
  }()

  static func rotl(_ x: UInt8, _ n: UInt8) -> UInt8 { (x << n) | (x >> (8 - n)) }
}
