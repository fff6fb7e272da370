#!/bin/sh
# `make kernels`: every kernel image against its era's model, under QEMU.
# For each of Debian's bullseye, bookworm and trixie kernels (downloaded by
# tools/fetch-debian-kernels.sh) and each image in $NPG_KERNELS (default:
# ../shared/kernels next to the repository, when it exists), run the
# scenario files and $NPG_RANDOM random scenarios (seed $NPG_SEED) with
# `nprocguard conform --kernel`, the model picked from the guest's release,
# and print one table. The images `make seed-kernels` built (3.0.8 with the
# patches of kernel/patches/3.0.8, and seed 001 verbatim) are run too, each
# with the policy its release names (NPG_SEED_KERNELS=0 skips them); they
# are never built here. $NPG_JOBS runs at a time (default 1), each conform
# run in $NPG_GUEST_JOBS guests at once (conform --jobs; default the online
# CPUs divided by $NPG_JOBS: TCG uses one host core per guest; identify
# runs in one guest). Logs of every run stay in $NPG_KERNEL_LOGS
# (default build/kernels). NPG_DEBIAN=0 skips the Debian images and
# NPG_KERNELS=none the directory of images: `NPG_DEBIAN=0 NPG_KERNELS=none
# make kernels` is the seed images' table alone. NPG_MODEL=identified
# compares each with what `nprocguard identify` finds inside it (conform
# --model; any --model value goes). Each image is also asked what it
# follows (`identify`; NPG_IDENTIFY=0 skips it), in a second table.
#
# Usage: tools/conform-kernels.sh NPROCGUARD
# Exit status: 0 no difference anywhere, 1 a difference or a failed expectation of
# the files, 2 a run gave no result.
set -eu

bin=${1:?usage: $0 NPROCGUARD}
here=$(cd "$(dirname "$0")/.." && pwd)
random=${NPG_RANDOM:-300}
seed=${NPG_SEED:-1}
jobs=${NPG_JOBS:-1}
guests=${NPG_GUEST_JOBS:-$(( $(getconf _NPROCESSORS_ONLN) / jobs ))}
[ "$guests" -ge 1 ] || guests=1
logs=${NPG_KERNEL_LOGS:-$here/build/kernels}
kernels=${NPG_KERNELS:-}
if [ "$kernels" = none ]; then
	kernels=""
elif [ -z "$kernels" ] && [ -d "$here/../shared/kernels" ]; then
	kernels=$(cd "$here/../shared/kernels" && pwd)
fi

# One run: "NPROCGUARD --one IMAGE KIND" writes $logs/<image>.<kind>.{out,out.err,row}
if [ "${2:-}" = "--one" ]; then
	img=$3 kind=$4
	name=$(basename "$img")
	out="$logs/$name.$kind.out"
	cd "$here"
	# identify: what the kernel follows, by its probes (JSON), and how long
	if [ "$kind" = identify ]; then
		start=$(date +%s)
		rc=0
		"$bin" identify -J --guest-timeout 3600 --kernel "$img" >"$out" 2>"$out.err" || rc=$?
		wall=$(( $(date +%s) - start ))
		if jq -e .config "$out" >/dev/null 2>&1; then
			jq -r --arg w "$wall s" '[.kernel, .config, (if .fits then "fits" else "no fit" end),
				(.probes | tostring), (.statements | tostring), (.unreproducible | tostring),
				("\(.seconds | . * 10 | round / 10) s"), $w] | join("\t")' "$out" >"$logs/$name.identify.row"
		else
			printf '%s\t-\tno result (exit %s, see %s.err)\t-\t-\t-\t-\t%s s\n' "$name" "$rc" \
				"$out" "$wall" >"$logs/$name.identify.row"
		fi
		exit 0
	fi
	if [ "$kind" = files ]; then
		set -- scenarios/article/*.npg scenarios/regression/*.npg
	else
		set -- --random "$random" --seed "$seed"
	fi
	# Debian's kernels have Yama (ptrace_scope 0 by Debian's default): run
	# them under scope 1, Ubuntu's, so that its rules are compared too
	yama=""
	case $name in vmlinuz-linux-image-*) yama=1 ;; esac
	start=$(date +%s)
	rc=0
	NPG_GUEST_YAMA_SCOPE=$yama "$bin" conform --quiet --guest-timeout 3600 --kernel "$img" \
		--jobs "$guests" \
		${NPG_MODEL:+--model "$NPG_MODEL"} "$@" >"$out" 2>"$out.err" || rc=$?
	wall=$(( $(date +%s) - start ))
	sum=$(grep '^conform: ' "$out" | tail -n 1 || true)
	# a scenario that did not start is in no count: a clean summary with a
	# failing exit status is no result, not a pass
	diffs=$(echo "$sum" | sed -nE 's/^conform: [0-9]+ scenarios, [0-9]+ statements, ([0-9]+) differences.*/\1/p')
	# the files' own expectations the kernel (or the model) contradicts: exit 1 too
	failed=$(sed -nE 's/^expectations of the files: [0-9]+ checked, [0-9]+ held, ([0-9]+) failed.*/\1/p' "$out" | tail -n 1)
	if [ -n "$sum" ] && [ "$rc" -ne 0 ] && [ "${diffs:-0}" -eq 0 ] && [ "${failed:-0}" -eq 0 ]; then
		sum=""
	fi
	if [ -z "$sum" ]; then
		printf '%s\t-\t%s\tno result (exit %s, see %s.err)\t-\t-\t-\t-\t%s s\n' "$name" "$kind" \
			"$rc" "$out" "$wall" >"$logs/$name.$kind.row"
		exit 0
	fi
	# conform: N scenarios, S statements, D differences, U unreproducible here, kernel R, model P
	echo "$sum" | sed -E "s/^conform: ([0-9]+) scenarios, ([0-9]+) statements, ([0-9]+) differences, ([0-9]+) unreproducible here, kernel (.*), model (.*)$/\5${yama:+ (Yama $yama)}\t\6\t$kind\t\1\t\2\t\3\t\4\t${failed:-0}\t$wall s/" \
		>"$logs/$name.$kind.row"
	exit 0
