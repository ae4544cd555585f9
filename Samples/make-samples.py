#!/usr/bin/env python3
"""Write the bleanalyze sample captures into the folder that holds this script.

    python3 Samples/make-samples.py        (from any directory)

One logical session ("hr-sensor": a central scans, connects to a heart-rate
sensor, discovers its GATT database, receives notifications and disconnects)
is described once, in SESSION below.  Each capture format has one writer
function that serialises that same list of records.  Further files are edge
cases for tests (truncated, empty, filtered, wrong datalink...).

A second session ("secure-sensor", SECURE_SESSION below: extended connection,
LE Secure Connections pairing, EATT with K-frames, fragmented and oversized
PDUs, a malformed ATT PDU) is written as btsnoop H4 and as pcap.  Further sessions:
"scanner", "air-sensor", "vendor-gatt", "firmware-update" (mcumgr and Secure DFU) and
"android-phone" (an Android app's session, also as a rotated bugreport with the app's
logcat lines, and as a variant for `diff`) and "android-autoconnect" (Filter Accept List
connects).

The output is deterministic: fixed timestamps, no randomness, fixed zip entry
dates.  Running the script twice gives byte-identical files.  Standard library
only (Python 3.11).
"""

from __future__ import annotations

import base64
import hashlib
import io
import struct
import zipfile
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

OUT_DIR = Path(__file__).resolve().parent

# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------

#: Session start, 2024-05-14T09:30:00Z, in Unix microseconds.
T0_US = int(datetime(2024, 5, 14, 9, 30, 0, tzinfo=timezone.utc).timestamp()) * 1_000_000

#: µs between 0000-01-01 (btsnoop epoch) and 1970-01-01.
BTSNOOP_EPOCH_DELTA = 0x00DCDDB30F2F8000

H4_CMD, H4_ACL, H4_SCO, H4_EVT = 1, 2, 3, 4
SENT, RECEIVED = 0, 1  # 0 = host->controller, 1 = controller->host

CONN_HANDLE = 0x0040
PB_FIRST_FLUSHABLE = 0b10
PB_CONTINUATION = 0b01
CID_ATT = 0x0004

#: Peripheral (heart-rate sensor), public address, written LE on the wire.
PERIPHERAL = "D4:36:39:67:A2:61"
#: iBeacon, static random address (top two bits 11).
BEACON = "C7:3A:5B:11:E0:42"
#: Local controller (hci0), used by the Linux monitor records.
LOCAL_ADDR = "4D:C1:64:29:99:6D"
MANUFACTURER_INTEL = 0x0002


def bdaddr(text: str) -> bytes:
    """A Bluetooth address "AA:BB:CC:DD:EE:FF" in on-the-wire (little-endian) byte order."""
    return bytes(int(part, 16) for part in reversed(text.split(":")))


class Record(NamedTuple):
    """One HCI packet of the logical session."""

    ts_us: int       # Unix time, microseconds
    h4_type: int     # 1 command, 2 ACL, 3 SCO, 4 event
    direction: int   # 0 host->controller (sent), 1 controller->host (received)
    payload: bytes   # HCI packet WITHOUT the H4 type byte


# ---------------------------------------------------------------------------
# Generic HCI / L2CAP builders
# ---------------------------------------------------------------------------

def opcode(ogf: int, ocf: int) -> int:
    return (ogf << 10) | ocf


def hci_command(op: int, params: bytes = b"") -> tuple[int, int, bytes]:
    """HCI Command packet: opcode u16, parameter length u8, parameters."""
    return H4_CMD, SENT, struct.pack("<HB", op, len(params)) + params


def hci_event(code: int, params: bytes) -> tuple[int, int, bytes]:
    """HCI Event packet: event code u8, parameter length u8, parameters."""
    return H4_EVT, RECEIVED, struct.pack("<BB", code, len(params)) + params


def le_meta(subevent: int, params: bytes) -> tuple[int, int, bytes]:
    """HCI Event: LE Meta Event (0x3e) with the given subevent code."""
    return hci_event(0x3E, bytes([subevent]) + params)


def acl(direction: int, data: bytes, pb: int = PB_FIRST_FLUSHABLE,
        handle: int = CONN_HANDLE) -> tuple[int, int, bytes]:
    """ACL Data packet: handle|PB<<12|BC<<14 u16, data length u16, data."""
    return H4_ACL, direction, struct.pack("<HH", handle | (pb << 12), len(data)) + data


def l2cap(cid: int, pdu: bytes) -> bytes:
    """L2CAP basic frame: length u16, channel id u16, payload."""
    return struct.pack("<HH", len(pdu), cid) + pdu


def att(direction: int, pdu: bytes) -> tuple[int, int, bytes]:
    """A complete ATT PDU in one ACL packet (L2CAP CID 0x0004, PB first flushable)."""
    return acl(direction, l2cap(CID_ATT, pdu))


# ---------------------------------------------------------------------------
# HCI commands and events (names as btmon prints them)
# ---------------------------------------------------------------------------

OP_RESET = opcode(0x03, 0x0003)                 # 0x0c03
OP_DISCONNECT = opcode(0x01, 0x0006)            # 0x0406
OP_LE_SET_SCAN_PARAMETERS = opcode(0x08, 0x000B)  # 0x200b
OP_LE_SET_SCAN_ENABLE = opcode(0x08, 0x000C)    # 0x200c
OP_LE_CREATE_CONNECTION = opcode(0x08, 0x000D)  # 0x200d
OP_LE_READ_REMOTE_FEATURES = opcode(0x08, 0x0016)  # 0x2016


def reset():
    """HCI Command: Reset (0x03|0x0003) plen 0"""
    return hci_command(OP_RESET)


def le_set_scan_parameters():
    """HCI Command: LE Set Scan Parameters (0x08|0x000b) plen 7:
    type active (0x01), interval 60 ms (0x0060), window 30 ms (0x0030),
    own address type public (0x00), filter policy accept all (0x00)"""
    return hci_command(OP_LE_SET_SCAN_PARAMETERS, struct.pack("<BHHBB", 0x01, 0x0060, 0x0030, 0x00, 0x00))


def le_set_scan_enable(enable: int):
    """HCI Command: LE Set Scan Enable (0x08|0x000c) plen 2: enable=<enable> filter_dup=0"""
    return hci_command(OP_LE_SET_SCAN_ENABLE, bytes([enable, 0x00]))


def le_create_connection(peer: str):
    """HCI Command: LE Create Connection (0x08|0x000d) plen 25:
    scan interval/window 60 ms (0x0060/0x0060), initiator filter policy 0x00 (accept list
    not used, connect to the peer address),
    peer address type public, peer <peer>, own address type public,
    connection interval 30-50 ms (0x0018-0x0028), latency 0,
    supervision timeout 720 ms (0x0048), CE length 0-0"""
    params = struct.pack("<HHBB6sBHHHHHH", 0x0060, 0x0060, 0x00, 0x00, bdaddr(peer), 0x00,
                         0x0018, 0x0028, 0x0000, 0x0048, 0x0000, 0x0000)
    return hci_command(OP_LE_CREATE_CONNECTION, params)


def le_read_remote_features(handle: int = CONN_HANDLE):
    """HCI Command: LE Read Remote Used Features (0x08|0x0016) plen 2: handle"""
    return hci_command(OP_LE_READ_REMOTE_FEATURES, struct.pack("<H", handle))


def disconnect(reason: int, handle: int = CONN_HANDLE):
    """HCI Command: Disconnect (0x01|0x0006) plen 3: handle, reason
    (0x13 = Remote User Terminated Connection)"""
    return hci_command(OP_DISCONNECT, struct.pack("<HB", handle, reason))


def command_complete(op: int, status: int = 0x00):
    """HCI Event: Command Complete (0x0e) plen 4: ncmd 1, <op>, status (only a status return parameter)"""
    return hci_event(0x0E, struct.pack("<BHB", 1, op, status))


def command_status(op: int, status: int = 0x00):
    """HCI Event: Command Status (0x0f) plen 4: status, ncmd 1, <op>"""
    return hci_event(0x0F, struct.pack("<BBH", status, 1, op))


def number_of_completed_packets(count: int, handle: int = CONN_HANDLE):
    """HCI Event: Number of Completed Packets (0x13) plen 5: 1 handle, handle, count"""
    return hci_event(0x13, struct.pack("<BHH", 1, handle, count))


def disconnection_complete(reason: int, handle: int = CONN_HANDLE):
    """HCI Event: Disconnect Complete (0x05) plen 4: status 0, handle, reason
    (0x16 = Connection Terminated By Local Host)"""
    return hci_event(0x05, struct.pack("<BHB", 0x00, handle, reason))


# LE Advertising Report event types
ADV_IND, ADV_DIRECT_IND, ADV_SCAN_IND, ADV_NONCONN_IND, SCAN_RSP = 0, 1, 2, 3, 4


def ad(ad_type: int, data: bytes) -> bytes:
    """One advertising data structure: length u8 (type + data), AD type u8, data."""
    return bytes([len(data) + 1, ad_type]) + data


#: ADV_IND data of the sensor: Flags 0x06 (LE General Discoverable, BR/EDR Not Supported),
#: Complete Local Name "HR-Sensor", Complete List of 16-bit Service UUIDs 0x180d (Heart Rate).
HR_ADV_DATA = ad(0x01, b"\x06") + ad(0x09, b"HR-Sensor") + ad(0x03, struct.pack("<H", 0x180D))
#: SCAN_RSP data of the sensor: Tx Power Level +4 dBm.
HR_SCAN_RSP_DATA = ad(0x0A, struct.pack("<b", 4))
#: iBeacon: Flags 0x06, Manufacturer Specific Data (Apple 0x004c) type 0x02 len 0x15,
#: UUID e2c56db5-dffb-48d2-b060-d0f5a71096e0, major 1, minor 42, measured power -59 dBm.
IBEACON_DATA = ad(0x01, b"\x06") + ad(
    0xFF,
    struct.pack("<H", 0x004C) + b"\x02\x15"
    + bytes.fromhex("e2c56db5dffb48d2b060d0f5a71096e0")
    + struct.pack(">HHb", 1, 42, -59),
)


def le_advertising_report(event_type: int, addr_type: int, addr: str, data: bytes, rssi: int):
    """HCI Event: LE Meta Event (0x3e) - LE Advertising Report (0x02):
    num reports 1, event type, address type, address, data length, data, RSSI"""
    params = struct.pack("<BBB6sB", 1, event_type, addr_type, bdaddr(addr), len(data)) + data
    return le_meta(0x02, params + struct.pack("<b", rssi))


def le_connection_complete(peer: str, handle: int = CONN_HANDLE):
    """HCI Event: LE Meta Event (0x3e) - LE Connection Complete (0x01) plen 19:
    status 0, handle, role central (0x00), peer address type public, peer <peer>,
    interval 30 ms (24), latency 0, supervision timeout 720 ms (72), clock accuracy 500 ppm (0x00)"""
    params = struct.pack("<BHBB6sHHHB", 0x00, handle, 0x00, 0x00, bdaddr(peer), 24, 0, 72, 0x00)
    return le_meta(0x01, params)


def le_read_remote_features_complete(handle: int = CONN_HANDLE):
    """HCI Event: LE Meta Event (0x3e) - LE Read Remote Used Features Complete (0x04) plen 12:
    status 0, handle, features ff 19 00 00 00 00 00 00 (encryption, conn param request,
    extended reject, peripheral-initiated features exchange, ping, data length extension,
    LL privacy, extended scanner filter policies, 2M PHY, Coded PHY, extended advertising)"""
    return le_meta(0x04, struct.pack("<BH", 0x00, handle) + bytes.fromhex("ff19000000000000"))


# ---------------------------------------------------------------------------
# ATT PDUs (names as btmon / Wireshark print them)
# ---------------------------------------------------------------------------

def att_exchange_mtu_request(mtu: int):
    """ATT: Exchange MTU Request (0x02) len 2: client RX MTU"""
    return att(SENT, struct.pack("<BH", 0x02, mtu))


def att_exchange_mtu_response(mtu: int):
    """ATT: Exchange MTU Response (0x03) len 2: server RX MTU"""
    return att(RECEIVED, struct.pack("<BH", 0x03, mtu))


def att_read_by_group_type_request(start: int, end: int, uuid16: int):
    """ATT: Read By Group Type Request (0x10) len 6: handle range, attribute group type"""
    return att(SENT, struct.pack("<BHHH", 0x10, start, end, uuid16))


def att_read_by_group_type_response(groups: list[tuple[int, int, int]]):
    """ATT: Read By Group Type Response (0x11): attribute data length 6, then
    (start handle, end group handle, 16-bit service UUID) per primary service"""
    body = b"".join(struct.pack("<HHH", s, e, u) for s, e, u in groups)
    return att(RECEIVED, bytes([0x11, 6]) + body)


def att_read_by_type_request(start: int, end: int, uuid16: int):
    """ATT: Read By Type Request (0x08) len 6: handle range, attribute type"""
    return att(SENT, struct.pack("<BHHH", 0x08, start, end, uuid16))


def att_read_by_type_response_characteristics(chars: list[tuple[int, int, int, int]]):
    """ATT: Read By Type Response (0x09): attribute data length 7, then per characteristic
    declaration: handle, properties u8, value handle u16, 16-bit UUID"""
    body = b"".join(struct.pack("<HBHH", h, p, v, u) for h, p, v, u in chars)
    return att(RECEIVED, bytes([0x09, 7]) + body)


def att_find_information_request(start: int, end: int):
    """ATT: Find Information Request (0x04) len 4: handle range"""
    return att(SENT, struct.pack("<BHH", 0x04, start, end))


def att_find_information_response(pairs: list[tuple[int, int]]):
    """ATT: Find Information Response (0x05): format 0x01 (16-bit UUIDs), then (handle, UUID)"""
    body = b"".join(struct.pack("<HH", h, u) for h, u in pairs)
    return att(RECEIVED, bytes([0x05, 0x01]) + body)


def att_write_request(handle: int, value: bytes):
    """ATT: Write Request (0x12): handle, value"""
    return att(SENT, struct.pack("<BH", 0x12, handle) + value)


def att_write_response():
    """ATT: Write Response (0x13) len 0"""
    return att(RECEIVED, b"\x13")


def att_read_request(handle: int):
    """ATT: Read Request (0x0a) len 2: handle"""
    return att(SENT, struct.pack("<BH", 0x0A, handle))


def att_read_response(value: bytes):
    """ATT: Read Response (0x0b): value"""
    return att(RECEIVED, b"\x0b" + value)


def att_error_response(request_opcode: int, handle: int, error: int):
    """ATT: Error Response (0x01) len 4: request opcode, handle, error code"""
    return att(RECEIVED, struct.pack("<BBHB", 0x01, request_opcode, handle, error))


def hr_measurement(bpm: int, rr_1024ths: tuple[int, ...] = ()) -> bytes:
    """Heart Rate Measurement (0x2a37) value: flags u8 (bit4 = RR-Interval present),
    heart rate u8 (bpm), then RR intervals u16 in 1/1024 s."""
    flags = 0x10 if rr_1024ths else 0x00
    return bytes([flags, bpm]) + b"".join(struct.pack("<H", rr) for rr in rr_1024ths)


def att_notification_pdu(handle: int, value: bytes) -> bytes:
    """ATT PDU bytes of a Handle Value Notification (0x1b): handle, value"""
    return struct.pack("<BH", 0x1B, handle) + value


def att_handle_value_notification(handle: int, value: bytes):
    """ATT: Handle Value Notification (0x1b): handle, value (one complete ACL packet)"""
    return att(RECEIVED, att_notification_pdu(handle, value))


# GATT database of the sensor (handles)
SERVICES = [
    (0x0001, 0x0007, 0x1800),  # Generic Access
    (0x0008, 0x000B, 0x1801),  # Generic Attribute
    (0x000C, 0x0011, 0x180D),  # Heart Rate
    (0x0012, 0x0014, 0x180F),  # Battery Service
]
HRM_DECL, HRM_VALUE, HRM_CCCD = 0x000D, 0x000E, 0x000F   # Heart Rate Measurement (notify)
# Body Sensor Location (read): the declaration sits at 0x0010, so its value is at 0x0011
# (0x000f is the HRM CCCD, and a value always follows its declaration directly).
BSL_DECL, BSL_VALUE = 0x0010, 0x0011
BATTERY_LEVEL_VALUE = 0x0014                              # Battery Level (declared at 0x0013)

#: The fragmented notification: HR 75 bpm plus ten buffered RR intervals.  The L2CAP PDU is
#: 29 bytes, so without LE Data Length Extension the controller delivers it as a 27-byte
#: first fragment (PB=0b10) and a 2-byte continuation (PB=0b01).
FRAGMENTED_L2CAP = l2cap(CID_ATT, att_notification_pdu(
    HRM_VALUE, hr_measurement(75, (812, 825, 819, 807, 830, 821, 816, 824, 811, 819))))


def notification_first_fragment():
    """ACL Data RX, PB=0b10 (first automatically flushable), dlen 27: L2CAP len 25 CID 0x0004,
    first 23 bytes of ATT: Handle Value Notification (0x1b) handle 0x000e, Heart Rate
    Measurement 75 bpm with 10 RR intervals"""
    return acl(RECEIVED, FRAGMENTED_L2CAP[:27], pb=PB_FIRST_FLUSHABLE)


def notification_continuation():
    """ACL Data RX, PB=0b01 (continuing fragment), dlen 2: last 2 bytes of the notification above"""
    return acl(RECEIVED, FRAGMENTED_L2CAP[27:], pb=PB_CONTINUATION)


# ---------------------------------------------------------------------------
# The session: (delta µs since the previous record, frame)
# ---------------------------------------------------------------------------

