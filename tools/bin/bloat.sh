#!/usr/bin/env bash
# make bloat: what the series costs in code size on the connection path.  Builds vmlinux with
# the test kernel's config three times in a scratch worktree ($CACHE/$KERNEL/bloat): the
# pristine tree, after the net layer, and after the net-next layer (the test-only layer adds
# only test files), then compares them with the tree's scripts/bloat-o-meter.
#
# Prints the size change of each function on the SYN, final-ACK and lookup paths between the
# three vmlinux images, then bloat-o-meter's whole output for the net layer and its totals for
# net-next; the same goes to RESULTS/bloat-<tree>.txt.
# The config is the test kernel's, KUnit suites included: bloat-o-meter's totals count the
# suites of the net-next layer (sock_reuseport_test.c), the function table does not.  The trace
# event is compiled in (CONFIG_TRACEPOINTS) and off at run time: its call sites cost a static
# branch and the argument setup each.
. "$(dirname "$0")/../lib/common.sh"
need git git
need ccache ccache
need python3 python3
[ -e "$TREE/.git" ] || die "no tree at $TREE: run 'make tree KERNEL=$KERNEL' first"
[ -f "$BUILD/.config" ] || die "no test kernel config in $BUILD: run 'make kunit' (or make check) first"
results=${RESULTS:-$REPO/results}
B=$CACHE/$KERNEL/bloat
SRC=$B/linux

# The functions of the paths every connection takes, and of the migration paths.
funcs=(tcp_v4_rcv tcp_v6_rcv reuseport_select_sock tcp_conn_request tcp_check_req
	inet_csk_complete_hashdance inet_csk_reqsk_queue_add inet_csk_listen_stop
	inet_csk_clone_lock reuseport_migrate_sock reqsk_timer_handler)

scratch_tree "$SRC"

# build NAME N: vmlinux of pristine + the first N patches of series/, in $B/build-NAME.
build() {
	local name=$1 n=$2 p i=0 obj=$B/build-$1 stamp
	# Nothing to do when this vmlinux was built from the same diffs (messages aside) and config.
	stamp=$({ series_patches | head -n "$n" | while read -r p; do
			sed -n '/^diff --git /,$p' "$(series_file "$p")"; done
		cat "$BUILD/.config"; } | sha256sum | cut -c1-32)
	if [ -f "$obj/vmlinux" ] && [ "$(cat "$obj/.bloat-stamp" 2>/dev/null)" = "$stamp" ]; then
		log "vmlinux $name is up to date"
		return 0
	fi
	rm -f "$obj/.bloat-stamp"
	at_pristine "$SRC"
	while read -r p; do
		[ "$i" -lt "$n" ] || break
		apply_patch "$SRC" "$p" || die "$p does not apply (reason above)"
		i=$((i + 1))
	done < <(series_patches)
	mkdir -p "$obj"
	cp "$BUILD/.config" "$obj/.config"
	log "building vmlinux: $name (pristine + $n patches) in $obj"
	make -s -C "$SRC" O="$obj" -j"$JOBS" CC="ccache gcc" olddefconfig >/dev/null
	make -s -C "$SRC" O="$obj" -j"$JOBS" CC="ccache gcc" vmlinux >/dev/null 2>"$obj/build.log" ||
		{ tail -n 20 "$obj/build.log" >&2; die "the $name build failed"; }
	echo "$stamp" > "$obj/.bloat-stamp"
}

# Positions in series order: the base includes a stable layer of backports (stable-<base>)
# that comes before net, so "pristine" is the Debian tree plus those backports.
last_of() { series_patches | awk -v re="$1" '$0 ~ re { n = NR } END { print n + 0 }'; }
n_base=$(series_patches | awk '/^net\// { print NR - 1; exit }')
n_net=$(last_of '^net/')
n_next=$(last_of '^net-next/')
[ "$n_net" -gt 0 ] || die "series/ has no net layer"
build pristine "$n_base"
build net "$n_net"
build net-next "$n_next"

# size_of NAME FUNCTION: the size in bytes of FUNCTION in build NAME's vmlinux, empty if absent.
size_of() {
	local hex
	hex=$(nm -S "$B/build-$1/vmlinux" | awk -v f="$2" '$4 == f { print $2; exit }')
	[ -z "$hex" ] || echo $((16#$hex))
}

out=$B/bloat.txt
{
	echo "bloat $KERNEL: vmlinux of the test kernel config, pristine -> net ($n_net patches) -> net-next ($n_next)"
	echo "command: make bloat KERNEL=$KERNEL"
	echo "tree: $(git -C "$TREE" log -1 --format=%s pristine)"
	printf '%-30s %9s %9s %9s %7s %9s\n' function pristine net net-next "net +/-" "total +/-"
	for f in "${funcs[@]}"; do
		a=$(size_of pristine "$f") b=$(size_of net "$f") c=$(size_of net-next "$f")
		printf '%-30s %9s %9s %9s %7s %9s\n' "$f" "${a:--}" "${b:--}" "${c:--}" \
			"$([ -n "$a" ] && [ -n "$b" ] && echo $((b - a)) || echo -)" \
			"$([ -n "$a" ] && [ -n "$c" ] && echo $((c - a)) || echo -)"
	done
	echo
	# The net layer's whole change, function by function (the figures its cover letter quotes);
	# net-next's totals only (most of it is the KUnit suites the test config builds in).
	echo "scripts/bloat-o-meter pristine net:"
	"$SRC/scripts/bloat-o-meter" "$B/build-pristine/vmlinux" "$B/build-net/vmlinux"
	echo "scripts/bloat-o-meter pristine net-next:"
	"$SRC/scripts/bloat-o-meter" "$B/build-pristine/vmlinux" "$B/build-net-next/vmlinux" | sed -n 1p
} > "$out"
mkdir -p "$results"
cp "$out" "$results/bloat-$KERNEL.txt"
cat "$out"
