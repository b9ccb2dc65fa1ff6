# reuseport-migrate: the front door.  See README.md.
#
#   make deps        install every Debian package the targets need (apt-get, idempotent)
#   make tree        pristine linux-source-$(KERNEL) + series/ in $(CACHE)/$(KERNEL)/linux
#   make export      regenerate series/ from the worktree's commits
#   make kunit       kunit.py run --arch=x86_64 with .kunitconfig (QEMU, TCG unless KVM=1)
#   make kselftest   boot the test kernel in QEMU and run the net selftests of kselftest/tests.txt
#   make check       the harness's own test, then kunit + kselftest + short demo + short servers
#                    scenario for each tree in KERNELS, ending "N passed, N failed"
#   make check-debug the same on the debug kernel (KASAN, lockdep, UBSAN, kmemleak, ...):
#                    any detector report fails it (CHECK_KSELFTEST=0: KUnit suites only)
#   make check-kcsan the same on the KCSAN kernel (data races), migration suites and stresses
#                    only (kselftest/tests-kcsan.txt): a race report in the migration code fails
#                    it, the others are listed (results/kcsan-findings-<tree>.txt)
#   make selftest    the harness's own test: its result reader fed recorded logs (tools/test/)
#   make soak        repeat the load and churn kselftests SOAK_RUNS times (default 20) in one
#                    guest, debug kernel (FLAVOUR=plain: the test kernel); every failed run
#                    with its output; SOAK_TESTS names the tests (kselftest/tests*.txt),
#                    SOAK_ARGS passes them options (-fexclusive: one fixture), SOAK_KUNIT
#                    repeats KUnit cases instead
#   make demo        rolling restart under load in QEMU: off / sysctl / bpf / drain, IPv4+IPv6,
#                    table + results/demo.csv + results/demo.svg (RESULTS=dir)
#   make demo-servers  real servers in QEMU: nginx and HAProxy (blue/green pairs on one port)
#                    restarted under wrk, plus nginx reload / binary upgrade and HAProxy -sf
#                    reload; off / sysctl / bpf, IPv4+IPv6; table + results/servers.csv,
#                    servers.svg, servers-summary.txt (SERVERS_* variables: docs/demo.md)
#   make pristine-figures  the tree as Debian ships it: connections a long rolling restart
#                    with migration on loses (and on the test kernel), and whether a
#                    client's RST wedges the survivor
#                    (reuseport_migrate's rst_after_migrate), and how many MPTCP connections
#                    queued on a closing listener it loses (reuseport_migrate_mptcp_queued)
#                    -> results/pristine-<tree>.txt
#   make bench       SYN-path rate, patched vs pristine (5 boots each), and close() cost per
#                    child for Q 100/1,000/10,000 -> results/bench/summary.txt (idle host)
#   make series-check  every patch in order: applies, builds, W=1/clang/sparse, checkpatch,
#                    kernel-doc, tags (bisect-check is the same)
#   make standalone-check  fresh extraction + git am series/, then only in-tree commands:
#                    kunit.py --kunitconfig=net/core and the net selftests build (cold)
#   make bloat       code size of the functions on the connection path: pristine, after net,
#                    after net-next (scripts/bloat-o-meter; results/bloat-<tree>.txt)
#   make fix-proof   each fix of series/net/: its reproducer (KUnit or kselftest) fails on the
#                    tree without it and passes with it (tools/data/fix-proofs.txt;
#                    results/fix-proof-<tree>.txt)
#   make stable-proof  each backport of series/stable-<tree>/: its reproducer fails without it
#                    and passes with it (tools/data/stable-proofs.txt;
#                    results/stable-proof-<tree>.txt)
#   make stress-proof  each stress of reuseport_migrate_stress against an upstream fix reverted
#                    (tools/data/stress-proofs.txt): the debug or KCSAN kernel must report the
#                    bug (results/stress-proof-<tree>.txt)
#   make wake-proof  reuseport_migrate_wake against each wake-up it guards, removed
#                    (tools/data/wake-proofs.txt): exactly the cases of that wake-up fail
#                    (results/wake-proof-<tree>.txt); then make wakerace-proof: the race
#                    suite's wake-up checks against the same reverts
#                    (results/wakerace-proof-<tree>.txt)
#   make leak-proof  reuseport_migrate_fault with a listener leaked on purpose
#                    (tools/data/leak-proofs.txt): exactly the cases that leak it fail
#                    (results/leak-proof-<tree>.txt; the debug kernel)
#   make churn-proof reuseport_migrate_churn with a failure kind it does not explain forced
#                    (tools/data/churn-proofs.txt): every case fails
#                    (results/churn-proof-<tree>.txt)
#   make accounting-proof  the race suite's chosen-listener-stops cases against a Fast Open
#                    charge or a failure count left out (tools/data/accounting-proofs.txt):
#                    exactly the cases of that account fail (results/accounting-proof-<tree>.txt)
#   make orphan-proof  the race suite's cases for a child cloned from a listener close()
#                    already stopped or orphaned (MPTCP too), against a clone that keeps
#                    SOCK_DEAD or the listener's shutdown state
#                    (tools/data/orphan-proofs.txt): exactly those cases fail
#                    (results/orphan-proof-<tree>.txt)
#   make shutdown-proof  the cases for children of a socket shut down before listen(), against
#                    a clone that clears the shutdown bits it copied
#                    (tools/data/shutdown-proofs.txt): exactly the SHUT_RD and SHUT_RDWR cases
#                    fail (results/shutdown-proof-<tree>.txt)
#   make mptcp-proof   the MPTCP queue test's cases with a plain TCP listener left in the
#                    group, against a migration that hands it MPTCP children
#                    (tools/data/mptcp-proofs.txt): exactly those cases fail
#                    (results/mptcp-proof-<tree>.txt)
#   make lockdep-proof  the race suite's SYN+ACK timer cases on the debug kernel against a
#                    clone's timer deleted synchronously from another clone's timer
#                    (tools/data/lockdep-proofs.txt): lockdep reports recursion and the
#                    first "migrated twice" row fails (results/lockdep-proof-<tree>.txt)
#   make skip-proof  the series' selftests in a guest without iptables and without their BPF
#                    objects (tools/data/skip-proofs.txt): each skips, with the reason, what
#                    needs them and passes the rest (results/skip-proof-<tree>.txt)
#   make variant-diff  what KERNEL changes in the patches it carries in another form than the
#                    main tree's (series/variants/<tree>/ against series/): the adjustments only
#   make posting     a postable copy of the net, net-next and stable layers: SIGNOFF="Name <mail>"
#                    replaces the placeholder identity; maintainers and send command per layer
#                    ($CACHE/posting/<tree>; nothing is sent)
#   make results     docs/results.md and docs/ci.md's table from the summaries in results/*.txt
#
# Variables: KERNEL (a tree of tools/data/trees; default its first), KERNELS="..." (the
# per-tree targets), FLAVOUR (a kernel of tools/data/flavours: plain, debug, kcsan), IMAGE (a
# bzImage to boot instead of building one), CACHE (default /var/tmp/reuseport-migrate), KVM=1
# (try KVM behind a boot probe), FORCE=1 (make tree may discard unexported worktree commits),
# JOBS.  Their defaults are written once, in tools/lib/common.sh.

