# shellcheck shell=sh
# shellcheck disable=SC2034 # bin, lib and pg_archive are the drivers'
# Sourced by the guest's PostgreSQL drivers (pg_smoke, pg_bench, pg_powercut;
# busybox sh; installed as /opt/atw/lib/pg_world.sh): where things are, and
# the server's world. Sourcing it sets the world up: a postgres user and
# group, POSIX shared memory on /dev/shm, /tmp for the Unix socket.
bin=/usr/lib/postgresql/15/bin
lib=/opt/atw/lib/atomic_page_writes.so
pguid=101 pggid=104
# The cluster of clients/postgres/make-cluster, on the host (mkimage names
# it): scale 1 for the tests and power cuts; ATW_PG_CLUSTER=bench: the
# larger one of the benchmark.
pg_archive=/host$(cat /etc/atw-pg-cluster${ATW_PG_CLUSTER:+-$ATW_PG_CLUSTER} 2>/dev/null)

as_pg() { /usr/bin/setpriv --reuid="$pguid" --regid="$pggid" --clear-groups -- "$@"; }

grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root:x:0:0:root:/root:/bin/sh' >>/etc/passwd
grep -q '^postgres:' /etc/passwd || echo "postgres:x:$pguid:$pggid::/tmp:/bin/sh" >>/etc/passwd
grep -q '^root:' /etc/group 2>/dev/null || echo 'root:x:0:' >>/etc/group
grep -q '^postgres:' /etc/group || echo "postgres:x:$pggid:" >>/etc/group
mkdir -p /dev/shm
grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs -o mode=1777 tmpfs /dev/shm
chmod 1777 /tmp

# A fresh copy of the cluster at DIR/pgdata (the archive holds data/).
pg_copy_cluster() { # DIR
	rm -rf "$1/pgdata" "$1/data"
	tar -xf "$pg_archive" -C "$1" && mv "$1/data" "$1/pgdata" &&
		chown -R "$pguid:$pggid" "$1/pgdata" && chmod 700 "$1/pgdata"
}

# The server on DATA with atomic_page_writes.so in library MODE, its log in
# LOG, the library's counters in STATS; each further argument is one
# postgres setting (name=value).
pg_start() { # DATA MODE LOG STATS SETTING...
	pg_d=$1 pg_m=$2 pg_l=$3 pg_s=$4 pg_o=""
	shift 4
	for pg_c in "$@"; do pg_o="$pg_o -c $pg_c"; done
	as_pg env LD_PRELOAD="$lib" ATW_PG_MODE="$pg_m" ATW_PG_STATS="$pg_s" ATW_PG_PROBE_DIR="$pg_d" \
		"$bin/pg_ctl" -D "$pg_d" -l "$pg_l" -w -t 300 -o "$pg_o" start >/dev/null
}
