# shellcheck shell=bash
# Kernel-log lines that fail a run whatever the tests said: oops, BUG, WARN,
# lockdep, KASAN/UBSAN, hung tasks, RCU stalls, lockups, panics.
ATW_SPLAT_RE='(WARNING:|BUG:|BUG kmalloc|kernel BUG|Oops|Kernel panic|general protection fault|KASAN|UBSAN|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked|rcu_sched self-detected|rcu: INFO|soft lockup|hard LOCKUP|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|cut here|Call Trace:|list_add corruption|list_del corruption)'

# Prints the offending lines of a console log; returns 0 if there were any.
atw_splats() {
	grep -a -n -E "$ATW_SPLAT_RE" "$1"
}