SESSION_STEPS = [
    # 1. Controller set-up and scanning
    (0,       reset()),                                        # HCI Command: Reset (0x03|0x0003)
    (4_913,   command_complete(OP_RESET)),                     # HCI Event: Command Complete (0x0e) Reset, status Success
    (312,     le_set_scan_parameters()),                       # HCI Command: LE Set Scan Parameters (0x08|0x000b) active
    (487,     command_complete(OP_LE_SET_SCAN_PARAMETERS)),    # HCI Event: Command Complete (0x0e) LE Set Scan Parameters
    (219,     le_set_scan_enable(1)),                          # HCI Command: LE Set Scan Enable (0x08|0x000c) enable=1 filter_dup=0
    (1_250,   command_complete(OP_LE_SET_SCAN_ENABLE)),        # HCI Event: Command Complete (0x0e) LE Set Scan Enable
    # 2. Advertising reports
    (37_604,  le_advertising_report(ADV_IND, 0x00, PERIPHERAL, HR_ADV_DATA, -58)),
    #         LE Advertising Report: ADV_IND, public D4:36:39:67:A2:61, Flags, Name "HR-Sensor", UUID16 0x180d, RSSI -58
    (1_183,   le_advertising_report(SCAN_RSP, 0x00, PERIPHERAL, HR_SCAN_RSP_DATA, -59)),
    #         LE Advertising Report: SCAN_RSP, public D4:36:39:67:A2:61, TX power +4 dBm, RSSI -59
    (18_921,  le_advertising_report(ADV_NONCONN_IND, 0x01, BEACON, IBEACON_DATA, -71)),
    #         LE Advertising Report: ADV_NONCONN_IND, random C7:3A:5B:11:E0:42, iBeacon major 1 minor 42, RSSI -71
    (81_377,  le_advertising_report(ADV_IND, 0x00, PERIPHERAL, HR_ADV_DATA, -57)),
    #         LE Advertising Report: ADV_IND again (next advertising interval), RSSI -57
    # 3. Stop scanning and connect
    (2_046,   le_set_scan_enable(0)),                          # HCI Command: LE Set Scan Enable (0x08|0x000c) enable=0 filter_dup=0
    (593,     command_complete(OP_LE_SET_SCAN_ENABLE)),        # HCI Event: Command Complete (0x0e) LE Set Scan Enable
    (341,     le_create_connection(PERIPHERAL)),               # HCI Command: LE Create Connection (0x08|0x000d) to D4:36:39:67:A2:61
    (417,     command_status(OP_LE_CREATE_CONNECTION)),        # HCI Event: Command Status (0x0f) LE Create Connection, Success
    (31_886,  le_connection_complete(PERIPHERAL)),             # LE Connection Complete: handle 0x0040, central, 30 ms, 0, 720 ms
    (921,     le_read_remote_features()),                      # HCI Command: LE Read Remote Used Features (0x08|0x0016) handle 0x0040
    (388,     command_status(OP_LE_READ_REMOTE_FEATURES)),     # HCI Event: Command Status (0x0f) LE Read Remote Used Features
    # 4. GATT discovery over ATT (ACL handle 0x0040, L2CAP CID 0x0004)
    (1_472,   att_exchange_mtu_request(517)),                  # ATT: Exchange MTU Request, client RX MTU 517
    (29_958,  number_of_completed_packets(1)),                 # HCI Event: Number of Completed Packets, handle 0x0040 count 1
    (30_112,  le_read_remote_features_complete()),             # LE Read Remote Used Features Complete: handle 0x0040
    (1_237,   att_exchange_mtu_response(247)),                 # ATT: Exchange MTU Response, server RX MTU 247
    (655,     att_read_by_group_type_request(0x0001, 0xFFFF, 0x2800)),
    #         ATT: Read By Group Type Request 0x0001-0xffff, type Primary Service (0x2800)
    (29_871,  number_of_completed_packets(1)),                 # HCI Event: Number of Completed Packets, handle 0x0040 count 1
    (30_204,  att_read_by_group_type_response(SERVICES)),
    #         ATT: Read By Group Type Response: 0x0001-0x0007 GAP 0x1800, 0x0008-0x000b GATT 0x1801,
    #         0x000c-0x0011 Heart Rate 0x180d, 0x0012-0x0014 Battery 0x180f
    (743,     att_read_by_type_request(0x000C, 0x0011, 0x2803)),
    #         ATT: Read By Type Request 0x000c-0x0011, type Characteristic (0x2803)
    (59_987,  att_read_by_type_response_characteristics([
        (HRM_DECL, 0x10, HRM_VALUE, 0x2A37),    # Heart Rate Measurement, Notify, value handle 0x000e
        (BSL_DECL, 0x02, BSL_VALUE, 0x2A38),    # Body Sensor Location, Read, value handle 0x0011
    ])),
    #         ATT: Read By Type Response: 0x000d HRM notify -> 0x000e, 0x0010 BSL read -> 0x0011
    (812,     att_find_information_request(HRM_CCCD, HRM_CCCD)),
    #         ATT: Find Information Request 0x000f-0x000f
    (29_644,  number_of_completed_packets(2)),                 # HCI Event: Number of Completed Packets, handle 0x0040 count 2
    (30_331,  att_find_information_response([(HRM_CCCD, 0x2902)])),
    #         ATT: Find Information Response, format 16-bit: 0x000f Client Characteristic Configuration (0x2902)
    (1_105,   att_write_request(HRM_CCCD, b"\x01\x00")),       # ATT: Write Request 0x000f, value 01 00 (notifications on)
    (58_903,  att_write_response()),                           # ATT: Write Response
    (1_287,   att_read_request(BSL_VALUE)),                    # ATT: Read Request 0x0011 (Body Sensor Location)
    (29_713,  number_of_completed_packets(2)),                 # HCI Event: Number of Completed Packets, handle 0x0040 count 2
    (30_046,  att_read_response(b"\x01")),                     # ATT: Read Response, Body Sensor Location Chest (0x01)
    # 5. Notifications, reads and one error
    (30_089,  att_handle_value_notification(HRM_VALUE, hr_measurement(72))),
    #         ATT: Handle Value Notification 0x000e, HRM flags 0x00, 72 bpm
    (1_000_212, att_handle_value_notification(HRM_VALUE, hr_measurement(73, (842,)))),
    #         ATT: Handle Value Notification 0x000e, HRM flags 0x10, 73 bpm, RR 842/1024 s
    (998_734, notification_first_fragment()),                  # ACL RX PB=0b10 first fragment of Notification 0x000e (75 bpm)
    (396,     notification_continuation()),                    # ACL RX PB=0b01 continuation of the same notification
    (210_518, att_read_request(BATTERY_LEVEL_VALUE)),          # ATT: Read Request 0x0014 (Battery Level)
    (29_877,  number_of_completed_packets(1)),                 # HCI Event: Number of Completed Packets, handle 0x0040 count 1
    (30_163,  att_read_response(b"\x5a")),                     # ATT: Read Response, Battery Level 90 % (0x5a)
    (759_102, att_handle_value_notification(HRM_VALUE, hr_measurement(74))),
    #         ATT: Handle Value Notification 0x000e, HRM flags 0x00, 74 bpm
    (102_555, att_read_request(0x0099)),                       # ATT: Read Request 0x0099 (no such attribute)
    (29_934,  number_of_completed_packets(1)),                 # HCI Event: Number of Completed Packets, handle 0x0040 count 1
    (30_119,  att_error_response(0x0A, 0x0099, 0x01)),         # ATT: Error Response, Read Request 0x0099, Invalid Handle (0x01)
    (837_436, att_handle_value_notification(HRM_VALUE, hr_measurement(76, (790, 805)))),
    #         ATT: Handle Value Notification 0x000e, HRM flags 0x10, 76 bpm, RR 790 and 805/1024 s
    # 6. Disconnect
    (250_003, disconnect(0x13)),                               # HCI Command: Disconnect (0x01|0x0006) handle 0x0040 reason 0x13
    (662,     command_status(OP_DISCONNECT)),                  # HCI Event: Command Status (0x0f) Disconnect, Success
    (58_741,  disconnection_complete(0x16)),                   # HCI Event: Disconnect Complete (0x05) handle 0x0040 reason 0x16
]


def build_session(steps=SESSION_STEPS, t0: int = T0_US) -> list[Record]:
    """Turn (delta µs, frame) steps into absolute-time records starting at t0."""
    records, ts = [], t0
    for delta, (h4_type, direction, payload) in steps:
        ts += delta
        records.append(Record(ts, h4_type, direction, payload))
    return records


SESSION = build_session()


def is_notification_first_fragment(rec: Record) -> bool:
    """True for an ACL packet whose PB is a start and whose L2CAP CID 0x0004 PDU is a notification."""
    if rec.h4_type != H4_ACL or len(rec.payload) < 9:
        return False
    pb = (rec.payload[1] >> 4) & 0x3
    cid = struct.unpack_from("<H", rec.payload, 6)[0]
    return pb in (0b00, 0b10) and cid == CID_ATT and rec.payload[8] == 0x1B


# ---------------------------------------------------------------------------
# The "secure-sensor" session: LE Secure Connections pairing, EATT, fragmentation
# ---------------------------------------------------------------------------
#
# A second session on one LE connection (handle 0x0041).  The local host is the
# central; the peer is a sensor at the public address C0:FF:EE:12:34:56.  It
# covers what the hr-sensor session does not: extended connection set-up, data
# length and PHY updates, LE Secure Connections pairing (numeric comparison) with
# fragmented SMP PDUs, encryption, key distribution, an EATT bearer opened with
# the enhanced credit based flow control mode (K-frames, SDU segmentation), an
# ATT notification larger than ATT_MTU, a malformed ATT PDU, a stray ACL
# continuation and a peripheral-initiated connection parameter update.

#: Session start, 2024-05-14T10:00:00Z, in Unix microseconds.
T0_SECURE_US = int(datetime(2024, 5, 14, 10, 0, 0, tzinfo=timezone.utc).timestamp()) * 1_000_000

SECURE_HANDLE = 0x0041
#: The sensor, public address.  The local host uses LOCAL_ADDR (public) as its identity.
SECURE_PEER = "C0:FF:EE:12:34:56"

#: Host->controller starts use PB=0b00 (first non-automatically-flushable), as LE hosts (BlueZ,
#: Zephyr) send them; controller->host starts use PB=0b10, because 0b00 is not allowed
#: controller->host on LE-U (Core Vol 4, Part E, 5.4.2).
PB_FIRST_NON_FLUSHABLE = 0b00
CID_LE_SIGNALING = 0x0005
CID_SMP = 0x0006

#: LE ACL buffer of the controller, as LE Read Buffer Size reports it: every host->controller
#: ACL packet carries at most 27 bytes, so longer L2CAP PDUs are fragmented by the host.
LE_ACL_DATA_LENGTH = 27
LE_ACL_NUM_PACKETS = 8

#: The EATT bearers (SPSM 0x0027), opened with one L2CAP Credit Based Connection Request.
SPSM_EATT = 0x0027
EATT_MTU, EATT_MPS, EATT_CREDITS = 512, 64, 10
#: Source CIDs of the host: the peer sends to these (peer->host K-frames carry 0x0040).
EATT_HOST_CIDS = (0x0040, 0x0041)
#: Destination CIDs of the peer: the host sends to these (host->peer K-frames carry 0x0080).
EATT_PEER_CIDS = (0x0080, 0x0081)

# GATT handles of the sensor (the session does no discovery; the values are what a client
# that cached the database would use).
SENSOR_LOG_VALUE = 0x002A       # 100-byte sensor log, read (encryption required)
MEASUREMENT_VALUE = 0x002C      # measurement, notify
MEASUREMENT_CCCD = 0x002D       # its Client Characteristic Configuration
CONTROL_POINT_VALUE = 0x0030    # control point, write without response
ALERT_VALUE = 0x0032            # alert, indicate


def label_bytes(label: str, n: int = 16) -> bytes:
    """n deterministic, random-looking bytes: the first n bytes of SHA-256(label)."""
    return hashlib.sha256(label.encode("ascii")).digest()[:n]


# NIST P-256 (Core Vol 3, Part H, 2.3.5.6.1).  Enough affine arithmetic to derive public keys
# from fixed private keys, so that the Pairing Public Key PDUs carry points on the curve.
P256_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
P256_A = P256_P - 3
P256_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
          0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)
P256_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def p256_add(p1: tuple[int, int] | None, p2: tuple[int, int] | None) -> tuple[int, int] | None:
    """Affine point addition on P-256; None is the point at infinity."""
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P256_P == 0:
        return None
    if p1 == p2:
        slope = (3 * x1 * x1 + P256_A) * pow(2 * y1, -1, P256_P) % P256_P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, P256_P) % P256_P
    x3 = (slope * slope - x1 - x2) % P256_P
    return x3, (slope * (x1 - x3) - y1) % P256_P


def p256_public_key(private_key: int) -> tuple[int, int]:
    """d·G by double-and-add."""
    result, addend = None, P256_G
    while private_key:
        if private_key & 1:
            result = p256_add(result, addend)
        addend = p256_add(addend, addend)
        private_key >>= 1
    assert result is not None
    return result


def p256_private_key(label: str) -> int:
    """A fixed private key in [1, n-1] derived from a label."""
    return int.from_bytes(hashlib.sha256(label.encode("ascii")).digest(), "big") % (P256_N - 1) + 1


# Self-check against the SMP debug key pair (Core Vol 3, Part H, 2.3.5.6.1).
assert p256_public_key(0x3F49F6D4A3C55F3874C9B3E3D2103F504AFF607BEB40B7995899B8A6CD3C1ABD) == (
    0x20B003D2F297BE2C5E2C83A7E9F9A5B9EFF49111ACF4FDDBCC0301480E359DE6,
    0xDC809C49652AEB6D63329ABF5A52155C766345C28FED3024741C8ED01589D28B)

#: Public keys of the initiator (local host) and the responder (sensor), neither the debug key.
CENTRAL_PUBLIC_KEY = p256_public_key(p256_private_key("bleanalyze secure-sensor central"))
PERIPHERAL_PUBLIC_KEY = p256_public_key(p256_private_key("bleanalyze secure-sensor peripheral"))


# --- HCI ---------------------------------------------------------------------

OP_LE_READ_BUFFER_SIZE = opcode(0x08, 0x0002)            # 0x2002
OP_LE_CONNECTION_UPDATE = opcode(0x08, 0x0013)           # 0x2013
OP_LE_ENABLE_ENCRYPTION = opcode(0x08, 0x0019)           # 0x2019
OP_LE_SET_DATA_LENGTH = opcode(0x08, 0x0022)             # 0x2022
OP_LE_SET_PHY = opcode(0x08, 0x0032)                     # 0x2032
OP_LE_EXTENDED_CREATE_CONNECTION = opcode(0x08, 0x0043)  # 0x2043

PHY_1M, PHY_2M = 0x01, 0x02


def command_complete_with(op: int, return_parameters: bytes):
    """HCI Event: Command Complete (0x0e): ncmd 1, <op>, status 0 and further return parameters"""
    return hci_event(0x0E, struct.pack("<BHB", 1, op, 0x00) + return_parameters)


def le_read_buffer_size():
    """HCI Command: LE Read Buffer Size [v1] (0x08|0x0002) plen 0"""
    return hci_command(OP_LE_READ_BUFFER_SIZE)


def le_read_buffer_size_complete():
    """HCI Event: Command Complete (0x0e) plen 7: LE Read Buffer Size [v1], status Success,
    LE ACL data packet length 27, total number of LE ACL data packets 8"""
    return command_complete_with(OP_LE_READ_BUFFER_SIZE,
                                 struct.pack("<HB", LE_ACL_DATA_LENGTH, LE_ACL_NUM_PACKETS))


def le_extended_create_connection(peer: str):
    """HCI Command: LE Extended Create Connection [v1] (0x08|0x0043) plen 26:
    initiator filter policy 0x00 (use the peer address), own address type public,
    peer address type public, peer <peer>, initiating PHYs 0x01 (LE 1M only), then for
    LE 1M: scan interval/window 60 ms (0x0060/0x0060), connection interval 30-50 ms
    (0x0018-0x0028), max latency 0, supervision timeout 720 ms (0x0048), CE length 0-0"""
    params = struct.pack("<BBB6sB", 0x00, 0x00, 0x00, bdaddr(peer), PHY_1M)
    params += struct.pack("<HHHHHHHH", 0x0060, 0x0060, 0x0018, 0x0028, 0x0000, 0x0048, 0x0000, 0x0000)
    return hci_command(OP_LE_EXTENDED_CREATE_CONNECTION, params)


def le_enhanced_connection_complete_v2(peer: str, handle: int = SECURE_HANDLE):
    """HCI Event: LE Meta Event (0x3e) plen 34 - LE Enhanced Connection Complete [v2] (0x29):
    status 0, handle, role central (0x00), peer address type public, peer <peer>,
    local RPA 00:00:00:00:00:00, peer RPA 00:00:00:00:00:00 (no privacy), interval 30 ms
    (0x0018), latency 0, supervision timeout 720 ms (0x0048), central clock accuracy 0x00,
    advertising handle 0xff and sync handle 0xffff (not from periodic advertising)"""
    params = struct.pack("<BHBB6s6s6sHHHBBH", 0x00, handle, 0x00, 0x00, bdaddr(peer),
                         bytes(6), bytes(6), 0x0018, 0x0000, 0x0048, 0x00, 0xFF, 0xFFFF)
    return le_meta(0x29, params)


def le_set_data_length(tx_octets: int, tx_time: int, handle: int = SECURE_HANDLE):
    """HCI Command: LE Set Data Length (0x08|0x0022) plen 6: handle, TX octets, TX time (µs)"""
    return hci_command(OP_LE_SET_DATA_LENGTH, struct.pack("<HHH", handle, tx_octets, tx_time))


def le_set_data_length_complete(handle: int = SECURE_HANDLE):
    """HCI Event: Command Complete (0x0e) plen 6: LE Set Data Length, status Success, handle"""
    return command_complete_with(OP_LE_SET_DATA_LENGTH, struct.pack("<H", handle))


def le_data_length_change(octets: int, time_us: int, handle: int = SECURE_HANDLE):
    """HCI Event: LE Meta Event (0x3e) plen 11 - LE Data Length Change (0x07):
    handle, max TX octets, max TX time, max RX octets, max RX time"""
    return le_meta(0x07, struct.pack("<HHHHH", handle, octets, time_us, octets, time_us))


def le_set_phy(tx_phys: int, rx_phys: int, handle: int = SECURE_HANDLE):
    """HCI Command: LE Set PHY (0x08|0x0032) plen 7: handle, all PHYs 0x00 (TX and RX
    preferences given), TX PHYs, RX PHYs, PHY options 0x0000"""
    return hci_command(OP_LE_SET_PHY, struct.pack("<HBBBH", handle, 0x00, tx_phys, rx_phys, 0x0000))


def le_phy_update_complete(tx_phy: int, rx_phy: int, handle: int = SECURE_HANDLE):
    """HCI Event: LE Meta Event (0x3e) plen 6 - LE PHY Update Complete (0x0c):
    status 0, handle, TX PHY, RX PHY"""
    return le_meta(0x0C, struct.pack("<BHBB", 0x00, handle, tx_phy, rx_phy))


#: Long Term Key from the LE Secure Connections pairing (f5); fixed filler here.
SECURE_LTK = label_bytes("bleanalyze secure-sensor LTK")


def le_enable_encryption(ltk: bytes, handle: int = SECURE_HANDLE):
    """HCI Command: LE Enable Encryption (0x08|0x0019) plen 28 (btmon and Wireshark 4.0 name it
    LE Start Encryption): handle, random number 0, EDIV 0 (both zero for LE Secure
    Connections), Long Term Key"""
    return hci_command(OP_LE_ENABLE_ENCRYPTION, struct.pack("<HQH16s", handle, 0, 0, ltk))


def encryption_change(handle: int = SECURE_HANDLE):
    """HCI Event: Encryption Change [v1] (0x08) plen 4: status 0, handle, encryption enabled 0x01
    (AES-CCM for LE)"""
    return hci_event(0x08, struct.pack("<BHB", 0x00, handle, 0x01))


def le_connection_update(interval_min: int, interval_max: int, latency: int, timeout: int,
                         handle: int = SECURE_HANDLE):
    """HCI Command: LE Connection Update (0x08|0x0013) plen 14: handle, interval min/max,
    max latency, supervision timeout, CE length 0-0"""
    return hci_command(OP_LE_CONNECTION_UPDATE, struct.pack(
        "<HHHHHHH", handle, interval_min, interval_max, latency, timeout, 0x0000, 0x0000))


def le_connection_update_complete(interval: int, latency: int, timeout: int,
                                  handle: int = SECURE_HANDLE):
    """HCI Event: LE Meta Event (0x3e) plen 10 - LE Connection Update Complete (0x03):
    status 0, handle, interval, latency, supervision timeout"""
    return le_meta(0x03, struct.pack("<BHHHH", 0x00, handle, interval, latency, timeout))


# --- ACL and L2CAP on handle 0x0041 --------------------------------------------

def le_acl(direction: int, data: bytes, *, continuation: bool = False):
    """ACL Data on handle 0x0041.  A start is PB=0b00 (first non-automatically-flushable)
    host->controller and PB=0b10 (first automatically flushable) controller->host; a
    continuation is PB=0b01.  Host->controller packets fit the 27-byte LE ACL buffer."""
    if continuation:
        pb = PB_CONTINUATION
    else:
        pb = PB_FIRST_NON_FLUSHABLE if direction == SENT else PB_FIRST_FLUSHABLE
    assert direction == RECEIVED or len(data) <= LE_ACL_DATA_LENGTH, "host ACL packet over 27 bytes"
    return acl(direction, data, pb=pb, handle=SECURE_HANDLE)


def acl_fragment(direction: int, l2cap_pdu: bytes, start: int, end: int):
    """ACL Data carrying bytes [start:end] of one L2CAP PDU: a start fragment when start == 0,
    otherwise a continuing fragment (PB=0b01)."""
    return le_acl(direction, l2cap_pdu[start:end], continuation=start > 0)


def att_fixed(direction: int, pdu: bytes):
    """A complete ATT PDU on the fixed channel (CID 0x0004) of handle 0x0041, one ACL packet."""
    return le_acl(direction, l2cap(CID_ATT, pdu))