fi

command -v qemu-system-x86_64 >/dev/null 2>&1 || {
	echo "conform-kernels: qemu-system-x86_64 is missing (apt-get install qemu-system-x86)" >&2
	exit 2
}
mkdir -p "$logs"
rm -f "$logs"/*.row
images=""
if [ "${NPG_DEBIAN:-1}" != 0 ]; then
	images=$("$here/tools/fetch-debian-kernels.sh") || exit 2
fi
if [ -n "$kernels" ]; then
	for f in "$kernels"/*; do
		case $(basename "$f") in
		*bzImage* | vmlinuz* | *Image*) images="$images
$f" ;;
		esac
	done
fi
if [ "${NPG_SEED_KERNELS:-1}" != 0 ]; then
	seeds=$("$here/tools/seed-kernels.sh" --list) || exit 2
	[ -n "$seeds" ] || echo "conform-kernels: no seed kernel built (make seed-kernels)" >&2
	images="$images
$seeds"
fi
[ -n "$images" ] || { echo "conform-kernels: no kernel images" >&2; exit 2; }

# "NPROCGUARD --one IMAGE KIND" per line (image paths without blanks);
# NPG_IDENTIFY=0 leaves identify out
echo "$images" | grep . | while read -r img; do
	printf '%s files\n%s random\n' "$img" "$img"
	[ "${NPG_IDENTIFY:-1}" = 0 ] || printf '%s identify\n' "$img"
done | xargs -P "$jobs" -L 1 "$0" "$bin" --one

status=0
for row in "$logs"/*.row; do
	case $row in *.identify.row) continue ;; esac
	IFS='	' read -r kernel policy kind n s d u f wall <"$row"
	if [ "$policy" = - ]; then
		status=2
	elif { [ "$d" -gt 0 ] || [ "$f" -gt 0 ]; } && [ $status -eq 0 ]; then
		status=1
	fi
done
{
	printf 'kernel\tpolicy\tscenarios\tstatements\tdifferences\tunreproducible\tfailed expectations\twall time\n'
	for row in "$logs"/*.row; do
		case $row in *.identify.row) continue ;; esac
		IFS='	' read -r kernel policy kind n s d u f wall <"$row"
		case $kind in random) n="$n random (seed $seed)" ;; *) n="$n files" ;; esac
		[ "$policy" = - ] && n=$kind
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kernel" "$policy" "$n" "$s" "$d" "$u" "$f" "$wall"
	done
} | column -t -s '	'
if ls "$logs"/*.identify.row >/dev/null 2>&1; then
	echo
	{
		printf 'kernel\tidentified\tfit\tprobes\tstatements\tunreproducible\tinside\twall time\n'
		cat "$logs"/*.identify.row
	} | column -t -s '	'
fi
exit $status
