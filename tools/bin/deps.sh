#!/usr/bin/env bash
# make deps: install the Debian packages the targets need (the arguments), every tree's source
# package and clang (tools/data/trees), with apt-get; idempotent.
#
# A tree whose suite is not the machine's own release (for example trixie-backports) gets an
# apt source for that one suite, with the archive address copied from the machine's own apt
# configuration (no host name is written here), and an apt preferences file that pins every
# package of the suite at -1 and the tree's package alone at 500, so that nothing else can come
# from it.  A machine that cannot install such a package is told which package and suite, and
# the other trees' packages are installed all the same; the status stays 0, so that the other
# trees' targets work (that tree's targets then name the missing package and its suite).
# Usage: deps.sh PACKAGE...
. "$(dirname "$0")/../lib/common.sh"
[ "$(id -u)" = 0 ] || die "make deps installs packages with apt-get: run it as root"
. /etc/os-release
own=${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}
src_dir=/etc/apt/sources.list.d pref_dir=/etc/apt/preferences.d

# archive_uri: the URI of the machine's own Debian archive (not its security archive), from its
# deb822 sources or its one-line sources.list.
archive_uri() {
	local f
	for f in "$src_dir"/*.sources; do
		[ -f "$f" ] || continue
		awk -v own="$own" '
			/^[[:space:]]*$/ { if (uri != "" && suite) { print uri; exit } uri = ""; suite = 0; next }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == own) suite = 1 }
			END { if (uri != "" && suite) print uri }' "$f"
	done | head -n 1 | grep . && return 0
	cat /etc/apt/sources.list "$src_dir"/*.list 2>/dev/null |
		awk -v own="$own" '$1 == "deb" && $3 == own { print $2; exit }' | grep .
}

# add_suite SUITE PACKAGE: the apt source and the pin for one package of another suite.
add_suite() {
	local suite=$1 pkg=$2 uri key=/usr/share/keyrings/debian-archive-keyring.gpg
	uri=$(archive_uri) || die "no Debian archive in the machine's apt sources to take $suite from"
	[ -f "$key" ] || die "$key is missing: install it with 'apt-get install -y debian-archive-keyring'"
	cat > "$src_dir/reuseport-migrate-$suite.sources" <<-EOF
	# make deps (reuseport-migrate): $pkg from $suite, pinned in $pref_dir/reuseport-migrate-$suite
	Types: deb
	URIs: $uri
	Suites: $suite
	Components: main
	Signed-By: $key
	EOF
	cat > "$pref_dir/reuseport-migrate-$suite" <<-EOF
	# make deps (reuseport-migrate): nothing of $suite but $pkg
	Package: *
	Pin: release n=$suite
	Pin-Priority: -1

	Package: $pkg
	Pin: release n=$suite
	Pin-Priority: 500
	EOF
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

wanted=("$@") extra=()
for t in $(trees); do
	pkg=$(tree_field "$t" package) suite=$(tree_field "$t" suite)
	# The tree's clang; a versioned one (clang-19) builds with LLVM=-19, which wants that
	# version's linker and binutils too (ld.lld-19, llvm-ar-19, ...).
	c=$(tree_field "$t" clang)
	wanted+=("$c")
	[ "$c" = clang ] || wanted+=("lld${c#clang}" "llvm${c#clang}")
	if [ "$suite" = "$own" ]; then
		wanted+=("$pkg")
	else
		extra+=("$pkg:$suite")
		installed "$pkg" || [ -f "$src_dir/reuseport-migrate-$suite.sources" ] || add_suite "$suite" "$pkg"
	fi
done
mapfile -t wanted < <(printf '%s\n' "${wanted[@]}" | sort -u)
missing=()
for p in "${wanted[@]}"; do installed "$p" || missing+=("$p"); done
for e in "${extra[@]}"; do installed "${e%%:*}" || missing+=("${e%%:*}"); done
if [ "${#missing[@]}" = 0 ]; then
	echo "deps: all $(( ${#wanted[@]} + ${#extra[@]} )) packages installed"
else
	echo "installing: ${missing[*]}"
	apt-get update -q || log "apt-get update reported errors (a suite may be unreachable)"
	rc=0
	# The machine's own packages first, then each other suite's package on its own, so that an
	# unreachable suite costs only its tree.
	own_missing=()
	for p in "${missing[@]}"; do
		in_list "$p" "${extra[@]%%:*}" || own_missing+=("$p")
	done
	[ "${#own_missing[@]}" = 0 ] ||
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${own_missing[@]}" || rc=1
	for e in "${extra[@]}"; do
		installed "${e%%:*}" && continue
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${e%%:*}" ||
			log "warning: could not install ${e%%:*} from Debian's ${e#*:} suite: its tree cannot be tested here (the other trees can; 'apt-get install -t ${e#*:} ${e%%:*}' once the suite is reachable)"
	done
	# A tree of another suite that could not be installed costs that tree alone: the targets
	# of the others work, and its own say what is missing.
	[ "$rc" = 0 ] || exit 1
fi
for t in $(trees); do
	pkg=$(tree_field "$t" package)
	echo "$pkg $(pkg_version "$pkg" 2>/dev/null || echo 'not installed')"
done