def smp(direction: int, pdu: bytes):
    """A complete SMP PDU (L2CAP CID 0x0006) in one ACL packet."""
    return le_acl(direction, l2cap(CID_SMP, pdu))


def le_signaling(direction: int, code: int, identifier: int, data: bytes):
    """L2CAP LE signaling (CID 0x0005): code u8, identifier u8, length u16, data."""
    return le_acl(direction, l2cap(CID_LE_SIGNALING, struct.pack("<BBH", code, identifier, len(data)) + data))


def k_frame(cid: int, segment: bytes, sdu_length: int | None = None) -> bytes:
    """L2CAP K-frame (Core Vol 3, Part A, 3.4): length u16, CID u16, then the SDU length u16
    on the first K-frame of an SDU only, then the SDU segment."""
    sdu_header = b"" if sdu_length is None else struct.pack("<H", sdu_length)
    return l2cap(cid, sdu_header + segment)


# --- ATT PDUs for this session -------------------------------------------------

def att_pdu(op: int, handle: int, value: bytes = b"") -> bytes:
    """ATT PDU bytes: opcode u8, handle u16, value."""
    return struct.pack("<BH", op, handle) + value


#: 100-byte value of the sensor log: bytes 0x00, 0x01 ... 0x63 (easy to check after reassembly).
SENSOR_LOG = bytes(range(100))
#: Read Response (0x0b) carrying it: the 101-byte SDU read over EATT.
SENSOR_LOG_SDU = b"\x0b" + SENSOR_LOG
#: It does not fit one K-frame (MPS 64): the first carries the SDU length and 62 bytes, the
#: second the remaining 39.  The first K-frame (68 bytes with its L2CAP header) is itself
#: delivered as two ACL fragments, 27 + 41 bytes.
SENSOR_LOG_KFRAME_1 = k_frame(EATT_HOST_CIDS[0], SENSOR_LOG_SDU[:EATT_MPS - 2], len(SENSOR_LOG_SDU))
SENSOR_LOG_KFRAME_2 = k_frame(EATT_HOST_CIDS[0], SENSOR_LOG_SDU[EATT_MPS - 2:])

#: Handle Value Notification on 0x002c whose ATT PDU is 200 bytes (3 + 197-byte value).
#: ATT_MTU on the fixed channel is min(247, 185) = 185, so the PDU is 15 bytes too long.
#: The 204-byte L2CAP PDU arrives as seven 27-byte ACL fragments and a 15-byte one.
OVERSIZED_NOTIFICATION_L2CAP = l2cap(CID_ATT, att_pdu(0x1B, MEASUREMENT_VALUE, bytes(range(197))))

#: Pairing Public Key PDUs (0x0c): X then Y, 32 bytes each, little-endian.  65 bytes of SMP,
#: 69 with the L2CAP header: three ACL fragments of 27, 27 and 15 bytes.
CENTRAL_PUBLIC_KEY_L2CAP = l2cap(CID_SMP, b"\x0c" + CENTRAL_PUBLIC_KEY[0].to_bytes(32, "little")
                                 + CENTRAL_PUBLIC_KEY[1].to_bytes(32, "little"))
PERIPHERAL_PUBLIC_KEY_L2CAP = l2cap(CID_SMP, b"\x0c" + PERIPHERAL_PUBLIC_KEY[0].to_bytes(32, "little")
                                    + PERIPHERAL_PUBLIC_KEY[1].to_bytes(32, "little"))

#: SMP AuthReq 0x2d = Bonding (0b01) | MITM | SC | CT2; key distribution 0x0b = EncKey |
#: IdKey | LinkKey (in LE Secure Connections EncKey is ignored and the LinkKey is derived,
#: so only Identity Information and Identity Address Information are sent).
SMP_IO_DISPLAY_YES_NO, SMP_AUTH_REQ, SMP_MAX_KEY_SIZE, SMP_KEY_DIST = 0x01, 0x2D, 16, 0x0B


def smp_pairing_request():
    """SMP: Pairing Request (0x01) len 6: IO capability DisplayYesNo (0x01), OOB data not
    present (0x00), AuthReq 0x2d (Bonding, MITM, SC, CT2), max key size 16, initiator key
    distribution 0x0b (EncKey IdKey LinkKey), responder key distribution 0x0b"""
    return smp(SENT, struct.pack("<BBBBBBB", 0x01, SMP_IO_DISPLAY_YES_NO, 0x00, SMP_AUTH_REQ,
                                 SMP_MAX_KEY_SIZE, SMP_KEY_DIST, SMP_KEY_DIST))


def smp_pairing_response():
    """SMP: Pairing Response (0x02) len 6: IO capability DisplayYesNo (0x01), OOB data not
    present, AuthReq 0x2d (Bonding, MITM, SC, CT2), max key size 16, initiator key
    distribution 0x0b, responder key distribution 0x0b.  Both DisplayYesNo with SC: numeric
    comparison (Core Vol 3, Part H, Table 2.8)"""
    return smp(RECEIVED, struct.pack("<BBBBBBB", 0x02, SMP_IO_DISPLAY_YES_NO, 0x00, SMP_AUTH_REQ,
                                     SMP_MAX_KEY_SIZE, SMP_KEY_DIST, SMP_KEY_DIST))


def smp_value(direction: int, code: int, label: str):
    """SMP PDU of a code and a 16-byte value (Confirm 0x03, Random 0x04, Identity Information
    0x08, DHKey Check 0x0d), the value being fixed filler derived from label."""
    return smp(direction, bytes([code]) + label_bytes(label))


def smp_identity_address_information(direction: int, address: str):
    """SMP: Identity Address Information (0x09) len 7: address type public (0x00), address"""
    return smp(direction, struct.pack("<BB6s", 0x09, 0x00, bdaddr(address)))


# --- L2CAP LE signaling for this session ----------------------------------------

def l2cap_credit_based_connection_request(identifier: int = 2):
    """L2CAP: Credit Based Connection Request (0x17) ident 2 len 12 (btmon: Enhanced Credit
    Connection Request; Wireshark 4.0 does not know the code): SPSM 0x0027 (EATT), MTU 512,
    MPS 64, initial credits 10, source CIDs 0x0040 0x0041"""
    data = struct.pack("<HHHH", SPSM_EATT, EATT_MTU, EATT_MPS, EATT_CREDITS)
    data += b"".join(struct.pack("<H", cid) for cid in EATT_HOST_CIDS)
    return le_signaling(SENT, 0x17, identifier, data)


def l2cap_credit_based_connection_response(identifier: int = 2):
    """L2CAP: Credit Based Connection Response (0x18) ident 2 len 12 (btmon: Enhanced Credit
    Connection Response): MTU 512, MPS 64, initial credits 10, result 0x0000 (all connections
    successful), destination CIDs 0x0080 0x0081"""
    data = struct.pack("<HHHH", EATT_MTU, EATT_MPS, EATT_CREDITS, 0x0000)
    data += b"".join(struct.pack("<H", cid) for cid in EATT_PEER_CIDS)
    return le_signaling(RECEIVED, 0x18, identifier, data)


def l2cap_flow_control_credit_indication(cid: int, credits: int, identifier: int = 3):
    """L2CAP: Flow Control Credit Indication (0x16) ident 3 len 4 (btmon and Wireshark:
    LE Flow Control Credit): CID (the sender's receiving CID), credits"""
    return le_signaling(SENT, 0x16, identifier, struct.pack("<HH", cid, credits))


def l2cap_connection_parameter_update_request(interval_min: int, interval_max: int, latency: int,
                                              timeout: int, identifier: int = 1):
    """L2CAP: Connection Parameter Update Request (0x12) ident 1 len 8, from the peripheral:
    interval min/max (×1.25 ms), latency, supervision timeout (×10 ms)"""
    return le_signaling(RECEIVED, 0x12, identifier,
                        struct.pack("<HHHH", interval_min, interval_max, latency, timeout))


def l2cap_connection_parameter_update_response(identifier: int = 1):
    """L2CAP: Connection Parameter Update Response (0x13) ident 1 len 2: result 0x0000 (accepted)"""
    return le_signaling(SENT, 0x13, identifier, struct.pack("<H", 0x0000))


def nocp(count: int):
    """HCI Event: Number of Completed Packets (0x13) plen 5: 1 handle, handle 0x0041, count"""
    return number_of_completed_packets(count, handle=SECURE_HANDLE)


#: Bytes of the stray continuation: a PB=0b01 fragment that follows a complete PDU, so no
#: L2CAP PDU is being reassembled when it arrives.
STRAY_CONTINUATION = bytes.fromhex("0badf00d0badf00d")

#: Connection parameters the peripheral asks for: 45-60 ms (0x0024-0x0030), latency 4,
#: supervision timeout 5 s (0x01f4).  The controller settles on 60 ms.
UPDATE_MIN, UPDATE_MAX, UPDATE_LATENCY, UPDATE_TIMEOUT = 0x0024, 0x0030, 4, 0x01F4


