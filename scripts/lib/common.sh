# shellcheck shell=bash
# Shared by the entry points in scripts/: paths, variants, series revisions.
# Source it; it defines functions and variables only.

ATW_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# One variable moves every cache (kernel trees, builds, ccache, images, runs).
ATW_CACHE=${ATW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/buffered-atomic}
ATW_TARBALL=${ATW_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
ATW_PRISTINE=$ATW_CACHE/linux/pristine
ATW_JOBS=${ATW_JOBS:-$(nproc)}

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

log() {
	echo "${0##*/}: $*" >&2
}

# Variants: vanilla (no patches), base (series-base), and one per other
# series-NAME directory (series-base, then series-NAME).
atw_variants() {
	local d
	echo vanilla
	[ -d "$ATW_ROOT/series-base" ] && echo base
	for d in "$ATW_ROOT"/series-*/; do
		d=${d%/}
		d=${d##*/series-}
		[ "$d" = base ] || echo "$d"
	done
}

atw_is_variant() {
	local v
	for v in $(atw_variants); do
		[ "$v" = "$1" ] && return 0
	done
	atw_is_prefix "$1"
}

# NAME@N: the series-base patches and the first N patches of series-NAME
# (a bisect step; N from 1 to the series' length). Built and booted like a
# variant, as NAME-pN (atw_build_name).
atw_is_prefix() {
	local name=${1%@*} n=${1##*@} count
	[[ "$1" == *@* ]] && [[ "$n" =~ ^[1-9][0-9]*$ ]] || return 1
	case "$name" in vanilla | base | *@*) return 1 ;; esac
	count=$(atw_series_patches "$name" | wc -l)
	[ "$count" -gt 0 ] && [ "$n" -le "$count" ]
}

# The patch files of one series directory, in order, without the cover letter.
atw_series_patches() {
	local dir=$ATW_ROOT/series-$1
	[ -d "$dir" ] || return 0
	find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' \
		! -name '0000-*' | LC_ALL=C sort
}

# Every patch a variant applies, in the order it applies them.
atw_variant_patches() {
	case "$1" in
	vanilla) ;;
	base) atw_series_patches base ;;
	*@*) atw_series_patches base; atw_series_patches "${1%@*}" | head -n "${1##*@}" ;;
	*) atw_series_patches base; atw_series_patches "$1" ;;
	esac
}

# A variant "exists" for the default test run when it is vanilla or its own
# series directory holds at least one patch.
atw_variant_has_series() {
	case "$1" in
	vanilla) return 0 ;;
	*) [ -n "$(atw_series_patches "$1")" ] ;;
	esac
}

# Series revision: a short hash of the patches the variant applies.
atw_series_rev() {
	local files
	files=$(atw_variant_patches "$1")
	if [ -z "$files" ]; then
		echo 0
		return
	fi
	# shellcheck disable=SC2086
	cat $files | sha256sum | cut -c1-8
}

# Kernel configurations: test (scripts/guest-kernel.config, the debugging
# kernels scripts/test boots) and bench (the same plus
# scripts/bench-kernel.config: no debugging options, perf and ORC).
atw_configs() {
	echo test
	echo bench
}

atw_is_config() {
	case "$1" in test|bench) return 0 ;; *) return 1 ;; esac
}

# A variant's build name under one configuration: VARIANT for test (the
# paths the test kernels always had), VARIANT-bench for bench. It names the
# worktree ($ATW_CACHE/linux/trees/NAME), the output and the kernel release.
atw_build_name() { # VARIANT [CONFIG]
	local v=$1
	[[ "$v" != *@* ]] || v="${v%@*}-p${v##*@}"
	case "${2:-test}" in
	test) echo "$v" ;;
	*) echo "$v-$2" ;;
	esac
}

atw_out() { # VARIANT [CONFIG]
	echo "$ATW_CACHE/out/$(atw_build_name "$1" "${2:-test}")"
}

# "PASSED FAILED SKIPPED" summed over a boot's results/summary.jsonl.
atw_counts() {
	jq -s -r '[map(.passed), map(.failed), map(.skipped)] | map(add // 0) | @tsv' "$1"
}
