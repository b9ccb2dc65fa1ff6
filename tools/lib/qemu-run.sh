#!/usr/bin/env bash
# Boot a kernel + initramfs in QEMU (TCG unless KVM=1 and the probe passed), serial console
# to stdout and to LOG (line by line, as the guest writes it: sed -u, not a block-buffered filter),
# killed after TIMEOUT seconds.  The guest ends QEMU itself with `reboot -f` (-no-reboot); the
# timeout is the fallback.
# Usage: qemu-run.sh BZIMAGE INITRAMFS LOG TIMEOUT CPUS [EXTRA_CMDLINE]
set -euo pipefail
kernel=$1 initrd=$2 logf=$3 tmo=$4 cpus=$5 extra=${6:-}
accel=tcg
if [ "${KVM:-0}" = 1 ] && "$(dirname "$0")/kvm-probe.sh" "$kernel"; then
	accel=kvm
fi
echo "qemu: accel=$accel cpus=$cpus timeout=${tmo}s" >&2
set +e
timeout --signal=KILL "$tmo" qemu-system-x86_64 -accel "$accel" -m "${QEMU_MEM:-2048}" \
	-smp "$cpus" -nographic -no-reboot -bios qboot.rom -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic rdinit=/init rm.cpus=$cpus kunit.enable=0 $extra" \
	</dev/null 2>&1 | sed -u 's/\r//g' | tee "$logf"
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" = 137 ]; then
	echo "qemu: guest did not finish within ${tmo}s and was killed" | tee -a "$logf" >&2
fi
exit "$rc"
