#!/usr/bin/env bash
# What went wrong with a QEMU guest run by tools/lib/qemu-run.sh, one problem per line on stdout
# (nothing when the run is sound): the guest's init did not print "TAG: done", the kernel
# panicked, or init's "TAG: nproc=N" shows fewer CPUs than asked.
# Usage: guest-check.sh LOG TAG CPUS QEMU_EXIT
set -euo pipefail
logf=$1 tag=$2 cpus=$3 qrc=$4
grep -q "^$tag: done" "$logf" 2>/dev/null || echo "the guest did not finish (qemu exit $qrc, log $logf)"
! grep -q 'Kernel panic' "$logf" 2>/dev/null || echo "the guest panicked (log $logf)"
n=$(sed -n "s/^$tag: nproc=\([0-9]*\).*/\1/p" "$logf" 2>/dev/null | head -n 1)
[ "${n:-0}" -ge "$cpus" ] || echo "the guest has ${n:-?} CPUs, $cpus were asked"
exit 0
