#!/usr/bin/env bash
# make series-check: hold every patch of series/ to netdev's CI standard, in order, on a
# scratch worktree of the base tree ($CACHE/$KERNEL/check/linux, built in .../check/build
# with the test kernel's config, so ccache shares the main build's objects):
#   apply     git am of the patch alone
#   build     incremental build of the whole kernel after the patch (a patch that touches only
#             tools/testing/ and Documentation/ changes no input of it: not built again when
#             the previous patch built)
#   w1        gcc W=1 on the objects the patch touches: no warning the object lacked before
#   checkpatch  scripts/checkpatch.pl --strict: 0 errors, 0 warnings, 0 checks (UNKNOWN_COMMIT_ID
#             ignored: the tarball has no git history; Fixes: ids are checked under tags;
#             FILE_PATH_CHANGES only when get_maintainer.pl covers every added file)
#   kerneldoc scripts/kernel-doc -none on the touched .c/.h files: silent
#   tags      From/Signed-off-by are the project identity, subject has a subsystem prefix,
#             no duplicate subjects, Fixes: names a known upstream commit with its title;
#             layers: every patch of net carries Fixes: (its selftests may not), a stable
#             backport opens with "commit <sha> upstream." (or says its id is unconfirmed,
#             or, a fix for that stable branch alone, "[ Not in mainline: ...")
#             and keeps upstream's Fixes:, no other layer carries Fixes:, and no patch
#             outside test-only adds a kprobe or override_function_with_return()
# per layer that is posted (net, net-next): at most 15 patches (maintainer-netdev.rst)
# and, on the final tree, against the pristine tree:
#   clang     LLVM=1 W=1 (the tree's clang) on every object the series touches: no new warning
#   sparse    C=2 on the same objects: no new warning
# One line per patch and check (PASS/FAIL and the reason), then a total.
. "$(dirname "$0")/../lib/common.sh"
need git git
need ccache ccache
# The tree's clang (tools/data/trees): LLVM=1, or LLVM=-<version> for a versioned package.
clang=$(tree_field "$KERNEL" clang)
need "$clang" "$clang"
llvm=1
if [ "$clang" != clang ]; then
	llvm=${clang#clang}
	need "ld.lld$llvm" "lld$llvm"
	need "llvm-ar$llvm" "llvm$llvm"
fi
need sparse sparse
need perl perl

CHK=$CACHE/$KERNEL/check
SRC=$CHK/linux
OBJ=$CHK/build
OBJ_CLANG=$CHK/build-clang
known=$REPO/tools/data/upstream-commits.txt
ident="$GIT_IDENT_NAME <$GIT_IDENT_EMAIL>"
mapfile -t patches < <(series_patches)
t_start=$(date +%s)

pass=0 fail=0
report() { # STATUS PATCH CHECK [REASON]
	printf '%-4s %-60s %-10s %s\n' "$1" "$2" "$3" "${4:-}"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

[ -f "$BUILD/.config" ] || "$REPO/tools/lib/build-kernel.sh"
[ -d "$TREE/.git" ] || die "no tree at $TREE: run 'make tree' first"
scratch_tree "$SRC"
at_pristine "$SRC"

mk() { make -s -C "$SRC" O="$OBJ" -j"$JOBS" CC="ccache gcc" "$@"; }
mk_clang() { make -s -C "$SRC" O="$OBJ_CLANG" -j"$JOBS" LLVM=$llvm CC="ccache $clang" "$@"; }

# The test kernel's config, applied again after every patch: olddefconfig drops the symbols a
# tree does not have yet, so a symbol a patch adds (the KUnit suites) must be put back for the
# patch's objects to be built at all.
use_config() { # mk|mk_clang DIR
	cp "$BUILD/.config" "$2/.config"
	"$1" olddefconfig >/dev/null
}
mkdir -p "$OBJ"
use_config mk "$OBJ"
log "base build of the pristine tree in $OBJ"
mk >/dev/null 2>"$CHK/base.log" || { cat "$CHK/base.log" >&2; die "the pristine tree does not build"; }

# w1_warnings OBJECT...: the W=1 warnings of these objects, without line numbers.
w1_warnings() {
	local o
	for o in "$@"; do
		mk W=1 "$o" 2>&1 >/dev/null | grep -E 'warning:|error:' |
			sed -E 's/:[0-9]+:[0-9]+:/:/' || true
	done | sort -u
}

# objects_of FILE...: the .o built from each touched .c file in this config.
objects_of() {
	local f
	for f in "$@"; do
		case $f in *.c) [ -f "$OBJ/${f%.c}.o" ] && echo "${f%.c}.o" ;; esac
	done
	return 0
}

for l in $(series_layers); do
	case $l in net|net-next) ;; *) continue ;; esac
	c=$(series_patches | grep -c "^$l/")
	if [ "$c" -le 15 ]; then
		report PASS "(layer $l, $c patches)" size
	else
		report FAIL "(layer $l)" size "$c patches: netdev takes at most 15 per posting"
	fi
