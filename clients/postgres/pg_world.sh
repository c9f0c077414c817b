# shellcheck shell=sh
# shellcheck disable=SC2034 # bin, lib and pg_archive are the drivers'
# Sourced by the guest's PostgreSQL drivers (pg_smoke, pg_bench, pg_powercut;
# busybox sh; installed as /opt/atw/lib/pg_world.sh): where things are, and
# the server's world. Sourcing it sets the world up: a postgres user and
# group, POSIX shared memory on /dev/shm, /tmp for the Unix socket.
bin=/usr/lib/postgresql/15/bin
lib=/opt/atw/lib/atomic_page_writes.so
pguid=101 pggid=104
# The cluster of clients/postgres/make-cluster, on the host (mkimage names it).
pg_archive=/host$(cat /etc/atw-pg-cluster 2>/dev/null)

as_pg() { /usr/bin/setpriv --reuid="$pguid" --regid="$pggid" --clear-groups -- "$@"; }

grep -q '^root:' /etc/passwd 2>/dev/null || echo 'root:x:0:0:root:/root:/bin/sh' >>/etc/passwd
grep -q '^postgres:' /etc/passwd || echo "postgres:x:$pguid:$pggid::/tmp:/bin/sh" >>/etc/passwd
grep -q '^root:' /etc/group 2>/dev/null || echo 'root:x:0:' >>/etc/group
grep -q '^postgres:' /etc/group || echo "postgres:x:$pggid:" >>/etc/group
mkdir -p /dev/shm
grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs -o mode=1777 tmpfs /dev/shm
chmod 1777 /tmp
