#!/usr/bin/env bash
# Sets up CUPS with a virtual PDF printer named PDF (cups-pdf) for the printing tests: installs the
# packages when missing, starts the scheduler when it is not running (no init system needed), and
# adds the printer. Prints the variables the tests read. Safe to run again.
set -euo pipefail
source "$(dirname "$0")/../.ci/system-packages"
need=()
command -v cupsd >/dev/null || [ -x /usr/sbin/cupsd ] || need+=(cups)
command -v lp >/dev/null || need+=(cups-client)
[ -f /usr/lib/cups/backend/cups-pdf ] || need+=(printer-driver-cups-pdf)
apt_install "${need[@]}" >&2
if ! lpstat -r 2>/dev/null | grep -q "is running"; then
  setsid /usr/sbin/cupsd -f >/dev/null 2>&1 < /dev/null &
  for _ in $(seq 50); do lpstat -r 2>/dev/null | grep -q "is running" && break; sleep 0.1; done
fi
if ! lpstat -p PDF >/dev/null 2>&1; then
  lpadmin -p PDF -v cups-pdf:/ -E -m lsb/usr/cups-pdf/CUPS-PDF_opt.ppd 2>/dev/null
fi
echo "PACKDESK_CUPS_PRINTER=PDF"
echo "PACKDESK_CUPS_OUT=$HOME/PDF"