done

declare -A subjects=()
all_touched=()
n=0
built=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	pf=$(series_file "$p")
	mapfile -t touched < <(sed -n 's|^+++ b/||p' "$pf" | sort -u)
	all_touched+=("${touched[@]}")
	before=$(w1_warnings $(objects_of "${touched[@]}"))

	if ! out=$(apply_patch "$SRC" "$p" 2>&1); then
		report FAIL "$p" apply "$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"
		break
	fi
	report PASS "$p" apply

	# A patch that touches only tools/testing/ and Documentation/ leaves every input of the
	# kernel build as the previous patch left it: when that one built, so does this one.
	kfiles=$(printf '%s\n' "${touched[@]}" | grep -Ev '^(tools/testing|Documentation)/' || true)
	if [ -z "$kfiles" ] && [ "$built" = 1 ]; then
		report PASS "$p" build "no input of the kernel build touched: as the previous patch"
	elif use_config mk "$OBJ" && out=$(mk 2>&1 >/dev/null); then
		report PASS "$p" build
		built=1
	else
		report FAIL "$p" build "$(printf '%s\n' "$out" | grep -m 3 -E 'error|Error' | tr '\n' ' ')"
		built=0
	fi

	after=$(w1_warnings $(objects_of "${touched[@]}"))
	new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | sed '/^$/d')
	if [ -z "$new" ]; then
		report PASS "$p" w1
	else
		report FAIL "$p" w1 "new W=1 warnings: $(printf '%s\n' "$new" | head -n 3 | tr '\n' ' ')"
	fi

	# FILE_PATH_CHANGES ("added, moved or deleted file(s), does MAINTAINERS need updating?")
	# is answered, not ignored: it is dropped only when get_maintainer.pl already finds a
	# subsystem list (not just THE REST's linux-kernel@) for every file the patch adds.
	ignore=UNKNOWN_COMMIT_ID
	mapfile -t added < <(awk '/^diff --git /{f=$4; sub(/^b\//, "", f)} /^new file mode/{print f}' "$pf")
	uncovered=()
	for f in "${added[@]}"; do
		(cd "$SRC" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
			--no-m --no-r -f "$f" 2>/dev/null) | grep -v '^linux-kernel@' |
			grep -q '@vger.kernel.org' || uncovered+=("$f")
	done
	[ "${#uncovered[@]}" -gt 0 ] || ignore+=,FILE_PATH_CHANGES
	# Debian's python3 first: checkpatch's SPDX check (scripts/spdxcheck.py) needs python3-ply
	# and python3-git, which another python3 in PATH may lack; if it cannot run, that fails too.
	cp_out=$(cd "$SRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --terse -q \
		--ignore "$ignore" "$pf" 2>&1 | grep -E 'ERROR|WARNING|CHECK|Traceback|Error:' || true)
	if [ -z "$cp_out" ]; then
		report PASS "$p" checkpatch
	else
		report FAIL "$p" checkpatch "$(printf '%s\n' "$cp_out" | wc -l) issue(s): $(printf '%s\n' "$cp_out" | head -n 2 | tr '\n' ' ')"
	fi

	kd_files=()
	for f in "${touched[@]}"; do
		case $f in *.c|*.h) [ -f "$SRC/$f" ] && kd_files+=("$f") ;; esac
	done
	kd_out=""
	[ "${#kd_files[@]}" = 0 ] || kd_out=$(cd "$SRC" && perl scripts/kernel-doc -none "${kd_files[@]}" 2>&1 || true)
	if [ -z "$kd_out" ]; then
		report PASS "$p" kerneldoc
	else
		report FAIL "$p" kerneldoc "$(printf '%s\n' "$kd_out" | head -n 2 | tr '\n' ' ')"
	fi

	problems=()
	from=$(sed -n '0,/^From: /s/^From: //p' "$pf")
	[ "$from" = "$ident" ] || problems+=("From: is '$from'")
	grep -qxF "Signed-off-by: $ident" "$pf" || problems+=("no 'Signed-off-by: $ident'")
	# The Subject: header, unfolded (format-patch wraps long subjects), without "[PATCH n/m] ".
	subject=$(awk '/^Subject: /{s=$0; f=1; next} f && /^ /{s=s $0; next} f{exit} END{print s}' "$pf" |
		sed 's/^Subject: \(\[[^]]*\] \)\{0,1\}//')
	echo "$subject" | grep -Eq '^[A-Za-z0-9_./-]+(: [A-Za-z0-9_./ -]+)*: [^ ]' ||
		problems+=("subject '$subject' has no subsystem prefix")
	if [ -n "${subjects[$subject]:-}" ]; then
		problems+=("subject repeats ${subjects[$subject]}")
	fi
	subjects[$subject]=$p
	while read -r id title; do
		line=$(grep -E "^$id[0-9a-f]* " "$known" 2>/dev/null | head -n 1)
		if [ -z "$line" ]; then
			problems+=("Fixes: $id is not in tools/data/upstream-commits.txt")
		elif [ "(\"${line#* }\")" != "$title" ]; then
			problems+=("Fixes: $id title differs from upstream's '${line#* }'")
		fi
	done < <(sed -n 's/^Fixes: \([0-9a-f]\{12,40\}\) \(.*\)$/\1 \2/p' "$pf")
	if grep -qi '^Fixes:' "$pf" && ! grep -qE '^Fixes: [0-9a-f]{12,40} \(".*"\)$' "$pf"; then
		problems+=("malformed Fixes: line")
	fi
	case $p in
	net/[0-9]*-selftests-*) ;; # the selftest of a fix: Fixes: is optional
	net/*) grep -q '^Fixes: ' "$pf" || problems+=("a patch of the net layer without Fixes:") ;;
	stable-*/*)
		# A stable backport keeps upstream's Fixes: and opens with the upstream commit,
		# or says that its id could not be confirmed.
		body=$(awk '/^$/{f=1; next} f && NF{print; exit}' "$pf")
		echo "$body" | grep -Eq '^(commit [0-9a-f]{40} upstream\.|\[ Upstream commit id not confirmed|\[ Not in mainline: )' ||
			problems+=("a stable backport whose message does not open with 'commit <sha> upstream.'") ;;
	*/*) ! grep -q '^Fixes: ' "$pf" || problems+=("Fixes: outside the net layer") ;;
	esac
	case $p in
	test-only/*) ;;
	*) ! grep -Eq '^\+.*(register_kr?probe|override_function_with_return)' "$pf" ||
		problems+=("kprobe or error injection outside the test-only layer") ;;
	esac
	if [ "${#problems[@]}" = 0 ]; then
		report PASS "$p" tags
	else
		report FAIL "$p" tags "$(IFS=';'; echo "${problems[*]}")"
	fi
done

# The final tree against the pristine one, for clang and sparse, on every touched object.
mapfile -t final_objs < <(objects_of $(printf '%s\n' "${all_touched[@]}" | sort -u))
if [ "${#final_objs[@]}" -gt 0 ] && [ "$n" = "${#patches[@]}" ]; then
	final=$(git -C "$SRC" rev-parse HEAD)
	mkdir -p "$OBJ_CLANG"
	use_config mk_clang "$OBJ_CLANG"
	mk_clang prepare >/dev/null 2>&1 || log "clang prepare reported errors"
	tool_warnings() { # clang|sparse
		local o
		for o in "${final_objs[@]}"; do
			[ -f "$SRC/${o%.o}.c" ] || continue
			case $1 in
			clang) mk_clang W=1 "$o" 2>&1 >/dev/null ;;
			sparse) mk C=2 "$o" 2>&1 >/dev/null ;;
			esac | grep -E 'warning:|error:' | sed -E 's/:[0-9]+:[0-9]+:/:/' || true
		done | sort -u
	}
	git -C "$SRC" checkout -q --detach pristine
	clang_before=$(tool_warnings clang)
	sparse_before=$(tool_warnings sparse)
	git -C "$SRC" checkout -q --detach "$final"
	use_config mk_clang "$OBJ_CLANG"
	use_config mk "$OBJ"
	clang_after=$(tool_warnings clang)
	sparse_after=$(tool_warnings sparse)
	for t in clang sparse; do
		b=${t}_before a=${t}_after
		new=$(comm -13 <(printf '%s\n' "${!b}") <(printf '%s\n' "${!a}") | sed '/^$/d')
		if [ -z "$new" ]; then
			report PASS "(final tree, ${#final_objs[@]} objects)" "$t"
		else
			report FAIL "(final tree)" "$t" "$(printf '%s\n' "$new" | head -n 3 | tr '\n' ' ')"
		fi
	done
	mk >/dev/null 2>&1 || true
fi

# No person is behind the placeholder identity, so no patch is postable as it is: a warning
# (not a failure) that names the way to a postable copy.
echo "WARN (series) identity: every patch is from and signed off by '$ident', which is no person's: the DCO needs the sign-off of whoever posts (SIGNOFF=\"Name <mail>\" make posting)"
echo "series-check ($KERNEL, ${#patches[@]} patches): $pass passed, $fail failed"
# The summary for results/ (and docs/ci.md's table): the total, the command, the time.
mkdir -p "${RESULTS:-$REPO/results}"
{
	echo "$pass passed, $fail failed"
	echo "command: make series-check KERNEL=$KERNEL"
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "tree $KERNEL: $(git -C "$TREE" log -1 --format='%h %s')"
	echo "$KERNEL series-check: ${#patches[@]} patches: $(( $(date +%s) - t_start )) s"
} > "${RESULTS:-$REPO/results}/series-check-$KERNEL.txt"
[ "$fail" = 0 ]
