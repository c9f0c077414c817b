# shellcheck shell=sh
# Helpers for plans (sourced by /init; plans are sourced after it).
#
#   disk SECTOR [PARAM=VALUE...]   (re)load scsi_debug as the test disk with
#                                  atomic writes advertised; sets ATW_DISK
#   mkfs_xfs BLOCKSIZE             make XFS on ATW_DISK, mount on ATW_MNT
#   unmount                        unmount ATW_MNT
#   run NAME PROG [ARGS...]        run one test program, record its results
#   run_with_fix SUBJECT NAME PROG [ARGS...]
#                                  run only if the kernel has patch SUBJECT
#
# Disk model: scsi_debug with ndelay=$ATW_NDELAY (default 0 ns); see
# docs/design.md, "The emulated disk". 6.12 ignores the jdelay=0 below (the
# parameter is named delay): at ndelay=0 every command then waits one jiffy
# and every cache flush 1/20 s, unless the plan passes delay=0 (the bench,
# probe and pg plans do); ndelay > 0 replaces the jiffy, and a flush still
# waits 1/20 s when ndelay > 10 us. Plans that time flushes state the
# ndelay they used.

export ATW_MNT=/mnt/test
ATW_CONFIG=""

fail_plan() {
	echo "atw-plan: $*"
	: >/tmp/atw-failed
}

disk() {
	sector=$1
	shift
	unmount
	rmmod scsi_debug 2>/dev/null
	# Atomic unit: one logical block up to 128 KiB (>= 64 KiB as required),
	# any alignment of a whole number of blocks; no atomic boundary.
	maxlen=$((131072 / sector))
	if ! insmod /opt/atw/modules/scsi_debug.ko dev_size_mb="${ATW_DISK_MB:-384}" \
		sector_size="$sector" atomic_wr=1 atomic_wr_gran=1 atomic_wr_align=1 \
		atomic_wr_max_length=$maxlen atomic_wr_max_length_bndry=$maxlen \
		jdelay=0 ndelay="${ATW_NDELAY:-0}" "$@"; then
		fail_plan "cannot load scsi_debug (sector $sector $*)"
		return 1
	fi
	ATW_DISK=""
	for _ in $(seq 1 100); do
		for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
			[ -e "$d" ] && ATW_DISK=/dev/${d##*/}
		done
		[ -n "$ATW_DISK" ] && [ -b "$ATW_DISK" ] && break
		ATW_DISK=""
		sleep 0.1
	done
	if [ -z "$ATW_DISK" ]; then
		fail_plan "scsi_debug disk did not appear"
		return 1
	fi
	export ATW_DISK ATW_SECTOR="$sector"
	ATW_CONFIG="sd${sector}"
	echo "atw-plan: disk $ATW_DISK sector $sector $*"
}

mkfs_xfs() {
	bs=$1
	unmount
	if ! mkfs.xfs -q -f -b size="$bs" "$ATW_DISK" >/tmp/mkfs.log 2>&1; then
		cat /tmp/mkfs.log
		fail_plan "mkfs.xfs -b size=$bs failed"
		return 1
	fi
	if ! mount -t xfs "$ATW_DISK" "$ATW_MNT"; then
		fail_plan "mount xfs bs=$bs failed"
		return 1
	fi
	ATW_CONFIG="sd${ATW_SECTOR}-xfs${bs}"
	echo "atw-plan: xfs bs=$bs on $ATW_DISK"
}

unmount() {
	grep -q " $ATW_MNT " /proc/mounts && umount "$ATW_MNT"
	ATW_CONFIG="sd${ATW_SECTOR:-none}"
	return 0
}

# run NAME PROG [ARGS...]: NAME is made unique by the current disk config.
run() {
	name=$1
	shift
	id="${name}${ATW_CONFIG:+@$ATW_CONFIG}"
	tap=/results/$(echo "$id" | tr '@/' '__').tap
	echo "atw-run: $id: $*"
	start=$(date +%s)
	{ "$@"; echo $? >/tmp/rc; } 2>&1 | tee "$tap"
	rc=$(cat /tmp/rc)
	secs=$(($(date +%s) - start))
	closing=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$tap" | tail -n 1)
	if [ -n "$closing" ]; then
		# shellcheck disable=SC2086 # split "N passed, N failed, N skipped"
		set -- $closing
		p=$1 f=$3 s=${5:-0}
	else
		p=0 f=1 s=0
		echo "atw-run: $id: no closing 'N passed, N failed' line"
	fi
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	[ "$f" -ne 0 ] && : >/tmp/atw-failed
	printf '{"test":"%s","name":"%s","config":"%s","variant":"%s","rc":%d,"passed":%d,"failed":%d,"skipped":%d,"seconds":%d}\n' \
		"$id" "$name" "$ATW_CONFIG" "$ATW_VARIANT" "$rc" "$p" "$f" "$s" "$secs" \
		>>/results/summary.jsonl
	return 0
}

# run_with_fix SUBJECT NAME PROG [ARGS...]: a test of a bug the Debian 6.12
# tree has (a splat fails the whole boot), run only on kernels built with the
# patch that fixes it; a kernel without it records one SKIP naming the patch.
# An empty SUBJECT needs no fix: plain run.
run_with_fix() {
	subject=$1
	shift
	if [ -z "$subject" ] || grep -qxF "$subject" /etc/atw-patches 2>/dev/null; then
		run "$@"
		return 0
	fi
	id="${1}${ATW_CONFIG:+@$ATW_CONFIG}"
	tap=/results/$(echo "$id" | tr '@/' '__').tap
	{
		echo "ok 1 - $1 # SKIP this kernel lacks the fix \"$subject\""
		echo "0 passed, 0 failed, 1 skipped"
	} | tee "$tap"
	printf '{"test":"%s","name":"%s","config":"%s","variant":"%s","rc":0,"passed":0,"failed":0,"skipped":1,"seconds":0}\n' \
		"$id" "$1" "$ATW_CONFIG" "$ATW_VARIANT" >>/results/summary.jsonl
	return 0
}

# pcblk (initramfs/modules/powercut): the power-cut disk, as $ATW_DISK.
pcblk=/dev/pcblk0

# ATW_PCBLK_META_TEAR=1 lets the file system's metadata writes tear too
# (pcblk.c: XFS does not recover from a torn metadata block).
pcblk_load() {
	set -- "$@" meta_tear="${ATW_PCBLK_META_TEAR:-0}"
	if ! insmod /opt/atw/modules/pcblk.ko "$@"; then
		fail_plan "cannot load pcblk ($*)"
		return 1
	fi
	for _ in $(seq 1 50); do
		[ -b "$pcblk" ] && break
		sleep 0.1
	done
	[ -b "$pcblk" ] || { fail_plan "$pcblk did not appear"; return 1; }
	ATW_DISK=$pcblk
	ATW_SECTOR=$(cat /sys/block/pcblk0/queue/logical_block_size)
	export ATW_DISK ATW_SECTOR
	echo "atw-plan: pcblk $* atomic unit" \
		"$(cat /sys/block/pcblk0/queue/atomic_write_unit_min_bytes)..$(cat /sys/block/pcblk0/queue/atomic_write_unit_max_bytes)"
}

pcblk_unload() {
	unmount
	rmmod pcblk || fail_plan "rmmod pcblk failed"
}
