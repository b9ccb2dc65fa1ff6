# reuseport-migrate: the front door.  See README.md.
#
#   make deps        install every Debian package the targets need (apt-get, idempotent)
#   make tree        pristine linux-source-$(KERNEL) + series/ in $(CACHE)/$(KERNEL)/linux
#   make export      regenerate series/ from the worktree's commits
#   make kunit       kunit.py run --arch=x86_64 with .kunitconfig (QEMU, TCG unless KVM=1)
#   make kselftest   boot the test kernel in QEMU and run the net selftests of kselftest/tests.txt
#   make check       kunit + kselftest + short demo + short servers scenario for each tree in
#                    KERNELS, ending "N passed, N failed"
#   make check-debug the same on the debug kernel (KASAN, lockdep, UBSAN, kmemleak, ...):
#                    any detector report fails it (DEBUG_KSELFTEST=0: KUnit suites only)
#   make check-kcsan the same on the KCSAN kernel (data races), migration suites and stresses
#                    only (kselftest/tests-kcsan.txt): a race report in the migration code fails
#                    it, the others are listed (kselftest-kcsan/kcsan-findings.txt)
#   make soak        repeat the load and churn kselftests SOAK_RUNS times (default 20) in one
#                    guest, debug kernel (SOAK_KERNEL=plain: the test kernel); every failed
#                    run with its output; SOAK_TESTS names the tests (kselftest/tests*.txt)
#   make demo        rolling restart under load in QEMU: off / sysctl / bpf / drain, IPv4+IPv6,
#                    table + results/demo.csv + results/demo.svg (RESULTS=dir)
#   make demo-servers  real servers in QEMU: nginx and HAProxy (blue/green pairs on one port)
#                    restarted under wrk, plus nginx reload / binary upgrade and HAProxy -sf
#                    reload; off / sysctl / bpf, IPv4+IPv6; table + results/servers.csv,
#                    servers.svg, servers-summary.txt (SERVERS_* variables: docs/demo.md)
#   make bench       SYN-path rate, patched vs pristine (5 boots each), and close() cost per
#                    child for Q 100/1,000/10,000 -> results/bench/summary.txt (idle host)
#   make series-check  every patch in order: applies, builds, W=1/clang/sparse, checkpatch,
#                    kernel-doc, tags (bisect-check is the same)
#   make standalone-check  fresh extraction + git am series/, then only in-tree commands:
#                    kunit.py --kunitconfig=net/core and the net selftests build (cold)
#   make bloat       code size of the functions on the connection path: pristine, after net,
#                    after net-next (scripts/bloat-o-meter; results/bloat-<tree>.txt)
#   make fix-proof   each fix of series/net/: its KUnit reproducer fails on the tree without
#                    it and passes with it (tools/fix-proofs.txt; results/fix-proof-<tree>.txt)
#   make stable-proof  each backport of series/stable-<tree>/ (6.1): its reproducer fails
#                    without it and passes with it (tools/stable-proofs.txt;
#                    results/stable-proof-<tree>.txt)
#   make stress-proof  each stress of reuseport_migrate_stress against an upstream fix reverted
#                    (tools/stress-proofs.txt): the debug or KCSAN kernel must report the bug
#                    (results/stress-proof-<tree>.txt)
#   make results     docs/results.md from the summaries the targets wrote in results/*.txt
#
# Variables: KERNEL=6.1|6.12 (default 6.1), KERNELS="6.1 6.12" (make check), CACHE (default
# /var/tmp/reuseport-migrate), KVM=1 (try KVM behind a boot probe), FORCE=1 (make tree may
# discard unexported worktree commits), JOBS.

KERNEL ?= 6.1
KERNELS ?= $(KERNEL)
RESULTS ?= results
CACHE ?= /var/tmp/reuseport-migrate
export KERNEL KERNELS CACHE

DEPS := linux-source-6.1 linux-source-6.12 qemu-system-x86 busybox-static ccache \
	build-essential bc flex bison libelf-dev libssl-dev dwarves cpio xz-utils rsync kmod \
	python3 git iproute2 iptables nftables clang llvm libbpf-dev bpftool \
	libnuma-dev libmnl-dev libcap-dev sparse python3-ply python3-git python3-yaml \
	nginx haproxy wrk

.PHONY: all demo demo-servers bench deps tree export kunit kselftest check check-debug \
	check-kcsan soak series-check bisect-check standalone-check fix-proof stable-proof \
	stress-proof bloat results help
all: help
help:
	@sed -n '2,44s/^# \{0,1\}//p' Makefile

deps:
	@missing=$$(for p in $(DEPS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	else echo "deps: all $(words $(DEPS)) packages installed"; fi
	@dpkg-query -W -f='$${Package} $${Version}\n' linux-source-6.1 linux-source-6.12

tree: deps
	tools/tree.sh

export:
	tools/export.sh

kunit: tree
	tools/kunit.sh

kselftest: tree
	tools/kselftest.sh

check: deps
	tools/check.sh

check-debug: deps
	tools/check-debug.sh

check-kcsan: deps
	tools/check-kcsan.sh

soak: deps
	tools/soak.sh

series-check bisect-check: tree
	tools/series-check.sh

standalone-check: deps
	tools/standalone-check.sh

fix-proof: tree
	tools/fix-proof.sh

stable-proof: tree
	tools/stable-proof.sh

stress-proof: tree
	tools/stress-proof.sh

bloat: tree
	tools/bloat.sh

results:
	python3 tools/results.py $(RESULTS) docs/results.md

demo: tree
	tools/demo/run-demo.sh $(RESULTS)

demo-servers: tree
	tools/demo/run-servers.sh $(RESULTS)

bench: deps
	tools/bench.sh $(RESULTS)/bench
