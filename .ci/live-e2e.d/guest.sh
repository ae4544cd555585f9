#!/bin/sh
# Runs as root inside the live-e2e VM (see ../live-e2e), one phase after the other, each
# writing into $OUT/PHASE what check.py reads:
#   probe  what the monitor socket reports about drops (SO_RXQ_OVFL, SO_MEMINFO)
#   run    l2cap-tester and smp-tester (whole suites), then btvirt + bluetoothd + gatttool,
#          captured by dumpcap, btmon and three bleanalyze: NDJSON -w pcap (SIGINT), text
#          -w btsnoop (SIGTERM), hci1 only -w pcapng (SIGINT); live --list; no CAP_NET_RAW
#   drops  bleanalyze with a small receive buffer, stopped (SIGSTOP) under a load and
#          continued, against dumpcap
#   rate   bleanalyze, btmon and dumpcap, one at a time, under user-logging floods of
#          rising rates
E=$(sed -n 's/.*e2e_dir=\([^ ]*\).*/\1/p' /proc/cmdline)
. "$E/out/env"
B=$BLEANALYZE
T=$E2E_TOOLS
H=$E2E_HERE
up() { cut -d' ' -f1 /proc/uptime; }
log() { echo "[$(up)] $*" | tee -a "$E/out/guest.log"; }
# Waits (at most 60 s) until FILE holds a line matching PATTERN.
wait_line() {
  i=0
  while [ $i -lt 240 ] && ! grep -qa "$2" "$1" 2>/dev/null; do sleep 0.25; i=$((i + 1)); done
  grep -qa "$2" "$1" 2>/dev/null || log "no '$2' in $1 after 60 s"
}
# Waits (at most 60 s) until FILE exists and is not empty.
wait_file() {
  i=0
  while [ $i -lt 240 ] && [ ! -s "$1" ]; do sleep 0.25; i=$((i + 1)); done
}
# Stops PID with SIGNAL and prints its exit status.
stop() {
  kill -"$1" "$2"
  wait "$2"
  echo $?
}

log "kernel $(uname -r), phases: $E2E_PHASES"
modprobe hci_vhci && modprobe cmac && modprobe ecdh_generic && log "modules loaded"

phase_probe() {
  python3 "$H/probe.py" >"$O/probe.txt" 2>&1
  log "probe rc=$?"
}

phase_run() {
  setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
    "$B" live --monitor >"$O/nonroot.out" 2>"$O/nonroot.err"
  echo $? >"$O/nonroot.rc"
  "$B" live --list >"$O/list-none.txt" 2>&1
  echo $? >"$O/list-none.rc"
  dumpcap -q -i bluetooth-monitor -w "$O/dumpcap.pcapng" >"$O/dumpcap.txt" 2>&1 &
  DUMPCAP=$!
  btmon -w "$O/btmon.btsnoop" >/dev/null 2>&1 &
  BTMON=$!
  "$B" live --monitor --format ndjson -w "$O/live.pcap" >"$O/live.ndjson" 2>"$O/live.stderr" &
  L1=$!
  "$B" live -w "$O/live.btsnoop" >"$O/live.txt" 2>"$O/live-text.stderr" &
  L2=$!
  "$B" live --monitor hci1 -w "$O/live-hci1.pcapng" >"$O/live-hci1.txt" 2>"$O/live-hci1.stderr" &
  L3=$!
  for f in live.stderr live-text.stderr live-hci1.stderr; do wait_line "$O/$f" "^bleanalyze: capturing"; done
  wait_file "$O/dumpcap.pcapng"
  wait_file "$O/btmon.btsnoop"
  sleep 1
  log "capturers started"
  timeout 180 "$T/l2cap-tester" >"$O/l2cap.txt" 2>&1
  log "l2cap-tester rc=$? $(grep -a '^Total' "$O/l2cap.txt")"
  timeout 90 "$T/smp-tester" >"$O/smp.txt" 2>&1
  log "smp-tester rc=$? $(grep -a '^Total' "$O/smp.txt")"

  "$T/btvirt" -L -l2 >"$O/btvirt.txt" 2>&1 &
  BTVIRT=$!
  sleep 3
  mkdir -p /run/dbus
  dbus-daemon --system --fork --nopidfile
  /usr/libexec/bluetooth/bluetoothd -n >"$O/bluetoothd.txt" 2>&1 &
  BTD=$!
  # bluetoothd sets its adapters up when it has started, and then publishes them on D-Bus:
  # wait for that, or it undoes what btmgmt sets below (it did on a busy host: hci1 then
  # advertised as non-connectable, and gatttool could not connect).
  i=0
  while [ $i -lt 60 ] && [ "$(dbus-send --system --print-reply --dest=org.bluez / \
    org.freedesktop.DBus.ObjectManager.GetManagedObjects 2>/dev/null | grep -c 'object path "/org/bluez/hci[01]"')" -lt 2 ]; do
    sleep 1
    i=$((i + 1))
  done
  log "bluetoothd has the adapters after ${i} s"
  sleep 2
  # hci1 a connectable peripheral (GATT server), hci0 the central; in this order.
  btmgmt --index 1 power on >"$O/btmgmt.txt" 2>&1
  btmgmt --index 1 connectable on >>"$O/btmgmt.txt" 2>&1
  btmgmt --index 1 advertising on >>"$O/btmgmt.txt" 2>&1
  btmgmt --index 0 power on >>"$O/btmgmt.txt" 2>&1
  "$B" live --list >"$O/list.txt" 2>&1
  echo $? >"$O/list.rc"
  "$B" live --list --format json >"$O/list.json" 2>&1
  hciconfig >"$O/hciconfig.txt" 2>&1
  ADDR=$(hciconfig hci1 | sed -n 's/.*BD Address: \([0-9A-F:]*\).*/\1/p')
  G="gatttool -i hci0 -b $ADDR -t public"
  timeout 30 $G --primary >"$O/gatt-primary.txt" 2>&1
  log "gatttool --primary rc=$?"
  timeout 30 $G --characteristics >"$O/gatt-chars.txt" 2>&1
  log "gatttool --characteristics rc=$?"
  timeout 30 $G --char-desc >"$O/gatt-desc.txt" 2>&1
  log "gatttool --char-desc rc=$?"
  timeout 30 $G --char-read -a 0x0003 >"$O/gatt-read.txt" 2>&1
  log "gatttool --char-read rc=$?"
  sleep 1
  kill -INT $BTD
  wait $BTD
  kill -INT $BTVIRT
  wait $BTVIRT
  sleep 2
  log "traffic done"
  stop INT $L1 >"$O/live.rc"
  stop TERM $L2 >"$O/live-text.rc"
  stop INT $L3 >"$O/live-hci1.rc"
  stop INT $BTMON >"$O/btmon.rc"
  stop INT $DUMPCAP >"$O/dumpcap.rc"
  log "exit: live(ndjson, SIGINT)=$(cat "$O/live.rc") live(text, SIGTERM)=$(cat "$O/live-text.rc")" \
    "live(hci1, SIGINT)=$(cat "$O/live-hci1.rc") btmon=$(cat "$O/btmon.rc") dumpcap=$(cat "$O/dumpcap.rc")"
}