SECURE_SESSION_STEPS = [
    # 1. Buffer size, extended connection set-up
    (0,      le_read_buffer_size()),                            # HCI Command: LE Read Buffer Size [v1] (0x08|0x0002)
    (412,    le_read_buffer_size_complete()),                   # HCI Event: Command Complete (0x0e) LE Read Buffer Size: 27 bytes x 8
    (2_305,  le_extended_create_connection(SECURE_PEER)),       # HCI Command: LE Extended Create Connection [v1] (0x08|0x0043), 1M
    (538,    command_status(OP_LE_EXTENDED_CREATE_CONNECTION)), # HCI Event: Command Status (0x0f) LE Extended Create Connection, Success
    (8_914,  le_enhanced_connection_complete_v2(SECURE_PEER)),  # LE Enhanced Connection Complete [v2] (0x29): handle 0x0041, central
    # 2. Data length and PHY
    (1_206,  le_set_data_length(251, 2120)),                    # HCI Command: LE Set Data Length (0x08|0x0022) 251 octets 2120 µs
    (603,    le_set_data_length_complete()),                    # HCI Event: Command Complete (0x0e) LE Set Data Length, handle 0x0041
    (3_187,  le_data_length_change(251, 2120)),                 # LE Data Length Change (0x07): TX/RX 251 octets 2120 µs
    (1_044,  le_set_phy(PHY_2M, PHY_2M)),                       # HCI Command: LE Set PHY (0x08|0x0032) TX 2M RX 2M
    (497,    command_status(OP_LE_SET_PHY)),                    # HCI Event: Command Status (0x0f) LE Set PHY, Success
    (4_622,  le_phy_update_complete(PHY_2M, PHY_2M)),           # LE PHY Update Complete (0x0c): TX 2M, RX 2M
    # 3. ATT MTU on the fixed channel (CID 0x0004)
    (1_318,  att_fixed(SENT, struct.pack("<BH", 0x02, 247))),   # ATT: Exchange MTU Request (0x02), client RX MTU 247
    (2_911,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (3_406,  att_fixed(RECEIVED, struct.pack("<BH", 0x03, 185))),  # ATT: Exchange MTU Response (0x03), server RX MTU 185
    # 4. SMP, LE Secure Connections, numeric comparison (CID 0x0006)
    (1_127,  smp_pairing_request()),                            # SMP: Pairing Request (0x01) DisplayYesNo, AuthReq 0x2d, 16, 0x0b/0x0b
    (2_874,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (4_035,  smp_pairing_response()),                           # SMP: Pairing Response (0x02) DisplayYesNo, AuthReq 0x2d, 16, 0x0b/0x0b
    (1_563,  acl_fragment(SENT, CENTRAL_PUBLIC_KEY_L2CAP, 0, 27)),
    #         ACL TX PB=0b00 dlen 27: L2CAP len 65 CID 0x0006, first 23 bytes of SMP: Pairing Public Key (0x0c)
    (96,     acl_fragment(SENT, CENTRAL_PUBLIC_KEY_L2CAP, 27, 54)),
    #         ACL TX PB=0b01 dlen 27: continuation, next 27 bytes of the central's public key
    (88,     acl_fragment(SENT, CENTRAL_PUBLIC_KEY_L2CAP, 54, 69)),
    #         ACL TX PB=0b01 dlen 15: continuation, last 15 bytes (PDU complete)
    (3_012,  nocp(3)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 3
    (5_840,  acl_fragment(RECEIVED, PERIPHERAL_PUBLIC_KEY_L2CAP, 0, 27)),
    #         ACL RX PB=0b10 dlen 27: L2CAP len 65 CID 0x0006, first 23 bytes of SMP: Pairing Public Key (0x0c)
    (1_204,  acl_fragment(RECEIVED, PERIPHERAL_PUBLIC_KEY_L2CAP, 27, 54)),
    #         ACL RX PB=0b01 dlen 27: continuation, next 27 bytes of the peripheral's public key
    (1_198,  acl_fragment(RECEIVED, PERIPHERAL_PUBLIC_KEY_L2CAP, 54, 69)),
    #         ACL RX PB=0b01 dlen 15: continuation, last 15 bytes (PDU complete)
    (6_377,  smp_value(RECEIVED, 0x03, "peripheral confirm")),  # SMP: Pairing Confirm (0x03) from the responder (Cb)
    (1_085,  smp_value(SENT, 0x04, "central random")),          # SMP: Pairing Random (0x04) from the initiator (Na)
    (2_960,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (3_731,  smp_value(RECEIVED, 0x04, "peripheral random")),   # SMP: Pairing Random (0x04) from the responder (Nb)
    (8_466,  smp_value(SENT, 0x0D, "central dhkey check")),     # SMP: Pairing DHKey Check (0x0d) from the initiator (Ea)
    (2_893,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (4_108,  smp_value(RECEIVED, 0x0D, "peripheral dhkey check")),  # SMP: Pairing DHKey Check (0x0d) from the responder (Eb)
    (917,    le_enable_encryption(SECURE_LTK)),                 # HCI Command: LE Enable Encryption (0x08|0x0019), Rand 0, EDIV 0, LTK
    (455,    command_status(OP_LE_ENABLE_ENCRYPTION)),          # HCI Event: Command Status (0x0f) LE Enable Encryption, Success
    (7_652,  encryption_change()),                              # HCI Event: Encryption Change (0x08) handle 0x0041, enabled 0x01
    (3_314,  smp_value(RECEIVED, 0x08, "peripheral IRK")),      # SMP: Identity Information (0x08) from the responder, IRK
    (1_046,  smp_identity_address_information(RECEIVED, SECURE_PEER)),
    #         SMP: Identity Address Information (0x09) from the responder: public C0:FF:EE:12:34:56
    (1_822,  smp_value(SENT, 0x08, "central IRK")),             # SMP: Identity Information (0x08) from the initiator, IRK
    (104,    smp_identity_address_information(SENT, LOCAL_ADDR)),
    #         SMP: Identity Address Information (0x09) from the initiator: public 4D:C1:64:29:99:6D
    (2_977,  nocp(2)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 2
    # 5. EATT bearers over the enhanced credit based flow control mode (LE signaling, CID 0x0005)
    (5_201,  l2cap_credit_based_connection_request()),          # L2CAP: Credit Based Connection Request (0x17) SPSM 0x0027, 0x0040 0x0041
    (2_938,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (3_870,  l2cap_credit_based_connection_response()),         # L2CAP: Credit Based Connection Response (0x18) result 0, 0x0080 0x0081
    # 6. ATT over EATT: K-frames, host->peer on CID 0x0080, peer->host on CID 0x0040
    (1_399,  le_acl(SENT, k_frame(EATT_PEER_CIDS[0], att_pdu(0x0A, SENSOR_LOG_VALUE), 3))),
    #         ACL TX PB=0b00 dlen 9: K-frame CID 0x0080, SDU length 3, ATT: Read Request (0x0a) handle 0x002a
    (2_904,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (3_522,  acl_fragment(RECEIVED, SENSOR_LOG_KFRAME_1, 0, 27)),
    #         ACL RX PB=0b10 dlen 27: K-frame CID 0x0040 len 64, SDU length 101, first 21 bytes of
    #         ATT: Read Response (0x0b) (sensor log 00 01 02 ...)
    (1_172,  acl_fragment(RECEIVED, SENSOR_LOG_KFRAME_1, 27, 68)),
    #         ACL RX PB=0b01 dlen 41: continuation, the first K-frame's last 41 bytes (SDU bytes 21-61)
    (1_231,  le_acl(RECEIVED, SENSOR_LOG_KFRAME_2)),
    #         ACL RX PB=0b10 dlen 43: second K-frame CID 0x0040 len 39, no SDU length, SDU bytes 62-100 (SDU complete)
    (6_048,  le_acl(RECEIVED, k_frame(EATT_HOST_CIDS[0], att_pdu(0x1B, MEASUREMENT_VALUE, b"\x17\x02\x00\x00"), 7))),
    #         ACL RX PB=0b10 dlen 13: K-frame CID 0x0040, SDU length 7, ATT: Handle Value Notification (0x1b)
    #         handle 0x002c, value 17 02 00 00
    (1_436,  l2cap_flow_control_credit_indication(EATT_HOST_CIDS[0], 3)),
    #         L2CAP: Flow Control Credit Indication (0x16) CID 0x0040, credits 3 (the three K-frames received)
    (2_881,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    # 7. Back on the fixed ATT channel (CID 0x0004)
    (3_163,  att_fixed(SENT, att_pdu(0x12, MEASUREMENT_CCCD, b"\x01\x00"))),
    #         ATT: Write Request (0x12) handle 0x002d, value 01 00 (notifications on)
    (2_926,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (3_614,  att_fixed(RECEIVED, b"\x13")),                     # ATT: Write Response (0x13)
    (1_508,  att_fixed(SENT, att_pdu(0x52, CONTROL_POINT_VALUE, b"\x01\x0a\x00"))),
    #         ATT: Write Command (0x52) handle 0x0030, value 01 0a 00
    (2_947,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (4_381,  att_fixed(RECEIVED, att_pdu(0x1D, ALERT_VALUE, b"\x02\x01"))),
    #         ATT: Handle Value Indication (0x1d) handle 0x0032, value 02 01
    (911,    att_fixed(SENT, b"\x1e")),                         # ATT: Handle Value Confirmation (0x1e)
    (2_955,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (6_204,  acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 0, 27)),
    #         ACL RX PB=0b10 dlen 27: L2CAP len 200 CID 0x0004, first 23 bytes of ATT: Handle Value
    #         Notification (0x1b) handle 0x002c, 200-byte PDU > ATT_MTU 185
    (402,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 27, 54)),    # ACL RX PB=0b01 dlen 27: continuation 2 of 8
    (398,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 54, 81)),    # ACL RX PB=0b01 dlen 27: continuation 3 of 8
    (405,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 81, 108)),   # ACL RX PB=0b01 dlen 27: continuation 4 of 8
    (396,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 108, 135)),  # ACL RX PB=0b01 dlen 27: continuation 5 of 8
    (401,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 135, 162)),  # ACL RX PB=0b01 dlen 27: continuation 6 of 8
    (399,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 162, 189)),  # ACL RX PB=0b01 dlen 27: continuation 7 of 8
    (403,    acl_fragment(RECEIVED, OVERSIZED_NOTIFICATION_L2CAP, 189, 204)),  # ACL RX PB=0b01 dlen 15: last fragment, PDU complete
    # 8. Hostile input
    (5_117,  att_fixed(SENT, bytes([0x12, MEASUREMENT_CCCD]))),
    #         ATT: Write Request (0x12) MALFORMED: 1 parameter byte (handle cut after 0x2d), needs at least 2
    (2_903,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (3_688,  att_fixed(RECEIVED, struct.pack("<BBHB", 0x01, 0x12, 0x0000, 0x04))),
    #         ATT: Error Response (0x01): Write Request, handle 0x0000, Invalid PDU (0x04)
    (2_216,  le_acl(RECEIVED, STRAY_CONTINUATION, continuation=True)),
    #         ACL RX PB=0b01 dlen 8: continuing fragment with no start (nothing is being reassembled)
    # 9. Connection parameter update requested by the peripheral
    (7_340,  l2cap_connection_parameter_update_request(UPDATE_MIN, UPDATE_MAX, UPDATE_LATENCY, UPDATE_TIMEOUT)),
    #         L2CAP: Connection Parameter Update Request (0x12) ident 1: 45-60 ms, latency 4, timeout 5 s
    (1_152,  l2cap_connection_parameter_update_response()),     # L2CAP: Connection Parameter Update Response (0x13) ident 1, accepted
    (374,    le_connection_update(UPDATE_MIN, UPDATE_MAX, UPDATE_LATENCY, UPDATE_TIMEOUT)),
    #         HCI Command: LE Connection Update (0x08|0x0013) handle 0x0041, 45-60 ms, latency 4, timeout 5 s
    (481,    command_status(OP_LE_CONNECTION_UPDATE)),          # HCI Event: Command Status (0x0f) LE Connection Update, Success
    (2_567,  nocp(1)),                                          # HCI Event: Number of Completed Packets, handle 0x0041 count 1
    (9_086,  le_connection_update_complete(UPDATE_MAX, UPDATE_LATENCY, UPDATE_TIMEOUT)),
    #         LE Connection Update Complete (0x03): handle 0x0041, interval 60 ms, latency 4, timeout 5 s
    # 10. Disconnect
    (8_233,  disconnect(0x13, handle=SECURE_HANDLE)),           # HCI Command: Disconnect (0x01|0x0006) handle 0x0041 reason 0x13
    (529,    command_status(OP_DISCONNECT)),                    # HCI Event: Command Status (0x0f) Disconnect, Success
    (9_372,  disconnection_complete(0x16, handle=SECURE_HANDLE)),  # HCI Event: Disconnect Complete (0x05) handle 0x0041 reason 0x16
]

SECURE_SESSION = build_session(SECURE_SESSION_STEPS, T0_SECURE_US)


# ---------------------------------------------------------------------------
# The "scanner" session: extended, periodic and directed advertising, beacons
# ---------------------------------------------------------------------------
#
# A host scans with LE Set Extended Scan Enable and hears extended advertising
# (legacy PDUs and a fragmented ADV_EXT_IND chain from a resolvable private
# address), Eddystone and Exposure Notification beacons, a periodic train, a
# directed advertisement and two malformed AD structures.

#: 2024-05-14T11:00:00Z, Unix microseconds.
T0_SCANNER_US = T0_US + 90 * 60 * 1_000_000
#: A resolvable private address made with the IRK of Core 6.0, Vol 3, Part H,
#: D.7 (IRK ec0234a3 57c8ad05 341010a6 0a397d9b, prand 0x708194 → hash 0x0dfbaa).
SCANNER_RPA = "70:81:94:0D:FB:AA"
SCANNER_IRK = "ec0234a357c8ad05341010a60a397d9b"
#: Public advertiser of legacy PDUs through extended reports.
SCANNER_LAMP = "00:1A:7D:DA:71:13"
#: Eddystone beacon (static random) and Exposure Notification phone (non-resolvable).
SCANNER_EDDYSTONE = "C3:11:22:33:44:55"
SCANNER_EN = "3A:01:02:03:04:05"
SCANNER_DIRECTED = "D4:36:39:67:A2:61"
SCANNER_LOCAL = "4D:C1:64:29:99:6D"
OP_LE_SET_EXT_SCAN_ENABLE = opcode(0x08, 0x0042)

#: Extended Event_Type values: bit 0 connectable, 1 scannable, 2 directed, 3 scan
#: response, 4 legacy, bits 5-6 Data_Status (0 complete, 1 more to come).
EXT_LEGACY_ADV_IND, EXT_LEGACY_SCAN_RSP = 0x0013, 0x001B
EXT_CONNECTABLE, EXT_MORE_DATA = 0x0001, 0x0020

#: A 60-octet manufacturer payload (Nordic Semiconductor, 0x0059) that makes the
#: extended advertising data 90 octets: it arrives in two reports.
SCANNER_EXT_DATA = (
    ad(0x01, b"\x06") + ad(0x09, b"Lab Sensor 42") + ad(0x02, struct.pack("<HH", 0x181A, 0x180F))
    + ad(0xFF, struct.pack("<H", 0x0059) + bytes(range(60)))
    + ad(0x24, "\u0017//example.com/lab".encode())
)
#: Eddystone-UID: frame 0x00, tx -20 dBm, namespace 00112233445566778899, instance aabbccddeeff.
EDDYSTONE_UID_DATA = ad(0x01, b"\x06") + ad(0x03, struct.pack("<H", 0xFEAA)) + ad(
    0x16, struct.pack("<H", 0xFEAA) + bytes.fromhex("00ec00112233445566778899aabbccddeeff0000"))
#: Eddystone-TLM: version 0, 3000 mV, 22.5 °C, 1234 PDUs, uptime 5678.9 s.
EDDYSTONE_TLM_DATA = ad(0x01, b"\x06") + ad(0x03, struct.pack("<H", 0xFEAA)) + ad(
    0x16, struct.pack("<H", 0xFEAA) + bytes.fromhex("20000bb81680000004d20000ddd5"))
#: Exposure Notification: 16-bit UUID 0xfd6f, service data RPI 00..0f + AEM a0a1a2a3.
EXPOSURE_DATA = ad(0x01, b"\x1a") + ad(0x03, struct.pack("<H", 0xFD6F)) + ad(
    0x16, struct.pack("<H", 0xFD6F) + bytes(range(16)) + bytes.fromhex("a0a1a2a3"))
#: Malformed: a Tx Power Level with two octets (adv.ad.length.invalid), then a
#: Complete Local Name whose length (9) runs past the end (adv.ad.truncated).
MALFORMED_AD_DATA = ad(0x0A, b"\x04\x00") + bytes([0x09, 0x09]) + b"Cut"


def le_extended_advertising_report(event_type: int, addr_type: int, addr: str, data: bytes, rssi: int,
                                   sid: int = 0xFF, tx_power: int = 127, secondary_phy: int = 0):
    """HCI Event: LE Meta Event (0x3e) - LE Extended Advertising Report (0x0d): num reports 1,
    event type u16, address type, address, primary PHY 1M, secondary PHY, SID, TX power, RSSI,
    periodic interval 0, direct address type 0, direct address 00:00:00:00:00:00, data length, data"""
    params = struct.pack("<BHB6sBBBbbHB6sB", 1, event_type, addr_type, bdaddr(addr), 0x01, secondary_phy,
                         sid, tx_power, rssi, 0, 0, bytes(6), len(data)) + data
    return le_meta(0x0D, params)


def scanner_steps():
    """The scanner session as (delta µs, frame) steps."""
    half = 50  # the first report carries 50 octets of the 90, Data_Status "more to come"
    legacy_two = struct.pack("<BBB6sB", 2, ADV_NONCONN_IND, 0x01, bdaddr(SCANNER_EDDYSTONE),
                             len(EDDYSTONE_UID_DATA)) + EDDYSTONE_UID_DATA + struct.pack("<b", -70) + struct.pack(
        "<BB6sB", ADV_NONCONN_IND, 0x01, bdaddr(SCANNER_EN), len(EXPOSURE_DATA)) + EXPOSURE_DATA + struct.pack("<b", -80)
    return [
        (0, hci_command(OP_LE_SET_EXT_SCAN_ENABLE, struct.pack("<BBHH", 1, 0, 0, 0))),
        #   HCI Command: LE Set Extended Scan Enable (0x08|0x0042) plen 6: enable, no duplicate filter
        (412, command_complete(OP_LE_SET_EXT_SCAN_ENABLE)),  # HCI Event: Command Complete, Success
        (20_000, le_extended_advertising_report(EXT_LEGACY_ADV_IND, 0x00, SCANNER_LAMP,
                                                ad(0x01, b"\x06") + ad(0x09, b"Desk Lamp"), -48)),
        #   LE Extended Advertising Report: Legacy ADV_IND (0x0013), public 00:1A:7D:DA:71:13,
        #   RSSI -48, Flags 0x06, Complete Local Name "Desk Lamp"
        (900, le_extended_advertising_report(EXT_LEGACY_SCAN_RSP, 0x00, SCANNER_LAMP,
                                             ad(0x0A, b"\x00") + ad(0x19, struct.pack("<H", 0x0585)), -49)),
        #   LE Extended Advertising Report: Legacy SCAN_RSP to ADV_IND (0x001b), Tx Power 0 dBm,
        #   Appearance 0x0585 (Light Fixtures: Desk Light)
        (30_000, le_extended_advertising_report(EXT_CONNECTABLE | EXT_MORE_DATA, 0x01, SCANNER_RPA,
                                                SCANNER_EXT_DATA[:half], -61, sid=3, tx_power=5,
                                                secondary_phy=0x02)),
        #   LE Extended Advertising Report: connectable (0x0021), Data_Status incomplete, more to come;
        #   random (RPA) 70:81:94:0D:FB:AA, SID 3, TX +5 dBm, RSSI -61, 2M secondary, 50 of 90 octets
        (1_200, le_extended_advertising_report(EXT_CONNECTABLE, 0x01, SCANNER_RPA, SCANNER_EXT_DATA[half:],
                                               -60, sid=3, tx_power=5, secondary_phy=0x02)),
        #   LE Extended Advertising Report: connectable (0x0001), complete: the last 40 octets. The
        #   whole data: Flags 0x06, "Lab Sensor 42", incomplete 16-bit UUIDs 181a 180f, manufacturer
        #   0x0059 60 octets, URI 0x17 (https:) //example.com/lab
        (15_000, le_meta(0x02, legacy_two)),
        #   LE Advertising Report with two reports: ADV_NONCONN_IND Eddystone-UID from static
        #   random C3:11:22:33:44:55 (RSSI -70), ADV_NONCONN_IND Exposure Notification from
        #   non-resolvable 3A:01:02:03:04:05 (RSSI -80)
        (100_000, le_advertising_report(ADV_NONCONN_IND, 0x01, SCANNER_EDDYSTONE, EDDYSTONE_TLM_DATA, -71)),
        #   LE Advertising Report: ADV_NONCONN_IND Eddystone-TLM, 3000 mV, 22.5 °C, count 1234, 5678.9 s
        (5_000, le_meta(0x0B, struct.pack("<BBB6sB6sb", 1, ADV_DIRECT_IND, 0x00, bdaddr(SCANNER_DIRECTED),
                                          0x01, bdaddr(SCANNER_LOCAL), -55))),
        #   LE Directed Advertising Report: ADV_DIRECT_IND from public D4:36:39:67:A2:61 to
        #   random 4D:C1:64:29:99:6D, RSSI -55
        (7_000, le_meta(0x0E, struct.pack("<BHBB6sBHB", 0x00, 0x0001, 3, 0x01, bdaddr(SCANNER_RPA), 0x02,
                                          80, 0x05))),
        #   LE Periodic Advertising Sync Established [v1]: Success, Sync_Handle 0x0001, SID 3,
        #   random 70:81:94:0D:FB:AA, PHY 2M, interval 80 (100 ms), clock accuracy 0x05
        (10_000, le_meta(0x0F, struct.pack("<HbbBBB", 0x0001, 5, -62, 0xFF, 0x00, 7)
                         + ad(0x16, struct.pack("<H", 0x1234) + b"\x01\x02\x03"))),
        #   LE Periodic Advertising Report [v1]: Sync_Handle 0x0001, TX +5, RSSI -62, CTE none
        #   (0xff), complete, Service Data 0x1234 010203
        (50_000, le_advertising_report(ADV_IND, 0x00, SCANNER_LAMP, MALFORMED_AD_DATA, -50)),
        #   LE Advertising Report: ADV_IND from 00:1A:7D:DA:71:13 whose data is malformed:
        #   Tx Power Level of 2 octets, then a Complete Local Name of length 9 with 4 octets left
        (20_000, hci_command(OP_LE_SET_EXT_SCAN_ENABLE, struct.pack("<BBHH", 0, 0, 0, 0))),
        #   HCI Command: LE Set Extended Scan Enable (0x08|0x0042): disable
        (400, command_complete(OP_LE_SET_EXT_SCAN_ENABLE)),  # HCI Event: Command Complete, Success
    ]


SCANNER_SESSION = build_session(scanner_steps(), T0_SCANNER_US)


# ---------------------------------------------------------------------------
# Linux monitor view of the session
# ---------------------------------------------------------------------------

MON_NEW_INDEX, MON_COMMAND, MON_EVENT, MON_ACL_TX, MON_ACL_RX = 0, 2, 3, 4, 5
MON_OPEN_INDEX, MON_INDEX_INFO, MON_SYSTEM_NOTE = 8, 10, 12
HCI_DEV_NONE = 0xFFFF


class MonitorRecord(NamedTuple):
    ts_us: int
    index: int
    opcode: int
    payload: bytes


def monitor_opcode(rec: Record) -> int:
    """Map (H4 type, direction) to the monitor opcode: 2 cmd, 3 evt, 4 ACL TX, 5 ACL RX."""
    return {(H4_CMD, SENT): MON_COMMAND, (H4_EVT, RECEIVED): MON_EVENT,
            (H4_ACL, SENT): MON_ACL_TX, (H4_ACL, RECEIVED): MON_ACL_RX}[(rec.h4_type, rec.direction)]


def monitor_records() -> list[MonitorRecord]:
    """The records btmon would write: the kernel's replay of hci0, a system note, then the session."""
    t = SESSION[0].ts_us
    prelude = [
        # = New Index: 4D:C1:64:29:99:6D (Primary,USB,hci0)
        MonitorRecord(t, 0, MON_NEW_INDEX,
                      struct.pack("<BB6s8s", 0x00, 0x01, bdaddr(LOCAL_ADDR), b"hci0")),
        # = Open Index: 4D:C1:64:29:99:6D
        MonitorRecord(t, 0, MON_OPEN_INDEX, b""),
        # = Index Info: 4D:C1:64:29:99:6D (Intel Corp.)
        MonitorRecord(t, 0, MON_INDEX_INFO,
                      struct.pack("<6sH", bdaddr(LOCAL_ADDR), MANUFACTURER_INTEL)),
        # = Note: Bluetooth subsystem version 2.22
        MonitorRecord(t, HCI_DEV_NONE, MON_SYSTEM_NOTE, b"Bluetooth subsystem version 2.22\0"),
    ]
    return prelude + [MonitorRecord(r.ts_us, 0, monitor_opcode(r), r.payload) for r in SESSION]


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------

def btsnoop_header(datalink: int) -> bytes:
    """btsnoop file header: "btsnoop\\0", version 1 BE, datalink BE."""
    return b"btsnoop\0" + struct.pack(">II", 1, datalink)


def btsnoop_record(ts_us: int, flags: int, data: bytes, orig_len: int | None = None) -> bytes:
    """btsnoop record: orig len, incl len, flags, drops 0, timestamp (µs since 0000-01-01), BE."""
    orig = len(data) if orig_len is None else orig_len
    return struct.pack(">IIIIq", orig, len(data), flags, 0, ts_us + BTSNOOP_EPOCH_DELTA) + data


def h4_flags(rec: Record) -> int:
    """btsnoop 1001/1002 flags: bit0 direction (1 received), bit1 command/event."""
    return rec.direction | (2 if rec.h4_type in (H4_CMD, H4_EVT) else 0)


def h4_bytes(rec: Record) -> bytes:
    return bytes([rec.h4_type]) + rec.payload


def write_btsnoop_h4(records: list[Record], truncate_notifications_to: int | None = None) -> bytes:
    """btsnoop datalink 1002 (H4). Optionally truncate notification-carrying ACL records
    (included length only, original length kept) as Android's filtered snoop log does."""
    out = bytearray(btsnoop_header(1002))
    for rec in records:
        data = h4_bytes(rec)
        if truncate_notifications_to is not None and is_notification_first_fragment(rec):
            out += btsnoop_record(rec.ts_us, h4_flags(rec), data[:truncate_notifications_to], len(data))
        else:
            out += btsnoop_record(rec.ts_us, h4_flags(rec), data)
    return bytes(out)


def write_btsnoop_h1(records: list[Record]) -> bytes:
    """btsnoop datalink 1001 (H1): no H4 type byte, the type comes from the flags."""
    out = bytearray(btsnoop_header(1001))
    for rec in records:
        out += btsnoop_record(rec.ts_us, h4_flags(rec), rec.payload)
    return bytes(out)


def write_btsnoop_monitor(mrecords: list[MonitorRecord]) -> bytes:
    """btsnoop datalink 2001 (Linux monitor): flags = index << 16 | opcode."""
    out = bytearray(btsnoop_header(2001))
    for m in mrecords:
        out += btsnoop_record(m.ts_us, (m.index << 16) | m.opcode, m.payload)
    return bytes(out)


PCAP_MAGIC_US = 0xA1B2C3D4
PCAP_MAGIC_NS = 0xA1B23C4D
DLT_BLUETOOTH_HCI_H4_WITH_PHDR = 201
DLT_BLUETOOTH_LINUX_MONITOR = 254


def pcap_file(packets: list[tuple[int, bytes]], dlt: int, *, nanoseconds: bool = False,
              endian: str = "<", extra_ns: int = 0) -> bytes:
    """Classic pcap: global header then (ts_sec, ts_frac, incl, orig) + data per packet.
    packets are (unix µs, data); extra_ns is added to every timestamp in ns files."""
    magic = PCAP_MAGIC_NS if nanoseconds else PCAP_MAGIC_US
    out = bytearray(struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, 65535, dlt))
    for ts_us, data in packets:
        sec, usec = divmod(ts_us, 1_000_000)
        frac = usec * 1000 + extra_ns if nanoseconds else usec
        out += struct.pack(endian + "IIII", sec, frac, len(data), len(data)) + data
    return bytes(out)


def phdr201(rec: Record) -> bytes:
    """DLT 201 packet: direction u32 BE (0 sent, 1 received), H4 type, HCI packet."""
    return struct.pack(">I", rec.direction) + h4_bytes(rec)


def phdr254(m: MonitorRecord) -> bytes:
    """DLT 254 packet: adapter id u16 BE, opcode u16 BE, monitor payload."""
    return struct.pack(">HH", m.index, m.opcode) + m.payload


def pad4(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def pcapng_option(code: int, value: bytes) -> bytes:
    return struct.pack("<HH", code, len(value)) + pad4(value)


def pcapng_block(block_type: int, body: bytes) -> bytes:
    total = 12 + len(body)
    return struct.pack("<II", block_type, total) + body + struct.pack("<I", total)


def write_pcapng(records: list[Record]) -> bytes:
    """pcapng: one SHB (with shb_userappl), one IDB (DLT 201, if_name hci0, default µs
    resolution), one Enhanced Packet Block per record. Little-endian."""
    shb_opts = pcapng_option(4, b"bleanalyze Samples/make-samples.py") + pcapng_option(0, b"")
    shb = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1) + shb_opts)
    idb_opts = pcapng_option(2, b"hci0") + pcapng_option(0, b"")
    idb = pcapng_block(0x00000001, struct.pack("<HHI", DLT_BLUETOOTH_HCI_H4_WITH_PHDR, 0, 65535) + idb_opts)
    out = bytearray(shb + idb)
    for rec in records:
        data = phdr201(rec)
        body = struct.pack("<IIIII", 0, rec.ts_us >> 32, rec.ts_us & 0xFFFFFFFF, len(data), len(data))
        out += pcapng_block(0x00000006, body + pad4(data))
    return bytes(out)


PKLG_CMD, PKLG_EVT, PKLG_ACL_SENT, PKLG_ACL_RECV, PKLG_NOTE = 0x00, 0x01, 0x02, 0x03, 0xFC


def pklg_type(rec: Record) -> int:
    return {(H4_CMD, SENT): PKLG_CMD, (H4_EVT, RECEIVED): PKLG_EVT,
            (H4_ACL, SENT): PKLG_ACL_SENT, (H4_ACL, RECEIVED): PKLG_ACL_RECV}[(rec.h4_type, rec.direction)]


def write_pklg(records: list[Record], endian: str) -> bytes:
    """Apple PacketLogger: per record len u32 (= 8 + 1 + payload), seconds u32, µs u32,
    type u8, payload without H4 byte.  endian "<" = v2 (LE), ">" = v1 (BE).
    A 0xFC note "bleanalyze sample" comes first, at the first record's time."""
    entries = [(records[0].ts_us, PKLG_NOTE, b"bleanalyze sample")]
    entries += [(r.ts_us, pklg_type(r), r.payload) for r in records]
    out = bytearray()
    for ts_us, ptype, payload in entries:
        sec, usec = divmod(ts_us, 1_000_000)
        out += struct.pack(endian + "IIIB", 9 + len(payload), sec, usec, ptype) + payload
    return bytes(out)


# btsnooz (AOSP btif_debug_btsnoop.cc / btsnooz.py)
SNOOZ_TYPE = {(H4_EVT, RECEIVED): 0x10, (H4_ACL, RECEIVED): 0x11,
              (H4_CMD, SENT): 0x20, (H4_ACL, SENT): 0x21}
SNOOZ_TRUNCATED_LEN = 14  # length field (type byte included) of the one truncated record


def btsnooz_v2(records: list[Record]) -> tuple[bytes, int]:
    """btsnooz version 2 blob and its uncompressed record-stream size.

    Preamble (not compressed): version u8 = 2, last_timestamp u64 LE.  AOSP fills
    last_timestamp from btif_debug_ts() = gettimeofday() in Unix µs, and its reader
    btsnooz.py adds 0x00dcddb30f2f8000 itself, so the value written here is the last
    record's Unix µs.  Then zlib(records): length u16 (payload + type byte), packet_length
    u16 (original length + 1), delta u32 (µs since the previous record, 0 for the first),
    type u8, payload.  The first notification carrying RR intervals is cut to length 14.
    """
    stream = bytearray()
    prev_ts = records[0].ts_us
    truncated_one = False
    for rec in records:
        payload = rec.payload
        packet_length = len(payload) + 1
        if (not truncated_one and is_notification_first_fragment(rec)
                and packet_length > SNOOZ_TRUNCATED_LEN):
            payload = payload[:SNOOZ_TRUNCATED_LEN - 1]
            truncated_one = True
        delta = rec.ts_us - prev_ts
        prev_ts = rec.ts_us
        stream += struct.pack("<HHIB", len(payload) + 1, packet_length, delta,
                              SNOOZ_TYPE[(rec.h4_type, rec.direction)]) + payload
    preamble = struct.pack("<BQ", 2, records[-1].ts_us)
    return preamble + zlib.compress(bytes(stream)), len(stream)


def write_bugreport_txt(records: list[Record]) -> bytes:
    """A small fake Android bugreport with the BTSNOOP_LOG_SUMMARY section as AOSP prints it:
    "(N bytes in)" = uncompressed record stream size, "(M bytes out)" = 9 + base64 characters
    (AOSP's own counter), base64 wrapped at 128 characters per line."""
    blob, bytes_in = btsnooz_v2(records)
    b64 = base64.b64encode(blob).decode("ascii")
    lines = [b64[i:i + 128] for i in range(0, len(b64), 128)]
    bytes_out = 9 + len(b64)
    text = "\n".join([
        "========================================================",
        "== dumpstate: 2024-05-14 09:31:00",
        "========================================================",
        "",
        "Build: UQ1A.240205.004",
        "Build fingerprint: 'google/sample/sample:14/UQ1A.240205.004/11269751:user/release-keys'",
        "Bootloader: sample-1.0-11104582",
        "Radio: g5300g-230927-231102-B-11078893",
        "Network: (unknown)",
        "Kernel: Linux version 5.10.198-android13-4-00050-g12f3388846c3-ab11290706 #1 SMP PREEMPT",
        "Uptime: up 0 weeks, 0 days, 3 hours, 12 minutes",
        "Bugreport format version: 2.0",
        "Dumpstate info: id=1 pid=4242 dry_run=0 parallel_run=1 args=-V 2.0 -d -z extra_options=bugreportfull",
        "",
        "------ DUMPSYS (/system/bin/dumpsys) ------",
        "-------------------------------------------------------------------------------",
        "DUMP OF SERVICE bluetooth_manager:",
        "",
        "Bluetooth Status",
        "  enabled: true",
        "  state: ON",
        "  address: XX:XX:XX:XX:99:6D",
        "  name: Sample Phone",
        "  time since enabled: 05-14 09:29:58.412",
        "",
        "Bluetooth Manager Connections:",
        "  D4:36:39:67:A2:61 HR-Sensor (disconnected)",
        "",
        "--- BEGIN:BTSNOOP_LOG_SUMMARY (%d bytes in) ---" % bytes_in,
        *lines,
        "--- END:BTSNOOP_LOG_SUMMARY (%d bytes out) ---" % bytes_out,
        "--------- 0.048s was the duration of dumpsys bluetooth_manager, ending at: 2024-05-14 09:31:00",
        "",
        "------ 0.130s was the duration of 'DUMPSYS' ------",
        "",
    ])
    return text.encode("ascii")


ZIP_DATE = (2024, 5, 14, 9, 31, 0)


def zip_entry(name: str) -> zipfile.ZipInfo:
    """A zip entry with fixed date, Unix creator and mode 0644 (so output does not depend on the host)."""
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o100644 << 16
    return info


def write_bugreport_zip(bugreport_txt: bytes) -> bytes:
    """An adb-bugreport-style zip: the main text entry, main_entry.txt naming it, version.txt."""
    main_name = "bugreport-sample-2024-05-14-09-31-00.txt"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zip_entry(main_name), bugreport_txt)
        zf.writestr(zip_entry("main_entry.txt"), main_name.encode("ascii"))
        zf.writestr(zip_entry("version.txt"), b"2.0")
    return buf.getvalue()


# ---------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------

def write_cut_off(full_btsnoop: bytes, records: list[Record], cut_record: int = 10) -> bytes:
    """hr-sensor.btsnoop cut in the middle of record <cut_record>'s (1-based) payload."""
    offset = 16
    for rec in records[:cut_record - 1]:
        offset += 24 + 1 + len(rec.payload)
    payload_len = 1 + len(records[cut_record - 1].payload)
    return full_btsnoop[:offset + 24 + payload_len // 2]


def write_bad_datalink(records: list[Record]) -> bytes:
    """Valid btsnoop header with datalink 1003 (BCSP, unsupported) and one H4 record (Reset)."""
    rec = records[0]
    return btsnoop_header(1003) + btsnoop_record(rec.ts_us, h4_flags(rec), h4_bytes(rec))


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# The "air-sensor" session: the hr-sensor's peripheral heard by an air sniffer
# (DLT 256, LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR, as Sniffle writes it)
# ---------------------------------------------------------------------------

DLT_BLUETOOTH_LE_LL_WITH_PHDR = 256
ADV_ACCESS_ADDRESS = 0x8E89BED6
AIR_ACCESS_ADDRESS = 0x50654A27
AIR_CRC_INIT = 0x0A2F85
AIR_CENTRAL = "5C:F3:70:8A:21:9E"
AIR_T0_US = T0_US + 60_000_000
AIR_INTERVAL_US = 30_000


def ll_crc(pdu: bytes, init: int) -> bytes:
    """The link layer's CRC-24 over the PDU, LFSR preset with CRCInit bit-reversed."""
    state = int(f"{init:024b}"[::-1], 2)
    for byte in pdu:
        for bit in range(8):
            feedback = (state ^ (byte >> bit)) & 1
            state >>= 1
            if feedback:
                state = (state | 1 << 23) ^ 0x5A6000
    return state.to_bytes(3, "little")


def rf_channel(index: int) -> int:
    """Channel index to RF channel: 37, 38, 39 are RF 0, 12, 39."""
    return {37: 0, 38: 12, 39: 39}.get(index, index + 1 if index <= 10 else index + 2)


def air_packet(index: int, rssi: int, pdu: bytes, access_address: int, crc_init: int,
               pdu_type: int, crc_valid: bool = True) -> bytes:
    """DLT 256: RF channel, signal, noise, AA offenses, reference AA, flags (dewhitened,
    signal valid, CRC checked, CRC valid, PDU type bits 7-9, LE 1M), then AA, PDU, CRC."""
    flags = 0x0001 | 0x0002 | 0x0400 | (0x0800 if crc_valid else 0) | pdu_type << 7
    crc = ll_crc(pdu, crc_init)
    if not crc_valid:
        crc = bytes([crc[0] ^ 0x5A]) + crc[1:]
    header = struct.pack("<BbbBIH", rf_channel(index), rssi, -128, 0, 0, flags)
    return header + struct.pack("<I", access_address) + pdu + crc


def adv_pdu(pdu_type: int, payload: bytes, tx_random: bool = False, rx_random: bool = False) -> bytes:
    """Advertising PDU header: type, TxAdd (bit 6), RxAdd (bit 7), length."""
    return bytes([pdu_type | (0x40 if tx_random else 0) | (0x80 if rx_random else 0), len(payload)]) + payload


def data_pdu(llid: int, nesn: int, sn: int, payload: bytes, md: int = 0) -> bytes:
    """Data channel PDU header: LLID, NESN, SN, MD, length."""
    return bytes([llid | nesn << 2 | sn << 3 | md << 4, len(payload)]) + payload


def air_session() -> list[tuple[int, bytes]]:
    """The frames, each with the line Wireshark shows for it."""
    adv_data = ad(0x01, b"\x06") + ad(0x09, b"HR-Sensor") + ad(0x03, struct.pack("<H", 0x180D))
    peripheral = bdaddr(PERIPHERAL)
    central = bdaddr(AIR_CENTRAL)
    frames: list[tuple[int, bytes]] = []

    def adv(t_us: int, channel: int, pdu: bytes) -> None:
        frames.append((AIR_T0_US + t_us, air_packet(channel, -52, pdu, ADV_ACCESS_ADDRESS, 0x555555, 0)))

    # 1-3: ADV_IND D4:36:39:67:A2:61 on channels 37, 38, 39: Flags, "HR-Sensor", 0x180d
    for n, channel in enumerate((37, 38, 39)):
        adv(n * 400, channel, adv_pdu(0x0, peripheral + adv_data))
    # 4: SCAN_REQ from the central (random) on 39; 5: SCAN_RSP with Tx Power +4 dBm
    adv(1_350, 39, adv_pdu(0x3, central + peripheral, tx_random=True))
    adv(1_650, 39, adv_pdu(0x4, peripheral + ad(0x0A, b"\x04")))
    # 6: CONNECT_IND 5C:F3:70:8A:21:9E -> D4:36:39:67:A2:61, AA 0x50654a27, CRCInit 0x0a2f85,
    #    WinSize 2, WinOffset 0, Interval 24 (30 ms), Latency 0, Timeout 72 (720 ms), all channels, Hop 7
    ll_data = struct.pack("<I", AIR_ACCESS_ADDRESS) + AIR_CRC_INIT.to_bytes(3, "little") + struct.pack(
        "<BHHHH", 2, 0, 24, 0, 72) + bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0x07])
    adv(101_000, 37, adv_pdu(0x5, central + peripheral + ll_data, tx_random=True))

    event = 0
    t_event = AIR_T0_US + 104_000

    def data(offset_us: int, central_sends: bool, pdu: bytes, crc_valid: bool = True) -> None:
        frames.append((t_event + offset_us, air_packet(event % 37, -48 if central_sends else -55, pdu,
                                                       AIR_ACCESS_ADDRESS, AIR_CRC_INIT,
                                                       2 if central_sends else 3, crc_valid)))

    def next_event(count: int = 1) -> None:
        nonlocal event, t_event
        event += count
        t_event += count * AIR_INTERVAL_US

    # (central SN, NESN), (peripheral SN, NESN) as the link goes on
    # 7: LL_VERSION_IND 5.3, Nordic Semiconductor, 0x0001; 8: empty
    data(0, True, data_pdu(0b11, 0, 0, bytes([0x0C, 0x0C]) + struct.pack("<HH", 0x0059, 0x0001)))
    data(230, False, data_pdu(0b01, 1, 0, b""))
    next_event()
    # 9: empty; 10: LL_VERSION_IND 4.2 from the peripheral
    data(0, True, data_pdu(0b01, 1, 1, b""))
    data(230, False, data_pdu(0b11, 0, 1, bytes([0x0C, 0x08]) + struct.pack("<HH", 0x000F, 0x0102)))
    next_event()
    # 11: ATT Exchange MTU Request 517 (L2CAP 3 + 4 octets); 12: empty
    data(0, True, data_pdu(0b10, 0, 0, l2cap(CID_ATT, struct.pack("<BH", 0x02, 517))))
    data(230, False, data_pdu(0b01, 1, 0, b""))
    next_event()
    # 13: empty; 14: ATT Exchange MTU Response 247
    data(0, True, data_pdu(0b01, 0, 1, b""))
    data(230, False, data_pdu(0b10, 0, 1, l2cap(CID_ATT, struct.pack("<BH", 0x03, 247))))
    next_event()
    # 15: ATT Write Request 0x000f 0100, sent again (16) because the peripheral's NESN (17)
    #     did not acknowledge it; 17 has a bad CRC
    write = data_pdu(0b10, 0, 0, l2cap(CID_ATT, bytes([0x12, 0x0F, 0x00, 0x01, 0x00])))
    data(0, True, write)
    data(300, False, data_pdu(0b01, 0, 0, b""), crc_valid=False)
    next_event()
    data(0, True, write)
    # 18: ATT Write Response, acknowledging the write
    data(300, False, data_pdu(0b10, 1, 0, l2cap(CID_ATT, bytes([0x13]))))
    next_event()
    # 19-20: a Handle Value Notification of 0x000e in two LL fragments (LLID 10, then 01)
    notification = l2cap(CID_ATT, att_notification_pdu(0x000E, hr_measurement(75, tuple(range(800, 810)))))
    data(0, True, data_pdu(0b01, 1, 1, b""))
    data(230, False, data_pdu(0b10, 0, 1, notification[:27], md=1))
    data(560, True, data_pdu(0b01, 0, 0, b""))
    data(790, False, data_pdu(0b01, 1, 0, notification[27:]))
    next_event()
    # 23: LL_TERMINATE_IND Remote User Terminated Connection (0x13); 24: empty
    data(0, True, data_pdu(0b11, 1, 1, bytes([0x02, 0x13])))
    data(230, False, data_pdu(0b01, 0, 1, b""))
    return frames


# ---------------------------------------------------------------------------
# The "vendor-gatt" session: protocols run over GATT characteristics
# ---------------------------------------------------------------------------

#: 2024-05-14T11:00:00Z.
T0_VENDOR_US = int(datetime(2024, 5, 14, 11, 0, 0, tzinfo=timezone.utc).timestamp()) * 1_000_000
#: The peer: one gadget serving every protocol, public address.
GADGET = "C0:FF:EE:00:00:42"


def uuid128(text: str) -> bytes:
    """A 128-bit UUID "0000xxxx-…" in on-the-wire (little-endian) byte order."""
    return bytes.fromhex(text.replace("-", ""))[::-1]


LEGACY_DFU = "00001530-1212-efde-1523-785feabcd123"
MCUMGR_SERVICE = "8d53dc1d-1db7-4cd3-868b-8a527460aa84"
NUS_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
ANCS_SERVICE = "7905f431-b5ce-4e99-a40f-4b1e122d00d0"
AMS_SERVICE = "89d3502b-0f36-433a-8ef4-c502ad55f8dc"

#: (declaration, properties, value handle, UUID: 16-bit int or 128-bit text) per characteristic.
VENDOR_CHARACTERISTICS = {
    # Legacy DFU: Control Point (write, notify), Packet (write without response), Version (read).
    LEGACY_DFU: [(0x0011, 0x18, 0x0012, "00001531-1212-efde-1523-785feabcd123"),
                 (0x0014, 0x04, 0x0015, "00001532-1212-efde-1523-785feabcd123"),
                 (0x0016, 0x02, 0x0017, "00001534-1212-efde-1523-785feabcd123")],
    # HID: Report Map, Report (consumer control input), Boot Keyboard Input, Boot Mouse Input, Protocol Mode.
    0x1812: [(0x0021, 0x02, 0x0022, 0x2A4B), (0x0023, 0x12, 0x0024, 0x2A4D), (0x0027, 0x12, 0x0028, 0x2A22),
             (0x002A, 0x12, 0x002B, 0x2A33), (0x002D, 0x06, 0x002E, 0x2A4E)],
    # mcumgr: DA2E7828-… (write without response, notify).
    MCUMGR_SERVICE: [(0x0031, 0x14, 0x0032, "da2e7828-fbce-4e01-ae9e-261174997c48")],
    # Nordic UART: RX (write, write without response), TX (notify).
    NUS_SERVICE: [(0x0041, 0x0C, 0x0042, "6e400002-b5a3-f393-e0a9-e50e24dcca9e"),
                  (0x0043, 0x10, 0x0044, "6e400003-b5a3-f393-e0a9-e50e24dcca9e")],
    # ANCS: Notification Source (notify), Control Point (write), Data Source (notify).
    ANCS_SERVICE: [(0x0051, 0x10, 0x0052, "9fbf120d-6301-42d9-8c58-25e699a21dbd"),
                   (0x0054, 0x08, 0x0055, "69d1d8f3-45e1-49a8-9821-9bbdfdaad9d9"),
                   (0x0056, 0x10, 0x0057, "22eac6e9-24d6-4bb5-be44-b36ace7c7bfb")],
    # AMS: Remote Command (write, notify), Entity Update (write, notify), Entity Attribute (read, write).
    AMS_SERVICE: [(0x0061, 0x18, 0x0062, "9b3c81d8-57b1-4a8a-b8df-0e56f7ca51c2"),
                  (0x0064, 0x18, 0x0065, "2f7cabce-808d-411f-9a0c-bb92ba96c102"),
                  (0x0067, 0x0A, 0x0068, "c6b2f38c-23ab-46d8-a6ab-a3a870bbd5d7")],
}

#: A consumer control Report Map, HID 1.11 items:
#:   Usage Page (Consumer), Usage (Consumer Control), Collection (Application), Report ID (3),
#:   Logical Minimum (0), Logical Maximum (1023), Usage Minimum (0), Usage Maximum (1023),
#:   Report Size (16), Report Count (1), Input (Data, Array, Absolute), End Collection
CONSUMER_REPORT_MAP = bytes.fromhex("050c0901a1018503150026ff0319002aff03751095018100c0")


def att_read_by_group_type_response_128(groups: list[tuple[int, int, str]]):
    """ATT: Read By Group Type Response (0x11): attribute data length 20, then
    (start handle, end group handle, 128-bit service UUID) per primary service"""
    body = b"".join(struct.pack("<HH", s, e) + uuid128(u) for s, e, u in groups)
    return att(RECEIVED, bytes([0x11, 20]) + body)


def att_read_by_type_response_any(chars: list[tuple[int, int, int, int | str]]):
    """ATT: Read By Type Response (0x09): attribute data length 7 (16-bit UUIDs) or 21
    (128-bit), then per declaration: handle, properties, value handle, UUID"""
    wide = isinstance(chars[0][3], str)
    body = b"".join(struct.pack("<HBH", h, p, v) + (uuid128(u) if wide else struct.pack("<H", u))
                    for h, p, v, u in chars)
    return att(RECEIVED, bytes([0x09, 21 if wide else 7]) + body)


def att_write_command(handle: int, value: bytes):
    """ATT: Write Command (0x52): handle, value"""
    return att(SENT, struct.pack("<BH", 0x52, handle) + value)


def att_error_response_write(handle: int, error: int):
    """ATT: Error Response (0x01): Write Request (0x12), handle, an application error code"""
    return att_error_response(0x12, handle, error)


def mcumgr(op: int, group: int, seq: int, command: int, cbor: bytes, version: int = 1) -> bytes:
    """mcumgr message: Res|Ver|OP, Flags 0, Data Length, Group ID, Sequence Num, Command ID
    (big-endian), then the CBOR data"""
    return struct.pack(">BBHHBB", version << 3 | op, 0, len(cbor), group, seq, command) + cbor


def cbor_text(text: str) -> bytes:
    """CBOR text string (major type 3) shorter than 24 bytes"""
    return bytes([0x60 | len(text)]) + text.encode()


def cbor_uint(n: int) -> bytes:
    """CBOR unsigned integer (major type 0), up to 16 bits"""
    return bytes([n]) if n < 24 else bytes([0x18, n]) if n < 256 else b"\x19" + struct.pack(">H", n)


def upload_chunk(off: int, data: bytes, total: int | None = None) -> bytes:
    """CBOR map of an image upload request: {"off": off, "data": h'…'} and, at offset 0, "len" and "image" """
    items = cbor_text("off") + cbor_uint(off) + cbor_text("data") + b"\x59" + struct.pack(">H", len(data)) + data
    if total is None:
        return b"\xa2" + items
    return b"\xa4" + items + cbor_text("len") + cbor_uint(total) + cbor_text("image") + b"\x00"


def vendor_steps() -> list:
    """The vendor-gatt session as (delta µs, frame) steps."""
    steps: list = []

    def at(delta: int, frame) -> None:
        steps.append((delta, frame))

    at(0, le_connection_complete(GADGET))          # LE Connection Complete: handle 0x0040, central, peer C0:FF:EE:00:00:42
    at(2_000, att_exchange_mtu_request(247))        # ATT: Exchange MTU Request, client RX MTU 247
    at(30_000, att_exchange_mtu_response(247))      # ATT: Exchange MTU Response, server RX MTU 247
    # Discovery: primary services, then each service's characteristics and descriptors.
    at(1_000, att_read_by_group_type_request(0x0001, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x0001-0xffff
    at(30_000, att_read_by_group_type_response([(0x0001, 0x0005, 0x1800), (0x0020, 0x002E, 0x1812)]))
    #          ATT: Read By Group Type Response: GAP 0x0001-0x0005, HID 0x0020-0x002e
    at(1_000, att_read_by_group_type_request(0x002F, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x002f-0xffff
    at(30_000, att_read_by_group_type_response_128([
        (0x0010, 0x0017, LEGACY_DFU), (0x0030, 0x0033, MCUMGR_SERVICE), (0x0040, 0x0045, NUS_SERVICE),
        (0x0050, 0x0058, ANCS_SERVICE), (0x0060, 0x0068, AMS_SERVICE)]))
    #          ATT: Read By Group Type Response (128-bit): legacy DFU, mcumgr, Nordic UART, ANCS, AMS
    ranges = {LEGACY_DFU: (0x0010, 0x0017), 0x1812: (0x0020, 0x002E), MCUMGR_SERVICE: (0x0030, 0x0033),
              NUS_SERVICE: (0x0040, 0x0045), ANCS_SERVICE: (0x0050, 0x0058), AMS_SERVICE: (0x0060, 0x0068)}
    for service, chars in VENDOR_CHARACTERISTICS.items():
        start, end = ranges[service]
        at(1_000, att_read_by_type_request(start, end, 0x2803))   # ATT: Read By Type Request, Characteristic (0x2803)
        at(30_000, att_read_by_type_response_any(chars))          # ATT: Read By Type Response: the service's declarations
    # Descriptors: CCCDs (0x2902) and the Report's Report Reference (0x2908).
    descriptors = [(0x0013, 0x2902), (0x0025, 0x2902), (0x0026, 0x2908), (0x0029, 0x2902), (0x002C, 0x2902),
                   (0x0033, 0x2902), (0x0045, 0x2902), (0x0053, 0x2902), (0x0058, 0x2902), (0x0063, 0x2902),
                   (0x0066, 0x2902)]
    at(1_000, att_find_information_request(0x0013, 0x0066))       # ATT: Find Information Request 0x0013-0x0066
    at(30_000, att_find_information_response(descriptors))        # ATT: Find Information Response: 11 descriptors
    for cccd in (0x0013, 0x0025, 0x0029, 0x002C, 0x0033, 0x0045, 0x0053, 0x0058, 0x0063, 0x0066):
        at(1_000, att_write_request(cccd, b"\x01\x00"))           # ATT: Write Request <CCCD>, 01 00 (notifications on)
        at(30_000, att_write_response())                          # ATT: Write Response

    # HID: the Report Map, the Report's Report Reference (report 3, input), boot protocol.
    at(1_000, att_read_request(0x0022))                           # ATT: Read Request 0x0022 (Report Map)
    at(30_000, att_read_response(CONSUMER_REPORT_MAP))            # ATT: Read Response, 25-byte Report Map
    at(1_000, att_read_request(0x0026))                           # ATT: Read Request 0x0026 (Report Reference)
    at(30_000, att_read_response(b"\x03\x01"))                    # ATT: Read Response, Report ID 3, Input Report
    at(200_000, att_handle_value_notification(0x0024, b"\xe9\x00"))  # Report 3: Volume Increment (0x00e9)
    at(90_000, att_handle_value_notification(0x0024, b"\x00\x00"))   # Report 3: nothing pressed
    at(1_000, att_write_command(0x002E, b"\x00"))                 # ATT: Write Command 0x002e Protocol Mode: Boot Protocol Mode
    at(150_000, att_handle_value_notification(0x0028, bytes.fromhex("02000b0c00000000")))
    #          Boot Keyboard Input: Left Shift, h (0x0b), i (0x0c)
    at(80_000, att_handle_value_notification(0x0028, bytes(8)))   # Boot Keyboard Input: all keys up
    at(60_000, att_handle_value_notification(0x002B, bytes.fromhex("01 05 fb 00")))
    #          Boot Mouse Input: left button, X +5, Y -5, wheel 0

    # Nordic UART: a command on RX, the answer on TX split inside a line, a prompt with no line end yet.
    at(300_000, att_write_command(0x0042, b"help\r\n"))           # ATT: Write Command 0x0042 (RX) "help\r\n"
    at(40_000, att_handle_value_notification(0x0044, b"Commands:\r\n  led <n> "))  # TX: a line and part of the next
    at(600, att_handle_value_notification(0x0044, b"on|off\r\n  reboot\r"))        # TX: the rest, CR of CR LF
    at(600, att_handle_value_notification(0x0044, b"\n> "))                        # TX: LF, then the prompt "> "

    # ANCS: a notification, its attributes asked for and returned in two parts, an action refused.
    at(400_000, att_handle_value_notification(0x0052, bytes.fromhex("00 02 04 01 07000000")))
    #          Notification Source: NotificationAdded, Important, Social, count 1, UID 7
    at(2_000, att_write_request(0x0055, bytes.fromhex("00 07000000 00 01 2000 03 4000")))
    #          Control Point: Get Notification Attributes UID 7: AppIdentifier, Title (32), Message (64)
    at(30_000, att_write_response())                              # ATT: Write Response
    data_source = (bytes.fromhex("00 07000000") + b"\x00" + struct.pack("<H", 16) + b"com.example.chat"
                   + b"\x01" + struct.pack("<H", 3) + b"Ada" + b"\x03" + struct.pack("<H", 18) + b"See you at 6 today")
    at(30_000, att_handle_value_notification(0x0057, data_source[:20]))  # Data Source: first 20 bytes of the response
    at(30_000, att_handle_value_notification(0x0057, data_source[20:]))  # Data Source: the rest
    at(2_000, att_write_request(0x0055, bytes.fromhex("02 07000000 01")))
    #          Control Point: Perform Notification Action UID 7, Negative
    at(30_000, att_error_response_write(0x0055, 0xA3))            # ATT: Error Response, Write Request 0x0055, 0xa3 (ANCS Action failed)

    # AMS: subscribe to the track's artist and title, get them, toggle play/pause.
    at(300_000, att_write_request(0x0065, bytes.fromhex("02 00 02")))  # Entity Update: Track, Artist + Title
    at(30_000, att_write_response())                              # ATT: Write Response
    at(30_000, att_handle_value_notification(0x0065, b"\x02\x00\x00Daft Punk"))  # Entity Update: Track Artist "Daft Punk"
    at(30_000, att_handle_value_notification(0x0065, b"\x02\x02\x01Harder, Better, Faster"))
    #          Entity Update: Track Title, Truncated, "Harder, Better, Faster"
    at(100_000, att_write_command(0x0062, b"\x02"))              # Remote Command: TogglePlayPause
    at(30_000, att_handle_value_notification(0x0062, bytes([0, 1, 2, 3, 4])))
    #          Remote Command: supported Play, Pause, TogglePlayPause, NextTrack, PreviousTrack

    # Legacy DFU (nRF5 SDK 11): Start DFU, image sizes, init packet, PRN 4, firmware, validate, activate.
    at(500_000, att_write_request(0x0012, b"\x01\x04"))          # Control Point: Start DFU, Application
    at(30_000, att_write_response())                              # ATT: Write Response
    at(1_000, att_write_command(0x0015, struct.pack("<III", 0, 0, 1024)))  # Packet: image sizes SD 0, BL 0, App 1024
    at(60_000, att_handle_value_notification(0x0012, b"\x10\x01\x01"))     # Control Point: Response Code, Start DFU, Success
    at(1_000, att_write_request(0x0012, b"\x02\x00"))            # Control Point: Initialize DFU Parameters, receive init packet
    at(30_000, att_write_response())                              # ATT: Write Response
    at(1_000, att_write_command(0x0015, bytes.fromhex("ffff ffff ffffffff 0100 feff 3c5a")))
    #          Packet: legacy init packet (device type, revision, application version, 1 SoftDevice, CRC-16)
    at(1_000, att_write_request(0x0012, b"\x02\x01"))            # Control Point: Initialize DFU Parameters, init packet complete
    at(30_000, att_write_response())                              # ATT: Write Response
    at(30_000, att_handle_value_notification(0x0012, b"\x10\x02\x01"))     # Control Point: Response Code, Initialize DFU Parameters, Success
    at(1_000, att_write_request(0x0012, b"\x08\x04\x00"))        # Control Point: Packet Receipt Notification Request, every 4 packets
    at(30_000, att_write_response())                              # ATT: Write Response
    at(1_000, att_write_request(0x0012, b"\x03"))                # Control Point: Receive Firmware Image
    at(30_000, att_write_response())                              # ATT: Write Response
    for index in range(8):
        at(7_500, att_write_command(0x0015, bytes([index]) * 128))  # Packet: 128 firmware bytes
        if index % 4 == 3:
            at(15_000, att_handle_value_notification(0x0012, b"\x11" + struct.pack("<I", (index + 1) * 128)))
            #          Control Point: Packet Receipt Notification, bytes received so far
    at(30_000, att_handle_value_notification(0x0012, b"\x10\x03\x01"))     # Control Point: Response Code, Receive Firmware Image, Success
    at(1_000, att_write_request(0x0012, b"\x07"))                # Control Point: Report Received Image Size
    at(30_000, att_write_response())                              # ATT: Write Response
    at(30_000, att_handle_value_notification(0x0012, b"\x10\x07\x01" + struct.pack("<I", 1024)))
    #          Control Point: Response Code, Report Received Image Size, Success, 1024 bytes
    at(1_000, att_write_request(0x0012, b"\x04"))                # Control Point: Validate Firmware
    at(30_000, att_write_response())                              # ATT: Write Response
    at(60_000, att_handle_value_notification(0x0012, b"\x10\x04\x05"))     # Control Point: Response Code, Validate Firmware, CRC Error

    # mcumgr: an echo (SMP v1), an erase refused (rc), an upload refused (SMP v2 err), then an
    # upload of 1024 bytes in 256-byte chunks (two ATT PDUs each) that stalls 4.2 s at
    # offset 512 and is cut at 768 when the link is lost.
    echo = b"\xa1" + cbor_text("d") + cbor_text("ping")
    at(500_000, att_write_command(0x0032, mcumgr(2, 0, 1, 0, echo, version=0)))   # mcumgr: os echo, seq 1, {"d": "ping"}
    at(40_000, att_handle_value_notification(0x0032, mcumgr(3, 0, 1, 0, b"\xa1" + cbor_text("r") + cbor_text("ping"), version=0)))
    #          mcumgr: os echo response, seq 1, {"r": "ping"}
    at(10_000, att_write_command(0x0032, mcumgr(2, 1, 2, 5, b"\xa0")))            # mcumgr: image erase, seq 2, {}
    at(40_000, att_handle_value_notification(0x0032, mcumgr(3, 1, 2, 5, b"\xa1" + cbor_text("rc") + b"\x06")))
    #          mcumgr: image erase response, seq 2, {"rc": 6} (MGMT_ERR_EBADSTATE)
    first = upload_chunk(0, bytes(256), total=1024)
    at(10_000, att_write_command(0x0032, mcumgr(2, 1, 3, 1, first)[:244]))        # mcumgr: image upload seq 3, first 244 bytes
    at(300, att_write_command(0x0032, mcumgr(2, 1, 3, 1, first)[244:]))           # mcumgr: image upload seq 3, the rest
    err = b"\xa1" + cbor_text("err") + b"\xa2" + cbor_text("group") + b"\x01" + cbor_text("rc") + b"\x09"
    at(40_000, att_handle_value_notification(0x0032, mcumgr(3, 1, 3, 1, err)))
    #          mcumgr: image upload response seq 3, {"err": {"group": 1, "rc": 9}} (IMG_MGMT_ERR_NO_FREE_SLOT)
    seq = 4
    for off in (0, 256, 512, 768):
        chunk = upload_chunk(off, bytes([off >> 8]) * 256, total=1024 if off == 0 else None)
        message = mcumgr(2, 1, seq, 1, chunk)
        at(2_000 if off else 500_000, att_write_command(0x0032, message[:244]))  # mcumgr: image upload request, first part
        at(300, att_write_command(0x0032, message[244:]))                          # mcumgr: image upload request, second part
        if off == 768:
            break
        response = b"\xa1" + cbor_text("off") + cbor_uint(off + 256)
        at(4_200_000 if off == 512 else 60_000, att_handle_value_notification(0x0032, mcumgr(3, 1, seq, 1, response)))
        #          mcumgr: image upload response, {"off": off + 256}; the one for offset 512 after 4.2 s
        seq += 1
    at(3_000_000, disconnection_complete(0x08))    # HCI Event: Disconnect Complete, reason Connection Timeout (0x08)
    return steps


VENDOR_SESSION = build_session(vendor_steps(), T0_VENDOR_US)


# ---------------------------------------------------------------------------
# The "android-phone" session: an Android app scans for the heart-rate sensor,
# fails to connect once (0x3E), connects, lets the stack read the Database Hash,
# discovers, reads, writes (one refused, a burst without response that waits for
# controller buffers), subscribes, reads the RSSI, and the sensor hangs up.
# ---------------------------------------------------------------------------

#: 2024-05-14T12:00:00Z.
T0_ANDROID_US = int(datetime(2024, 5, 14, 12, 0, 0, tzinfo=timezone.utc).timestamp()) * 1_000_000
#: Handle of the connection that fails to be established (the one that works is 0x0040).
ANDROID_FAILED_HANDLE = 0x0041
OP_READ_RSSI = opcode(0x05, 0x0005)             # 0x1405

#: The sensor's GATT database as the phone discovers it: (start, end, 16-bit UUID) per service.
ANDROID_SERVICES = [
    (0x0001, 0x0005, 0x1800),  # Generic Access
    (0x0006, 0x000B, 0x1801),  # Generic Attribute
    (0x000C, 0x0013, 0x180D),  # Heart Rate
    (0x0014, 0x0018, 0x180A),  # Device Information
    (0x0019, 0x001E, 0xFF00),  # a vendor service (16-bit UUID outside the SIG's)
]
#: (declaration, properties, value handle, UUID) per service, as Read By Type Response lists them.
ANDROID_CHARACTERISTICS = [
    [(0x0002, 0x02, 0x0003, 0x2A00), (0x0004, 0x02, 0x0005, 0x2A01)],    # Device Name, Appearance (read)
    [(0x0007, 0x20, 0x0008, 0x2A05), (0x000A, 0x02, 0x000B, 0x2B2A)],    # Service Changed (indicate), Database Hash (read)
    [(0x000D, 0x10, 0x000E, 0x2A37), (0x0010, 0x02, 0x0011, 0x2A38),     # Heart Rate Measurement (notify), Body Sensor Location (read),
     (0x0012, 0x08, 0x0013, 0x2A39)],                                    # Heart Rate Control Point (write)
    [(0x0015, 0x02, 0x0016, 0x2A29), (0x0017, 0x02, 0x0018, 0x2A25)],    # Manufacturer Name String, Serial Number String (read)
    [(0x001A, 0x10, 0x001B, 0xFF01), (0x001D, 0x04, 0x001E, 0xFF02)],    # ff01 (notify), ff02 (write without response)
]
ANDROID_SERVICE_CHANGED_CCCD = 0x0009
ANDROID_HRM_VALUE, ANDROID_HRM_CCCD = 0x000E, 0x000F
ANDROID_BSL_VALUE, ANDROID_HR_CONTROL_POINT = 0x0011, 0x0013
ANDROID_MANUFACTURER_NAME, ANDROID_SERIAL_NUMBER = 0x0016, 0x0018
ANDROID_FF01_VALUE, ANDROID_FF01_CCCD, ANDROID_FF02_VALUE = 0x001B, 0x001C, 0x001E


def le_read_buffer_size_complete_with(octets: int, packets: int):
    """HCI Event: Command Complete (0x0e) plen 7: LE Read Buffer Size [v1], status Success,
    LE ACL data packet length <octets>, total number of LE ACL data packets <packets>"""
    return command_complete_with(OP_LE_READ_BUFFER_SIZE, struct.pack("<HB", octets, packets))


def att_read_by_type_request_range(start: int, end: int, uuid16: int):
    """ATT: Read By Type Request (0x08): start, end, 16-bit attribute type"""
    return att(SENT, struct.pack("<BHHH", 0x08, start, end, uuid16))


def att_read_by_type_response_value(handle: int, value: bytes):
    """ATT: Read By Type Response (0x09): length (2 + value), one handle-value pair"""
    return att(RECEIVED, bytes([0x09, 2 + len(value)]) + struct.pack("<H", handle) + value)


def read_rssi(handle: int = CONN_HANDLE):
    """HCI Command: Read RSSI (0x05|0x0005) plen 2: handle"""
    return hci_command(OP_READ_RSSI, struct.pack("<H", handle))


def read_rssi_complete(rssi: int, handle: int = CONN_HANDLE):
    """HCI Event: Command Complete (0x0e) plen 7: Read RSSI, status Success, handle, RSSI (dBm)"""
    return command_complete_with(OP_READ_RSSI, struct.pack("<Hb", handle, rssi))


def completing_writer(steps: list):
    """A function that appends (delta µs, frame) to <steps>.  Every ACL packet the host sends is
    completed 10 ms later (Number Of Completed Packets, count 1, handle 0x0040) unless
    completed=False; the next step's delta still counts from the packet."""
    shift = 0

    def at(delta: int, frame, *, completed: bool = True) -> None:
        nonlocal shift
        steps.append((delta - shift, frame))
        shift = 0
        if completed and frame[0] == H4_ACL and frame[1] == SENT:
            steps.append((10_000, number_of_completed_packets(1)))  # HCI Event: Number of Completed Packets, count 1
            shift = 10_000

    return at


def android_gatt_caching_and_discovery(at) -> None:
    """The stack's GATT caching (the Database Hash, the Service Changed CCCD), then the app's
    requestMtu(517) and discoverServices() of the sensor's database, through <at>."""
    at(5_000, att_read_by_type_request_range(0x0001, 0xFFFF, 0x2B2A))  # ATT: Read By Type Request 0x0001-0xffff, Database Hash
    at(60_000, att_read_by_type_response_value(0x000B, bytes(range(0xA0, 0xB0))))
    #          ATT: Read By Type Response: 0x000b Database Hash a0a1…af
    at(1_000, att_write_request(ANDROID_SERVICE_CHANGED_CCCD, b"\x02\x00"))  # ATT: Write Request 0x0009, 02 00 (indications on)
    at(60_000, att_write_response())                              # ATT: Write Response
    at(2_000, att_exchange_mtu_request(517))                      # ATT: Exchange MTU Request, client RX MTU 517
    at(30_000, att_exchange_mtu_response(247))                    # ATT: Exchange MTU Response, server RX MTU 247
    at(2_000, att_read_by_group_type_request(0x0001, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x0001-0xffff
    at(30_000, att_read_by_group_type_response(ANDROID_SERVICES))  # ATT: Read By Group Type Response: five services
    at(1_000, att_read_by_group_type_request(0x001F, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x001f-0xffff
    at(30_000, att_error_response(0x10, 0x001F, 0x0A))            # ATT: Error Response, Attribute Not Found (0x0a)
    for (start, end, _), chars in zip(ANDROID_SERVICES, ANDROID_CHARACTERISTICS):
        at(1_000, att_read_by_type_request(start, end, 0x2803))   # ATT: Read By Type Request, Characteristic (0x2803)
        at(30_000, att_read_by_type_response_any(chars))          # ATT: Read By Type Response: the service's declarations
    for cccd in (ANDROID_SERVICE_CHANGED_CCCD, ANDROID_HRM_CCCD, ANDROID_FF01_CCCD):
        at(1_000, att_find_information_request(cccd, cccd))       # ATT: Find Information Request <CCCD>-<CCCD>
        at(30_000, att_find_information_response([(cccd, 0x2902)]))  # ATT: Find Information Response: 0x2902


def android_steps(*, buffer_octets: int = 251, connect_us: int = 62_500) -> list:
    """The android-phone session as (delta µs, frame) steps.  android-phone-update.btsnoop is the
    same app with another controller (<buffer_octets> octets per LE ACL buffer) and a slower
    connect (<connect_us> from LE Create Connection to LE Connection Complete)."""
    steps: list = []
    at = completing_writer(steps)

    at(0, reset())                                                # HCI Command: Reset
    at(4_000, command_complete(OP_RESET))                         # HCI Event: Command Complete (Reset), Success
    at(300, le_read_buffer_size())                                # HCI Command: LE Read Buffer Size [v1]
    at(500, le_read_buffer_size_complete_with(buffer_octets, 4))  # Command Complete: <buffer_octets> octets, 4 LE ACL buffers
    # The app's scan: the sensor and an iBeacon, each every 100 ms.
    at(700_000, le_set_scan_parameters())                         # HCI Command: LE Set Scan Parameters, active, 60 ms / 30 ms
    at(500, command_complete(OP_LE_SET_SCAN_PARAMETERS))          # HCI Event: Command Complete (LE Set Scan Parameters)
    at(300, le_set_scan_enable(1))                                # HCI Command: LE Set Scan Enable, enabled
    at(1_200, command_complete(OP_LE_SET_SCAN_ENABLE))            # HCI Event: Command Complete (LE Set Scan Enable)
    for index in range(5):
        at(40_000 if index == 0 else 81_000, le_advertising_report(ADV_IND, 0x00, PERIPHERAL, HR_ADV_DATA, -60 + index))
        #          LE Advertising Report: ADV_IND, D4:36:39:67:A2:61, "HR-Sensor", 180d
        at(1_000, le_advertising_report(SCAN_RSP, 0x00, PERIPHERAL, HR_SCAN_RSP_DATA, -61 + index))
        #          LE Advertising Report: SCAN_RSP, D4:36:39:67:A2:61, Tx Power +4 dBm
        at(18_000, le_advertising_report(ADV_NONCONN_IND, 0x01, BEACON, IBEACON_DATA, -72))
        #          LE Advertising Report: ADV_NONCONN_IND, iBeacon C7:3A:5B:11:E0:42
    at(30_000, le_set_scan_enable(0))                             # HCI Command: LE Set Scan Enable, disabled
    at(600, command_complete(OP_LE_SET_SCAN_ENABLE))              # HCI Event: Command Complete (LE Set Scan Enable)
    # A first connection that fails to be established.
    at(400, le_create_connection(PERIPHERAL))                     # HCI Command: LE Create Connection to D4:36:39:67:A2:61
    at(400, command_status(OP_LE_CREATE_CONNECTION))              # HCI Event: Command Status (LE Create Connection), Success
    at(40_000, le_connection_complete(PERIPHERAL, ANDROID_FAILED_HANDLE))  # LE Connection Complete: handle 0x0041
    at(150_000, disconnection_complete(0x3E, ANDROID_FAILED_HANDLE))
    #          HCI Event: Disconnect Complete, handle 0x0041, Connection Failed to be Established (0x3e)
    # The second try connects.
    at(300_000, le_create_connection(PERIPHERAL))                 # HCI Command: LE Create Connection to D4:36:39:67:A2:61
    at(400, command_status(OP_LE_CREATE_CONNECTION))              # HCI Event: Command Status (LE Create Connection), Success
    at(connect_us - 400, le_connection_complete(PERIPHERAL))      # LE Connection Complete: handle 0x0040, 30 ms, 0, 720 ms
    # The stack's own GATT traffic (GATT caching), then the app: requestMtu(517), discoverServices().
    android_gatt_caching_and_discovery(at)
    # setCharacteristicNotification + writeDescriptor on the Heart Rate Measurement, then reads.
    at(5_000, att_write_request(ANDROID_HRM_CCCD, b"\x01\x00"))   # ATT: Write Request 0x000f, 01 00 (notifications on)
    at(30_000, att_write_response())                              # ATT: Write Response
    at(30_000, att_handle_value_notification(ANDROID_HRM_VALUE, hr_measurement(71)))  # HR Measurement: 71 bpm
    at(5_000, att_read_request(ANDROID_MANUFACTURER_NAME))        # ATT: Read Request 0x0016 (Manufacturer Name String)
    at(30_000, att_read_response(b"Acme Health Devices"))         # ATT: Read Response "Acme Health Devices"
    at(2_000, att_read_request(ANDROID_SERIAL_NUMBER))            # ATT: Read Request 0x0018 (Serial Number String)
    at(30_000, att_read_response(b"MH267A261"))                   # ATT: Read Response "MH267A261" (ends with the address's last octets)
    at(2_000, att_read_request(ANDROID_BSL_VALUE))                # ATT: Read Request 0x0011 (Body Sensor Location)
    at(30_000, att_read_response(b"\x01"))                        # ATT: Read Response, Chest (0x01)
    at(2_000, att_write_request(ANDROID_HR_CONTROL_POINT, b"\x02"))  # ATT: Write Request 0x0013 (Heart Rate Control Point), 02
    at(30_000, att_error_response(0x12, ANDROID_HR_CONTROL_POINT, 0x80))
    #          ATT: Error Response, Write Request 0x0013, Application Error (0x80): 02 is not a defined opcode
    at(30_000, att_handle_value_notification(ANDROID_HRM_VALUE, hr_measurement(72, (840,))))  # HR Measurement: 72 bpm, RR
    # The vendor service: subscribe to ff01, then 20 writes without response of 20 bytes to ff02.
    # Four LE buffers: four packets go at once, and the next waits for Number Of Completed Packets.
    at(5_000, att_write_request(ANDROID_FF01_CCCD, b"\x01\x00"))  # ATT: Write Request 0x001c, 01 00 (notifications on)
    at(30_000, att_write_response())                              # ATT: Write Response
    for batch in range(5):
        for index in range(4):
            chunk = bytes([batch * 4 + index]) * 20
            at(300 if index else (2_000 if batch == 0 else 400), att_write_command(ANDROID_FF02_VALUE, chunk),
               completed=False)
            #      ATT: Write Command 0x001e (ff02), 20 bytes
        at(29_500, number_of_completed_packets(4))                # HCI Event: Number of Completed Packets, handle 0x0040 count 4
    # The peer answers on ff01, once per connection event.
    for index in range(8):
        at(30_000, att_handle_value_notification(ANDROID_FF01_VALUE, bytes([0xA0 + index]) + bytes(range(19))))
        #          ATT: Handle Value Notification 0x001b (ff01), 20 bytes
    at(100_000, read_rssi())                                      # HCI Command: Read RSSI, handle 0x0040
    at(200, read_rssi_complete(-54))                              # HCI Event: Command Complete (Read RSSI), -54 dBm
    at(400_000, att_handle_value_notification(ANDROID_HRM_VALUE, hr_measurement(73)))  # HR Measurement: 73 bpm
    at(300_000, disconnection_complete(0x13))                     # HCI Event: Disconnect Complete, Remote User Terminated Connection
    return steps


ANDROID_SESSION = build_session(android_steps(), T0_ANDROID_US)
#: The same app with a controller of 27-octet LE buffers and a connect 2 s slower.
ANDROID_UPDATE_SESSION = build_session(android_steps(buffer_octets=27, connect_us=2_062_500), T0_ANDROID_US)


# ---------------------------------------------------------------------------
# The "android-autoconnect" session: Android connects through the Filter Accept List.  The
# stack waits in the background for a bonded watch (slow scan); the app's direct connect to
# the sensor (fast scan) is given up after 2 s, then its connectGatt(autoConnect=true) puts
# the sensor in the list again: it connects seconds later and stays in it.
# ---------------------------------------------------------------------------

#: 2024-05-14T12:10:00Z.
T0_AUTOCONNECT_US = int(datetime(2024, 5, 14, 12, 10, 0, tzinfo=timezone.utc).timestamp()) * 1_000_000
#: A bonded watch the stack reconnects to in the background, public address.
BONDED_WATCH = "E0:11:22:33:44:55"
OP_LE_CREATE_CONNECTION_CANCEL = opcode(0x08, 0x000E)             # 0x200e
OP_LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST = opcode(0x08, 0x0011)     # 0x2011
OP_LE_REMOVE_DEVICE_FROM_FILTER_ACCEPT_LIST = opcode(0x08, 0x0012)  # 0x2012


def le_accept_list(op: int, peer: str):
    """HCI Command: LE Add Device To (0x08|0x0011) or LE Remove Device From (0x08|0x0012)
    Filter Accept List plen 7: address type public, address"""
    return hci_command(op, b"\x00" + bdaddr(peer))


def le_create_connection_accept_list(fast: bool = False):
    """HCI Command: LE Create Connection (0x08|0x000d) plen 25: initiator filter policy 0x01 (the
    Filter Accept List), peer address ignored (zero), own address type public, connection
    interval 30-50 ms, latency 0, supervision timeout 720 ms, CE length 0-0; scan interval and
    window 60 ms (0x0060) for a direct connect (fast), else 1.28 s (0x0800) and 30 ms (0x0030),
    Android's background scan"""
    interval, window = (0x0060, 0x0060) if fast else (0x0800, 0x0030)
    params = struct.pack("<HHBB6sBHHHHHH", interval, window, 0x01, 0x00, bytes(6), 0x00,
                         0x0018, 0x0028, 0x0000, 0x0048, 0x0000, 0x0000)
    return hci_command(OP_LE_CREATE_CONNECTION, params)


def le_connection_complete_cancelled():
    """HCI Event: LE Meta Event (0x3e) - LE Connection Complete (0x01) plen 19: status Unknown
    Connection Identifier (0x02), as the controller reports a cancelled LE Create Connection;
    the other parameters zero"""
    return le_meta(0x01, struct.pack("<BHBB6sHHHB", 0x02, 0x0000, 0x00, 0x00, bytes(6), 0, 0, 0, 0x00))


def autoconnect_steps() -> list:
    """The android-autoconnect session as (delta µs, frame) steps."""
    steps: list = []
    at = completing_writer(steps)

    def create_connection(delta: int, fast: bool = False) -> None:
        at(delta, le_create_connection_accept_list(fast))        # HCI Command: LE Create Connection, Filter Accept List
        at(400, command_status(OP_LE_CREATE_CONNECTION))          # HCI Event: Command Status (LE Create Connection), Success

    def accept_list(op: int, peer: str) -> None:
        at(400, le_accept_list(op, peer))                         # LE Add Device To / Remove Device From Filter Accept List <peer>
        at(500, command_complete(op))                             # HCI Event: Command Complete, Success

    def cancel(delta: int) -> None:
        at(delta, hci_command(OP_LE_CREATE_CONNECTION_CANCEL))   # HCI Command: LE Create Connection Cancel
        at(500, command_complete(OP_LE_CREATE_CONNECTION_CANCEL))  # HCI Event: Command Complete (LE Create Connection Cancel)
        at(300, le_connection_complete_cancelled())               # LE Connection Complete: Unknown Connection Identifier (0x02)

    at(0, reset())                                                # HCI Command: Reset
    at(4_000, command_complete(OP_RESET))                         # HCI Event: Command Complete (Reset), Success
    at(300, le_read_buffer_size())                                # HCI Command: LE Read Buffer Size [v1]
    at(500, le_read_buffer_size_complete_with(251, 4))            # Command Complete: 251 octets, 4 LE ACL buffers
    # The stack: the bonded watch in the list, a background Create Connection.
    accept_list(OP_LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST, BONDED_WATCH)
    create_connection(300)
    # The app's connectGatt(autoConnect=false): the sensor in the list with a fast scan; the
    # user gives up after 2 s (disconnect() before it connected): out of the list.
    cancel(1_000_000)
    accept_list(OP_LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST, PERIPHERAL)
    create_connection(300, fast=True)
    cancel(2_000_000)
    accept_list(OP_LE_REMOVE_DEVICE_FROM_FILTER_ACCEPT_LIST, PERIPHERAL)
    create_connection(300)                                        # the watch alone
    # The app's connectGatt(autoConnect=true): the sensor back in the list, with the background scan.
    cancel(500_000)
    accept_list(OP_LE_ADD_DEVICE_TO_FILTER_ACCEPT_LIST, PERIPHERAL)
    create_connection(300)
    at(5_500_000, le_connection_complete(PERIPHERAL))             # LE Connection Complete: the sensor, handle 0x0040
    create_connection(2_000)                                      # the watch (and the sensor, still in the list)
    android_gatt_caching_and_discovery(at)
    at(5_000, att_write_request(ANDROID_HRM_CCCD, b"\x01\x00"))   # ATT: Write Request 0x000f, 01 00 (notifications on)
    at(30_000, att_write_response())                              # ATT: Write Response
    for bpm in (70, 71, 72):
        at(1_000_000 if bpm > 70 else 30_000, att_handle_value_notification(ANDROID_HRM_VALUE, hr_measurement(bpm)))
        #          ATT: Handle Value Notification 0x000e, Heart Rate Measurement
    # The app's disconnect(): the sensor out of the list, then the link closed.
    cancel(500_000)
    accept_list(OP_LE_REMOVE_DEVICE_FROM_FILTER_ACCEPT_LIST, PERIPHERAL)
    create_connection(300)                                        # the watch alone
    at(1_000, disconnect(0x13))                                   # HCI Command: Disconnect handle 0x0040, Remote User Terminated Connection
    at(600, command_status(OP_DISCONNECT))                        # HCI Event: Command Status (Disconnect), Success
    at(60_000, disconnection_complete(0x16))                      # HCI Event: Disconnect Complete, Connection Terminated By Local Host
    return steps


AUTOCONNECT_SESSION = build_session(autoconnect_steps(), T0_AUTOCONNECT_US)


#: Where the phone's snoop logger rotated: btsnoop_hci.log.last ends with this record (0-based,
#: exclusive) and btsnoop_hci.log starts ANDROID_ROTATION_OVERLAP records earlier (the same
#: records in both files, as a rotation can leave them).
ANDROID_ROTATION = 91
ANDROID_ROTATION_OVERLAP = 2


def android_app_log() -> list[tuple[int, str, str]]:
    """The app's logcat lines (BluetoothGatt, BluetoothLeScanner, BluetoothAdapter) as
    (Unix µs, tag, message), each placed on the capture's clock next to the record it goes with."""
    rec = ANDROID_SESSION

    def find(kind: int, prefix: bytes, at: int = 0) -> int:
        """Index of the first record of <kind> whose payload (HCI packet, or ATT PDU of an
        ACL packet) starts with <prefix>, from index <at> on"""
        return next(i for i, r in enumerate(rec) if i >= at and r.h4_type == kind
                    and (r.payload[8:] if kind == H4_ACL else r.payload).startswith(prefix))

    create = struct.pack("<H", OP_LE_CREATE_CONNECTION)
    creates = [find(H4_CMD, create), find(H4_CMD, create, find(H4_CMD, create) + 1)]
    scan = find(H4_CMD, struct.pack("<H", OP_LE_SET_SCAN_PARAMETERS))
    mtu, mtu_response = find(H4_ACL, b"\x02"), find(H4_ACL, b"\x03")
    discovery = find(H4_ACL, b"\x10")
    last_char = max(i for i, r in enumerate(rec) if r.h4_type == H4_ACL and r.payload[8:9] == b"\x05")
    hrm_cccd = find(H4_ACL, struct.pack("<BH", 0x12, ANDROID_HRM_CCCD))
    ff01_cccd = find(H4_ACL, struct.pack("<BH", 0x12, ANDROID_FF01_CCCD))
    rssi = find(H4_CMD, struct.pack("<H", OP_READ_RSSI))
    device = "XX:XX:XX:XX:A2:61"
    t = lambda index, delta_ms: rec[index].ts_us + delta_ms * 1000  # noqa: E731
    gatt = "BluetoothGatt"
    return [
        (t(scan, -2), "BluetoothAdapter", "isLeEnabled(): ON"),
        (t(scan, -1), "BluetoothLeScanner", "onScannerRegistered() - status=0 scannerId=5 mScannerId=0"),
        # A first connectGatt() whose registerApp() fails: the stack's client table is full (257).
        (t(creates[0], -90), gatt, "connect() - device: %s, auto: false" % device),
        (t(creates[0], -90), gatt, "registerApp()"),
        (t(creates[0], -90), gatt, "registerApp() - UUID=5a0c2b1e-3d4f-4e6a-8b7c-9d0e1f2a3b4c"),
        (t(creates[0], -88), gatt, "onClientRegistered() - status=257 clientIf=0"),
        (t(creates[0], -84), gatt, "close()"),
        (t(creates[0], -84), gatt, "unregisterApp() - mClientIf=0"),
        # The second: connects, then Connection Failed to be Established (62).
        (t(creates[0], -2), gatt, "connect() - device: %s, auto: false" % device),
        (t(creates[0], -2), gatt, "registerApp()"),
        (t(creates[0], -2), gatt, "registerApp() - UUID=6b1d3c2f-4e5a-4f7b-9c8d-0e1f2a3b4c5d"),
        (t(creates[0], -1), gatt, "onClientRegistered() - status=0 clientIf=6"),
        (t(creates[0] + 3, 2), gatt, "onClientConnectionState() - status=62 clientIf=6 connected=false device=%s" % device),
        (t(creates[0] + 3, 8), gatt, "close()"),
        (t(creates[0] + 3, 8), gatt, "unregisterApp() - mClientIf=6"),
        # The third: connected, requestMtu, discoverServices, two subscriptions, readRemoteRssi.
        (t(creates[1], -2), gatt, "connect() - device: %s, auto: false" % device),
        (t(creates[1], -2), gatt, "registerApp()"),
        (t(creates[1], -2), gatt, "registerApp() - UUID=7c2e4d3a-5f6b-4a8c-8d9e-1f2a3b4c5d6e"),
        (t(creates[1], -1), gatt, "onClientRegistered() - status=0 clientIf=7"),
        (t(creates[1] + 2, 2), gatt, "onClientConnectionState() - status=0 clientIf=7 connected=true device=%s" % device),
        (t(mtu, -1), gatt, "configureMTU() - device: %s mtu: 517" % device),
        (t(mtu_response, 1), gatt, "onConfigureMTU() - Device=%s mtu=247 status=0" % device),
        (t(discovery, -1), gatt, "discoverServices() - device: %s" % device),
        (t(last_char, 3), gatt, "onSearchComplete() = address=%s status=0" % device),
        (t(hrm_cccd, -1), gatt, "setCharacteristicNotification() - uuid: 00002a37-0000-1000-8000-00805f9b34fb enable: true"),
        (t(ff01_cccd, -1), gatt, "setCharacteristicNotification() - uuid: 0000ff01-0000-1000-8000-00805f9b34fb enable: true"),
        (t(rssi, -1), gatt, "readRssi() - device: %s" % device),
        (t(len(rec) - 1, 3), gatt, "onClientConnectionState() - status=19 clientIf=7 connected=false device=%s" % device),
        (t(len(rec) - 1, 9), gatt, "close()"),
        (t(len(rec) - 1, 9), gatt, "unregisterApp() - mClientIf=7"),
    ]


#: The phone's time zone (persist.sys.timezone): logcat's times are local, UTC+2 in May.
ANDROID_TIMEZONE = "Europe/Berlin"
ANDROID_TZ_OFFSET_US = 2 * 3600 * 1_000_000


def write_android_bugreport_txt() -> bytes:
    """A small bugreport text: the dumpstate header (its year), SYSTEM LOG with the app's
    logcat lines in `logcat -v threadtime -v uid` form (date, time, uid, pid, tid, level, tag)
    and SYSTEM PROPERTIES with persist.sys.timezone."""
    log = []
    for ts_us, tag, message in android_app_log():
        local = datetime.fromtimestamp((ts_us + ANDROID_TZ_OFFSET_US) / 1e6, tz=timezone.utc)
        thread = 14023 if message.startswith(("connect()", "registerApp", "close", "unregister", "configureMTU",
                                               "discoverServices", "setCharacteristic", "readRssi", "isLeEnabled")) else 14047
        log.append("%s.%03d 10187 14023 %5d D %s: %s" % (local.strftime("%m-%d %H:%M:%S"), local.microsecond // 1000,
                                                         thread, tag, message))
    text = "\n".join([
        "========================================================",
        "== dumpstate: 2024-05-14 14:01:00",
        "========================================================",
        "",
        "Build: UQ1A.240205.004",
        "Build fingerprint: 'google/sample/sample:14/UQ1A.240205.004/11269751:user/release-keys'",
        "Bugreport format version: 2.0",
        "",
        "------ SYSTEM LOG (logcat -v threadtime -v printable -v uid -d *:v) ------",
        "--------- beginning of main",
        *log,
        "------ 0.210s was the duration of 'SYSTEM LOG' ------",
        "",
        "------ SYSTEM PROPERTIES (getprop) ------",
        "[persist.bluetooth.btsnooplogmode]: [full]",
        "[persist.sys.timezone]: [%s]" % ANDROID_TIMEZONE,
        "[ro.build.id]: [UQ1A.240205.004]",
        "[ro.product.model]: [Sample Phone]",
        "------ 0.004s was the duration of 'SYSTEM PROPERTIES' ------",
        "",
    ])
    return text.encode("ascii")


def write_android_bugreport_zip() -> bytes:
    """An adb-bugreport-style zip with the phone's full HCI log, rotated: btsnoop_hci.log.last
    (the older records) and btsnoop_hci.log, under FS/data/misc/bluetooth/logs/, plus the
    bugreport text, main_entry.txt naming it and version.txt."""
    main_name = "bugreport-sample-2024-05-14-14-01-00.txt"
    older = ANDROID_SESSION[:ANDROID_ROTATION]
    newer = ANDROID_SESSION[ANDROID_ROTATION - ANDROID_ROTATION_OVERLAP:]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zip_entry(main_name), write_android_bugreport_txt())
        zf.writestr(zip_entry("main_entry.txt"), main_name.encode("ascii"))
        zf.writestr(zip_entry("version.txt"), b"2.0")
        zf.writestr(zip_entry("FS/data/misc/bluetooth/logs/btsnoop_hci.log.last"), write_btsnoop_h4(older))
        zf.writestr(zip_entry("FS/data/misc/bluetooth/logs/btsnoop_hci.log"), write_btsnoop_h4(newer))
    return buf.getvalue()


# ---------------------------------------------------------------------------
# The "firmware-update" session: a phone updates a sensor twice over GATT, with mcumgr
# (an image upload that completes) and with Nordic Secure DFU (Buttonless DFU in the
# application, then the bootloader "DfuTarg" at the address + 1).
# ---------------------------------------------------------------------------

#: 2024-05-14T13:00:00Z.
T0_FIRMWARE_US = int(datetime(2024, 5, 14, 13, 0, 0, tzinfo=timezone.utc).timestamp()) * 1_000_000
#: The sensor (its application) and its bootloader, public addresses.
FIRMWARE_APP = "C0:FF:EE:00:00:51"
FIRMWARE_BOOTLOADER = "C0:FF:EE:00:00:52"
SECURE_DFU_CONTROL_POINT = "8ec90001-f315-4f60-9fb8-838830daea50"
SECURE_DFU_PACKET = "8ec90002-f315-4f60-9fb8-838830daea50"
BUTTONLESS_DFU_WITHOUT_BONDS = "8ec90003-f315-4f60-9fb8-838830daea50"
MCUMGR_CHARACTERISTIC = "da2e7828-fbce-4e01-ae9e-261174997c48"
#: The image mcumgr uploads and the firmware Secure DFU sends: 1024 bytes each, made up.
FIRMWARE_IMAGE = bytes((i * 7 + 3) & 0xFF for i in range(1024))
FIRMWARE_DFU = bytes((i * 13 + 5) & 0xFF for i in range(1024))


def att_handle_value_indication(handle: int, value: bytes):
    """ATT: Handle Value Indication (0x1d): handle, value"""
    return att(RECEIVED, struct.pack("<BH", 0x1D, handle) + value)


def att_handle_value_confirmation():
    """ATT: Handle Value Confirmation (0x1e)"""
    return att(SENT, b"\x1e")


def att_write_commands(handle: int, value: bytes, mtu: int = 247) -> list:
    """One value written without response in as many Write Commands (0x52) as ATT_MTU - 3 needs"""
    size = mtu - 3
    return [att_write_command(handle, value[i:i + size]) for i in range(0, len(value), size)]


def cbor_bytes(data: bytes) -> bytes:
    """CBOR byte string (major type 2) shorter than 64 KiB"""
    if len(data) < 24:
        return bytes([0x40 | len(data)]) + data
    return (bytes([0x58, len(data)]) if len(data) < 256 else b"\x59" + struct.pack(">H", len(data))) + data


def protobuf_varint(n: int) -> bytes:
    """Protocol buffer base-128 varint"""
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def protobuf_field(number: int, value: int | bytes) -> bytes:
    """Protocol buffer field: a varint (wire type 0) or length-delimited bytes (wire type 2)"""
    if isinstance(value, int):
        return protobuf_varint(number << 3) + protobuf_varint(value)
    return protobuf_varint(number << 3 | 2) + protobuf_varint(len(value)) + value


def secure_dfu_init_packet(firmware: bytes) -> bytes:
    """nRF5 SDK 17.1 dfu-cc.proto Packet {signed_command (2): SignedCommand {command (1): Command
    {op_code (1) INIT, init (2): InitCommand {fw_version 1, hw_version 52, sd_req [0x0100],
    type APPLICATION, app_size 1024, hash (8): Hash {SHA256, the firmware's SHA-256 reversed as
    nrfutil writes it}}}, signature_type (2) ECDSA_P256_SHA256, signature (3): 64 filler bytes}}"""
    digest = hashlib.sha256(firmware).digest()[::-1]
    init = (protobuf_field(1, 1) + protobuf_field(2, 52) + protobuf_field(3, protobuf_varint(0x0100))
            + protobuf_field(4, 0) + protobuf_field(7, len(firmware))
            + protobuf_field(8, protobuf_field(1, 3) + protobuf_field(2, digest)))
    command = protobuf_field(1, 1) + protobuf_field(2, init)
    signed = protobuf_field(1, command) + protobuf_field(2, 0) + protobuf_field(3, label_bytes("firmware signature", 64))
    return protobuf_field(2, signed)


def dfu_response(request: int, payload: bytes = b"") -> bytes:
    """Secure DFU Control Point notification: Response Code (0x60), the request's opcode,
    result Success (0x01), then the request's return values"""
    return bytes([0x60, request, 0x01]) + payload


def firmware_steps() -> list:
    """The firmware-update session as (delta µs, frame) steps."""
    steps: list = []

    def at(delta: int, frame) -> None:
        steps.append((delta, frame))

    def write_with_response(handle: int, value: bytes, answer_us: int = 30_000) -> None:
        at(1_000, att_write_request(handle, value))   # ATT: Write Request <handle>, <value>
        at(answer_us, att_write_response())            # ATT: Write Response

    # 1. The application: mcumgr and Buttonless DFU.
    at(0, le_connection_complete(FIRMWARE_APP))          # LE Connection Complete: handle 0x0040, peer C0:FF:EE:00:00:51
    at(2_000, att_exchange_mtu_request(247))             # ATT: Exchange MTU Request, client RX MTU 247
    at(30_000, att_exchange_mtu_response(247))           # ATT: Exchange MTU Response, server RX MTU 247
    at(1_000, att_read_by_group_type_request(0x0001, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x0001-0xffff
    at(30_000, att_read_by_group_type_response([(0x0001, 0x0005, 0x1800)]))  # ATT: Read By Group Type Response: GAP
    at(1_000, att_read_by_group_type_request(0x0006, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x0006-0xffff
    at(30_000, att_read_by_group_type_response_128([(0x0010, 0x0013, MCUMGR_SERVICE)]))  # Response: mcumgr 0x0010-0x0013
    at(1_000, att_read_by_group_type_request(0x0014, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x0014-0xffff
    at(30_000, att_read_by_group_type_response([(0x0020, 0x0023, 0xFE59)]))  # Response: Secure DFU 0x0020-0x0023
    at(1_000, att_read_by_type_request(0x0010, 0x0013, 0x2803))  # ATT: Read By Type Request 0x0010-0x0013, Characteristic
    at(30_000, att_read_by_type_response_any([(0x0011, 0x14, 0x0012, MCUMGR_CHARACTERISTIC)]))
    #          ATT: Read By Type Response: 0x0011 mcumgr Characteristic (write without response, notify) -> 0x0012
    at(1_000, att_read_by_type_request(0x0020, 0x0023, 0x2803))  # ATT: Read By Type Request 0x0020-0x0023, Characteristic
    at(30_000, att_read_by_type_response_any([(0x0021, 0x28, 0x0022, BUTTONLESS_DFU_WITHOUT_BONDS)]))
    #          ATT: Read By Type Response: 0x0021 Buttonless DFU Without Bonds (write, indicate) -> 0x0022
    at(1_000, att_find_information_request(0x0013, 0x0023))  # ATT: Find Information Request 0x0013-0x0023
    at(30_000, att_find_information_response([(0x0013, 0x2902), (0x0023, 0x2902)]))  # Response: two CCCDs
    write_with_response(0x0013, b"\x01\x00")             # mcumgr Characteristic CCCD: notifications on
    write_with_response(0x0023, b"\x02\x00")             # Buttonless DFU CCCD: indications on
    # An image upload: 1024 bytes in chunks of 448, 448 and 128 bytes of data (the first
    # chunk with "len", "sha" and "image"), each written in Write Commands of up to 244 bytes.
    sha = hashlib.sha256(FIRMWARE_IMAGE).digest()
    for seq, off in ((10, 0), (11, 448), (12, 896)):
        data = FIRMWARE_IMAGE[off:off + 448]
        body = cbor_text("off") + cbor_uint(off) + cbor_text("data") + cbor_bytes(data)
        if off == 0:
            body = (b"\xa5" + body + cbor_text("len") + cbor_uint(len(FIRMWARE_IMAGE))
                    + cbor_text("sha") + cbor_bytes(sha) + cbor_text("image") + b"\x00")
        else:
            body = b"\xa2" + body
        for index, frame in enumerate(att_write_commands(0x0012, mcumgr(2, 1, seq, 1, body))):
            at(100_000 if off == 0 and index == 0 else 1_500, frame)
            #      mcumgr: image upload request seq <seq>, one part per Write Command
        done = off + len(data)
        answer = b"\xa1" + cbor_text("off") + cbor_uint(done)
        if done == len(FIRMWARE_IMAGE):
            answer = b"\xa2" + cbor_text("off") + cbor_uint(done) + cbor_text("match") + b"\xf5"
        at(60_000, att_handle_value_notification(0x0012, mcumgr(3, 1, seq, 1, answer)))
        #          mcumgr: image upload response seq <seq>, {"off": <done>} and, at the end, "match": true
    # Buttonless DFU: Enter Bootloader, answered Success by an indication; the sensor resets.
    write_with_response(0x0022, b"\x01")                 # Buttonless DFU: Enter Bootloader (0x01)
    at(30_000, att_handle_value_indication(0x0022, b"\x20\x01\x01"))  # Buttonless DFU: Response Code, Enter Bootloader, Success
    at(1_000, att_handle_value_confirmation())           # ATT: Handle Value Confirmation
    at(100_000, disconnection_complete(0x13))            # HCI Event: Disconnect Complete, Remote User Terminated Connection

    # 2. The bootloader "DfuTarg": Secure DFU of the init packet (command object), then the firmware (data object).
    at(500_000, le_connection_complete(FIRMWARE_BOOTLOADER))  # LE Connection Complete: handle 0x0040, peer C0:FF:EE:00:00:52
    at(2_000, att_exchange_mtu_request(247))             # ATT: Exchange MTU Request, client RX MTU 247
    at(30_000, att_exchange_mtu_response(247))           # ATT: Exchange MTU Response, server RX MTU 247
    at(1_000, att_read_by_group_type_request(0x0001, 0xFFFF, 0x2800))  # ATT: Read By Group Type Request 0x0001-0xffff
    at(30_000, att_read_by_group_type_response([(0x0001, 0x0005, 0x1800), (0x0010, 0x0015, 0xFE59)]))
    #          ATT: Read By Group Type Response: GAP, Secure DFU 0x0010-0x0015
    at(1_000, att_read_by_type_request(0x0010, 0x0015, 0x2803))  # ATT: Read By Type Request 0x0010-0x0015, Characteristic
    at(30_000, att_read_by_type_response_any([(0x0011, 0x18, 0x0012, SECURE_DFU_CONTROL_POINT),
                                              (0x0014, 0x14, 0x0015, SECURE_DFU_PACKET)]))
    #          ATT: Read By Type Response: DFU Control Point (write, notify) -> 0x0012, DFU Packet (write without response, notify) -> 0x0015
    at(1_000, att_find_information_request(0x0013, 0x0013))  # ATT: Find Information Request 0x0013
    at(30_000, att_find_information_response([(0x0013, 0x2902)]))  # ATT: Find Information Response: CCCD
    write_with_response(0x0013, b"\x01\x00")             # DFU Control Point CCCD: notifications on
    init = secure_dfu_init_packet(FIRMWARE_DFU)

    def control(value: bytes, answer: bytes, answer_us: int = 30_000) -> None:
        write_with_response(0x0012, value)               # DFU Control Point: <opcode and parameters>
        at(answer_us, att_handle_value_notification(0x0012, answer))  # DFU Control Point: Response Code, <opcode>, Success, …

    control(b"\x06\x01", dfu_response(0x06, struct.pack("<III", 512, 0, 0)))   # Select command object: max 512, offset 0, CRC 0
    control(b"\x01\x01" + struct.pack("<I", len(init)), dfu_response(0x01))    # Create command object of the init packet's size
    at(1_000, att_write_command(0x0015, init))           # DFU Packet: the init packet
    control(b"\x03", dfu_response(0x03, struct.pack("<II", len(init), zlib.crc32(init))))  # Calculate Checksum: offset, CRC-32
    control(b"\x04", dfu_response(0x04), 5_000)          # Execute: the bootloader checks the init packet
    control(b"\x02\x04\x00", dfu_response(0x02))         # Set PRN: a receipt every 4 packets
    control(b"\x06\x02", dfu_response(0x06, struct.pack("<III", 4096, 0, 0)))  # Select data object: max 4096, offset 0, CRC 0
    control(b"\x01\x02" + struct.pack("<I", len(FIRMWARE_DFU)), dfu_response(0x01), 20_000)  # Create data object of 1024 bytes
    for index, frame in enumerate(att_write_commands(0x0015, FIRMWARE_DFU)):
        at(7_500, frame)                                 # DFU Packet: up to 244 firmware bytes
        if index == 3:
            written = 4 * 244
            at(7_500, att_handle_value_notification(0x0012, dfu_response(0x03, struct.pack(
                "<II", written, zlib.crc32(FIRMWARE_DFU[:written])))))
            #      DFU Control Point: packet receipt, Calculate Checksum Success, offset 976, its CRC-32
    control(b"\x03", dfu_response(0x03, struct.pack("<II", len(FIRMWARE_DFU), zlib.crc32(FIRMWARE_DFU))))
    #          Calculate Checksum: offset 1024, the firmware's CRC-32
    control(b"\x04", dfu_response(0x04), 90_000)         # Execute: the bootloader writes the firmware
    at(80_000, disconnection_complete(0x13))             # HCI Event: Disconnect Complete: the bootloader activates it and resets
    return steps


FIRMWARE_SESSION = build_session(firmware_steps(), T0_FIRMWARE_US)


def main() -> None:
    mon = monitor_records()
    h4_btsnoop = write_btsnoop_h4(SESSION)
    bugreport_txt = write_bugreport_txt(SESSION)
    files = {
        "hr-sensor.btsnoop": h4_btsnoop,
        "hr-sensor-monitor.btsnoop": write_btsnoop_monitor(mon),
        "hr-sensor-h1.btsnoop": write_btsnoop_h1(SESSION),
        "hr-sensor.pcap": pcap_file([(r.ts_us, phdr201(r)) for r in SESSION],
                                    DLT_BLUETOOTH_HCI_H4_WITH_PHDR),
        "hr-sensor-ns-be.pcap": pcap_file([(r.ts_us, phdr201(r)) for r in SESSION],
                                          DLT_BLUETOOTH_HCI_H4_WITH_PHDR,
                                          nanoseconds=True, endian=">", extra_ns=123),
        "hr-sensor.pcapng": write_pcapng(SESSION),
        "hr-sensor-monitor.pcap": pcap_file([(m.ts_us, phdr254(m)) for m in mon],
                                            DLT_BLUETOOTH_LINUX_MONITOR),
        "hr-sensor.pklg": write_pklg(SESSION, "<"),
        "hr-sensor-v1.pklg": write_pklg(SESSION, ">"),
        "bugreport-hr-sensor.txt": bugreport_txt,
        "bugreport-hr-sensor.zip": write_bugreport_zip(bugreport_txt),
        "cut-off.btsnoop": write_cut_off(h4_btsnoop, SESSION),
        "header-only.btsnoop": btsnoop_header(1002),
        "empty.btsnoop": b"",
        "not-a-capture.txt": b"This is a plain text file, not a Bluetooth capture.\n",
        "bad-datalink.btsnoop": write_bad_datalink(SESSION),
        "filtered.btsnoop": write_btsnoop_h4(SESSION, truncate_notifications_to=14),
        "secure-sensor.btsnoop": write_btsnoop_h4(SECURE_SESSION),
        "secure-sensor.pcap": pcap_file([(r.ts_us, phdr201(r)) for r in SECURE_SESSION],
                                        DLT_BLUETOOTH_HCI_H4_WITH_PHDR),
        "scanner.btsnoop": write_btsnoop_h4(SCANNER_SESSION),
        "air-sensor.pcap": pcap_file(air_session(), DLT_BLUETOOTH_LE_LL_WITH_PHDR),
        "vendor-gatt.btsnoop": write_btsnoop_h4(VENDOR_SESSION),
        "android-phone.btsnoop": write_btsnoop_h4(ANDROID_SESSION),
        "android-phone-update.btsnoop": write_btsnoop_h4(ANDROID_UPDATE_SESSION),
        "bugreport-android-phone.zip": write_android_bugreport_zip(),
        "android-autoconnect.btsnoop": write_btsnoop_h4(AUTOCONNECT_SESSION),
        "firmware-update.btsnoop": write_btsnoop_h4(FIRMWARE_SESSION),
    }
    for name, data in files.items():
        (OUT_DIR / name).write_bytes(data)
        print(f"{len(data):6d}  {name}")
    print(f"{len(SESSION)} session records, first {SESSION[0].ts_us} µs, last {SESSION[-1].ts_us} µs (Unix)")
    print(f"{len(SECURE_SESSION)} secure-sensor records, first {SECURE_SESSION[0].ts_us} µs, "
          f"last {SECURE_SESSION[-1].ts_us} µs (Unix)")


if __name__ == "__main__":
    main()