RESULTS ?= results

# The packages of the harness; every tree's source package and clang come from tools/data/trees
# (tools/bin/deps.sh).
DEPS := qemu-system-x86 busybox-static ccache \
	build-essential bc flex bison libelf-dev libssl-dev dwarves cpio xz-utils rsync kmod \
	python3 git iproute2 iptables nftables clang llvm libbpf-dev bpftool \
	libnuma-dev libmnl-dev libcap-dev sparse python3-ply python3-git python3-yaml \
	nginx haproxy wrk

.PHONY: all demo demo-servers bench deps tree export kunit kselftest check check-debug \
	check-kcsan selftest soak series-check bisect-check standalone-check fix-proof \
	stable-proof stress-proof wake-proof wakerace-proof leak-proof churn-proof accounting-proof orphan-proof \
	shutdown-proof mptcp-proof lockdep-proof skip-proof variant-diff \
	posting bloat pristine-figures results help
all: help
help:
	@sed -n '2,/^[^#]/{ /^#/s/^# \{0,1\}//p; }' Makefile

deps:
	tools/bin/deps.sh $(DEPS)

tree: deps
	tools/bin/tree.sh

export:
	tools/bin/export.sh

kunit: tree
	tools/bin/kunit.sh

kselftest: tree
	tools/bin/kselftest.sh

selftest:
	tools/test/run.sh

check: deps
	tools/bin/check.sh

check-debug: deps
	FLAVOUR=debug tools/bin/check.sh

check-kcsan: deps
	FLAVOUR=kcsan tools/bin/check.sh

soak: deps
	tools/bin/soak.sh

series-check bisect-check: tree
	tools/bin/series-check.sh

standalone-check: deps
	tools/bin/standalone-check.sh

fix-proof: tree
	tools/bin/proof.sh fix

stable-proof: tree
	tools/bin/proof.sh stable

stress-proof: tree
	tools/bin/revert-proof.sh stress

wake-proof: tree
	tools/bin/revert-proof.sh wake
	tools/bin/revert-proof.sh wakerace

wakerace-proof: tree
	tools/bin/revert-proof.sh wakerace

leak-proof: tree
	tools/bin/revert-proof.sh leak

churn-proof: tree
	tools/bin/revert-proof.sh churn

accounting-proof: tree
	tools/bin/revert-proof.sh accounting

orphan-proof: tree
	tools/bin/revert-proof.sh orphan

shutdown-proof: tree
	tools/bin/revert-proof.sh shutdown

mptcp-proof: tree
	tools/bin/revert-proof.sh mptcp

lockdep-proof: tree
	tools/bin/revert-proof.sh lockdep

skip-proof: tree
	tools/bin/skip-proof.sh

bloat: tree
	tools/bin/bloat.sh

variant-diff:
	tools/bin/variant-diff.sh

posting: tree
	tools/bin/posting.sh

results:
	python3 tools/lib/results.py $(RESULTS) docs/results.md docs/ci.md

demo: tree
	tools/demo/run-demo.sh $(RESULTS)

demo-servers: tree
	tools/demo/run-servers.sh $(RESULTS)

pristine-figures: tree
	tools/bin/pristine-figures.sh

bench: deps
	tools/bin/bench.sh $(RESULTS)/bench
