#!/usr/bin/env python3
"""Asks the kernel what a monitor socket reports about drops: SO_RXQ_OVFL control
messages and SO_MEMINFO's drop counter, after a flood it did not read."""
import ctypes, os, socket, struct, subprocess, sys, time
AF_BLUETOOTH, BTPROTO_HCI = 31, 1
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.socket(AF_BLUETOOTH, 3, BTPROTO_HCI)
address = struct.pack("<HHH", AF_BLUETOOTH, 0xFFFF, 2)
assert libc.bind(fd, ctypes.c_char_p(address), 6) == 0, ctypes.get_errno()
s = socket.socket(AF_BLUETOOTH, socket.SOCK_RAW, BTPROTO_HCI, fileno=fd)
s.setsockopt(socket.SOL_SOCKET, 29, 1)  # SO_TIMESTAMP
s.setsockopt(socket.SOL_SOCKET, 40, 1)  # SO_RXQ_OVFL
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
print("rcvbuf", s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "logflood.py"), "200"])
s.setblocking(False)
n = 0
while True:
    try:
        data, anc, flags, _ = s.recvmsg(70000, 1024)
    except BlockingIOError:
        break
    n += 1
    print("record", n, len(data), [(l, t, d.hex()) for l, t, d in anc])
mem = s.getsockopt(socket.SOL_SOCKET, 55, 9 * 4)  # SO_MEMINFO
print("meminfo", struct.unpack("<9I", mem))
