// Runs one command for .ci/bench and reports its wall time and peak RSS.
//
//   bench-run COMMAND [ARGUMENT...]
//
// The command's stdout goes to /dev/null and its stderr is inherited; this program
// prints "WALL_NANOSECONDS MAX_RSS_KB EXIT_STATUS CPU_MICROSECONDS" (exit status
// 128+N for signal N; CPU is user plus system time of the command).
// It exists because ru_maxrss counts the memory of whatever process called exec:
// spawned straight from the Python script (vfork), the child reported the script's
// own peak. A fork from this small process starts the child near zero.
// Built by .ci/bench with `swiftc -O`; not part of the package.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard !arguments.isEmpty else {
  fputs("usage: bench-run COMMAND [ARGUMENT...]\n", stderr)
  exit(1)
}
// Everything the child needs is prepared before fork.
let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
let devnull = open("/dev/null", O_WRONLY)
guard devnull >= 0 else {
  perror("open /dev/null")
  exit(2)
}

func now() -> Int {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return spec.tv_sec * 1_000_000_000 + spec.tv_nsec
}

let start = now()
let pid = fork()
if pid == 0 {
  dup2(devnull, STDOUT_FILENO)
  close(devnull)
  execvp(argv[0]!, argv)
  _exit(127)
}
guard pid > 0 else {
  perror("fork")
  exit(2)
}
var status: Int32 = 0
var usage = rusage()
while wait4(pid, &status, 0, &usage) < 0 {
  if errno != EINTR {
    perror("wait4")
    exit(2)
  }
}
let wall = now() - start
let terminatedBySignal = status & 0x7f
let code = terminatedBySignal == 0 ? Int((status >> 8) & 0xff) : 128 + Int(terminatedBySignal)
let cpu =
  (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000 + Int(usage.ru_utime.tv_usec)
  + Int(usage.ru_stime.tv_usec)
print("\(wall) \(usage.ru_maxrss) \(code) \(cpu)")
