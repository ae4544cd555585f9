// The floor for issue 8's benchmark: memory-map a btsnoop file and walk every
// record header (24 bytes, big-endian: original length, included length, flags,
// drops, timestamp), summing the included lengths. Nothing else.
// Built by .ci/bench with `swiftc -O`; not part of the package.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

guard CommandLine.arguments.count == 2 else {
  fputs("usage: bench-walk FILE.btsnoop\n", stderr)
  exit(1)
}
let fd = open(CommandLine.arguments[1], O_RDONLY)
guard fd >= 0 else {
  perror("open")
  exit(2)
}
var info = stat()
guard fstat(fd, &info) == 0 else {
  perror("fstat")
  exit(2)
}
let size = Int(info.st_size)
guard size >= 16, let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED
else {
  fputs("bench-walk: cannot map the file\n", stderr)
  exit(2)
}
let bytes = UnsafeRawBufferPointer(start: map, count: size)
guard bytes[0] == 0x62, bytes[7] == 0 else {  // "btsnoop\0"
  fputs("bench-walk: not a btsnoop file\n", stderr)
  exit(2)
}
var offset = 16
var count = 0
var total = 0
while offset + 24 <= size {
  let included = Int(
    UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)))
  if offset + 24 + included > size { break }
  count += 1
  total &+= included
  offset += 24 + included
}
print("\(count) records, \(total) bytes")