phase_drops() {
  dumpcap -q -i bluetooth-monitor -w "$O/dumpcap.pcapng" >"$O/dumpcap.txt" 2>&1 &
  DUMPCAP=$!
  "$B" live --buffer-size 65536 --format ndjson -w "$O/live.pcapng" >"$O/live.ndjson" 2>"$O/live.stderr" &
  L=$!
  wait_line "$O/live.stderr" "^bleanalyze: capturing"
  wait_file "$O/dumpcap.pcapng"
  sleep 1
  log "drops: capturers started"
  python3 "$H/logflood.py" 1000 2000 before >"$O/flood1.txt"
  kill -STOP $L
  log "drops: bleanalyze stopped"
  python3 "$H/logflood.py" 4000 2000 stopped >"$O/flood2.txt"
  timeout 60 "$T/l2cap-tester" -p "L2CAP LE Client - Success" >"$O/l2cap.txt" 2>&1
  log "drops: l2cap-tester LE Client rc=$?"
  kill -CONT $L
  log "drops: bleanalyze continued"
  python3 "$H/logflood.py" 1000 2000 after >"$O/flood3.txt"
  sleep 2
  stop INT $L >"$O/live.rc"
  stop INT $DUMPCAP >"$O/dumpcap.rc"
  cat "$O"/flood*.txt | awk '{n += $1} END {print n}' >"$O/flooded"
  log "drops: exit live=$(cat "$O/live.rc") dumpcap=$(cat "$O/dumpcap.rc"), $(cat "$O/flooded") logging records written"
}

phase_rate() {
  for rate in ${E2E_RATES:-2000 5000 10000 20000 40000}; do
    count=$((rate * 4))
    for tool in bleanalyze btmon dumpcap; do
      f="$O/$tool-$rate"
      case $tool in
        bleanalyze)
          "$B" live -w "$f.btsnoop" >/dev/null 2>"$f.stderr" &
          P=$!
          wait_line "$f.stderr" "^bleanalyze: capturing"
          ;;
        btmon)
          btmon -w "$f.btsnoop" >/dev/null 2>&1 &
          P=$!
          wait_file "$f.btsnoop"
          ;;
        dumpcap)
          dumpcap -q -i bluetooth-monitor -w "$f.pcapng" >"$f.stderr" 2>&1 &
          P=$!
          wait_file "$f.pcapng"
          ;;
      esac
      sleep 1
      python3 "$H/logflood.py" $count "$rate" >"$f.flood"
      sleep 2
      stop INT $P >"$f.rc"
      log "rate $rate/s $tool: flood $(cat "$f.flood") rc=$(cat "$f.rc")"
    done
  done
}

for phase in $E2E_PHASES; do
  O=$E/out/$phase
  mkdir -p "$O"
  log "phase $phase"
  phase_$phase
done
sync
