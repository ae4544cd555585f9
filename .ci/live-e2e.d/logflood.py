#!/usr/bin/env python3
"""Writes user-logging records to the HCI logging channel, which the kernel hands to
every monitor socket as records of opcode 13 (User Logging): a load of monitor records
at a chosen rate, no controller needed. Needs CAP_NET_ADMIN.

Usage: logflood.py COUNT [RATE [TAG]]   RATE in records per second; 0: as fast as it can;
TAG goes into each message, so that the records of two floods differ.
Prints the number written and the seconds it took."""
import ctypes, os, struct, sys, time

AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI = 31, 3, 1
HCI_DEV_NONE, HCI_CHANNEL_LOGGING = 0xFFFF, 4


def logging_socket():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "socket")
    address = struct.pack("<HHH", AF_BLUETOOTH, HCI_DEV_NONE, HCI_CHANNEL_LOGGING)
    if libc.bind(fd, ctypes.c_char_p(address), len(address)) < 0:
        raise OSError(ctypes.get_errno(), "bind logging channel")
    return fd


def frame(number, tag):
    # struct hci_mon_hdr (opcode 0, index none, length), then priority, ident length,
    # ident and message, each NUL-terminated.
    ident = b"live-e2e\0"
    message = b"%s record %d\0" % (tag.encode(), number)
    payload = bytes([6, len(ident)]) + ident + message
    return struct.pack("<HHH", 0, HCI_DEV_NONE, len(payload)) + payload


def main():
    count = int(sys.argv[1])
    rate = float(sys.argv[2]) if len(sys.argv) > 2 else 0
    tag = sys.argv[3] if len(sys.argv) > 3 else "flood"
    fd = logging_socket()
    start = time.monotonic()
    for number in range(count):
        if rate > 0:
            due = start + number / rate
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        os.write(fd, frame(number, tag))
    print(f"{count} {time.monotonic() - start:.3f}")


if __name__ == "__main__":
    main()
