#!/usr/bin/env bash
# Exit 0 if KVM can boot a kernel here: /dev/kvm opens and a guest prints to its serial
# console within 20 s.  On this kind of machine /dev/kvm is kvm_pvm, on which a stock
# kernel hangs silently, so KVM is never used without this probe.
# Usage: kvm-probe.sh [BZIMAGE]
set -uo pipefail
kernel=${1:-}
[ -w /dev/kvm ] || { echo "kvm-probe: /dev/kvm not usable" >&2; exit 1; }
if [ -z "$kernel" ]; then
	. "$(dirname "$0")/common.sh"
	kernel=$(image)
fi
[ -f "$kernel" ] || { echo "kvm-probe: no kernel to probe with ($kernel)" >&2; exit 1; }
out=$(timeout --signal=KILL 20 qemu-system-x86_64 -accel kvm -m 256 -nographic -no-reboot \
	-bios qboot.rom -kernel "$kernel" -append 'console=ttyS0 panic=-1' </dev/null 2>&1 | head -c 4096)
if grep -q 'Linux version' <<<"$out"; then
	echo "kvm-probe: KVM boots a kernel" >&2
	exit 0
fi
echo "kvm-probe: no console output under KVM within 20 s: using TCG" >&2
exit 1
