#!/usr/bin/env bash
# The server log check of the test command (scripts/lib.sh: server_log_problems, scan_server_logs)
# on saved log lines, TAP: every assertion failure, crash and leaked-resource WARNING that
# PostgreSQL 15 to 18 log is caught; what the fault and Citus layers cause on purpose (SIGKILL, a
# PANIC and the abort that follows it, an immediate shutdown) and ordinary WARNINGs are not; a log
# is read from where the last scan stopped, from the start again when it was made anew, and the
# logs kept by tests whose clusters are removed are found. No server (a second).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../../scripts/lib.sh
source "$here/../../scripts/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; [ -z "${2:-}" ] || printf '#   %s\n' "$2"; }
p='2026-12-01 21:00:00.123 UTC'  # the default log_line_prefix, '%m [%p] '

# ---- caught: each line is a problem on its own
while IFS= read -r line; do
  [ -n "$line" ] || continue
  out=$(printf '%s\n' "$line" | server_log_problems)
  if [ "$out" = "$line" ]; then ok "caught: ${line#"$p "}"; else not_ok "caught: ${line#"$p "}" "got: $out"; fi
done <<EOF
TRAP: failed Assert("LWLockHeldByMe(lock)"), File: "lwlock.c", Line: 1903, PID: 4242
TRAP: ExceptionalCondition: bad arguments in PID 4242
$p [100] LOG:  server process (PID 4242) was terminated by signal 6: Aborted
$p [100] LOG:  server process (PID 4243) was terminated by signal 11: Segmentation fault
$p [100] LOG:  background worker "logical replication launcher" (PID 4244) was terminated by signal 7: Bus error
$p [4245] WARNING:  resource was not closed: relation "idempotency_keys"
$p [4245] WARNING:  resource was not closed: [123] (rel=base/5/16384, blockNum=0, flags=0x93800000, refcount=1 1)
$p [4245] WARNING:  resource was not closed: TupleDesc 0x55d0c0 (16401,-1)
$p [4245] WARNING:  resource was not closed: cache pg_proc (45), tuple 0/12 has count 1
$p [4245] WARNING:  resource was not closed: Snapshot 0x55d0c0
$p [4245] WARNING:  resource was not closed: plancache 0x55d0c0
$p [4245] WARNING:  relcache reference leak: relation "idempotency_keys" not closed
$p [4245] WARNING:  Snapshot reference leak: Snapshot 0x55d0c0 still referenced
$p [4245] WARNING:  TupleDesc reference leak: TupleDesc 0x55d0c0 (16401,-1) still referenced
$p [4245] WARNING:  cache reference leak: cache pg_proc (45), tuple 0/12 has count 1
$p [4245] WARNING:  plancache reference leak: plan 0x55d0c0 not closed
$p [4245] WARNING:  cryptohash context reference leak: context 0x55d0c0 still referenced
$p [4245] WARNING:  buffer refcount leak: [123] (rel=base/5/16384, blockNum=0, flags=0x93800000, refcount=1 1)
$p [4245] WARNING:  local buffer refcount leak: [-3] (rel=base/5/t3_16384, blockNum=0, flags=0x2000000, refcount=0 1)
$p [4245] WARNING:  temporary file leak: File 7 still referenced
$p [4245] WARNING:  dynamic shared memory leak: segment 123456 still referenced
$p [4245] WARNING:  JIT context leak: context 0x55d0c0 still referenced
$p [4245] WARNING:  snapshot 0x55d0c0 still active
$p [4245] WARNING:  registered snapshots seem to remain after cleanup
$p [4245] WARNING:  you don't own a lock of type AccessShareLock
$p [4245] WARNING:  tuple lock held at commit
$p [4245] WARNING:  transaction left non-empty SPI stack
$p [4245] WARNING:  subtransaction left non-empty SPI stack
$p [4245] WARNING:  leaked hash_seq_search scan for hash table 0x55d0c0
$p [4245] WARNING:  leaked parallel context
$p [4245] WARNING:  leaking still-referenced relcache entry for "idempotency_keys"
$p [4245] WARNING:  temporary file base/pgsql_tmp/pgsql_tmp4245.0 not closed at end-of-transaction
$p [4245] WARNING:  2 temporary files and directories not closed at end-of-transaction
$p [4245] WARNING:  fd passed to CloseTransientFile was not obtained from OpenTransientFile
$p [4245] WARNING:  detected write past chunk end in ExprContext 0x55d0c0
$p [4245] WARNING:  problem in alloc set ExecutorState: bad single-chunk 0x55d0c0 in block 0x55d0c1
$p [4245] WARNING:  AbortTransaction while in DEFAULT state
$p [4245] WARNING:  skipping cleanup for portal "C_1"
EOF

# ---- not caught
while IFS= read -r line; do
  [ -n "$line" ] || continue
  out=$(printf '%s\n' "$line" | server_log_problems)
  if [ -z "$out" ]; then ok "passed: ${line#"$p "}"; else not_ok "passed: ${line#"$p "}" "got: $out"; fi
done <<EOF
$p [100] LOG:  server process (PID 4250) was terminated by signal 9: Killed
$p [100] LOG:  received immediate shutdown request
$p [4251] WARNING:  terminating connection because of crash of another server process
$p [4251] WARNING:  there is no transaction in progress
$p [4251] WARNING:  id_gen: the clock stepped back by 2000 ms
$p [4251] LOG:  statement: SELECT 'resource was not closed: TRAP'
$p [4251] ERROR:  relation "x" does not exist
EOF

# ---- SIGABRT: expected after that process's PANIC (a failing fsync), a problem otherwise
out=$(server_log_problems <<EOF
$p [4260] PANIC:  could not fsync file "pg_idgen/v2/node.state": Input/output error
$p [100] LOG:  checkpointer process (PID 4260) was terminated by signal 6: Aborted
$p [100] LOG:  server process (PID 4261) was terminated by signal 6: Aborted
EOF
)
if [ "$out" = "$p [100] LOG:  server process (PID 4261) was terminated by signal 6: Aborted" ]; then
  ok "SIGABRT after the process's own PANIC passes; another process's SIGABRT is caught"
else
  not_ok "SIGABRT after the process's own PANIC passes; another process's SIGABRT is caught" "got: $out"
fi

# ---- scan_server_logs: which files, from where, one count per log
mkdir -p "$work/run/pg" "$work/run/own/data/log" "$work/run/server-logs" "$work/run/pg/data"
clean="$p [100] LOG:  database system is ready to accept connections"
leak="$p [4245] WARNING:  resource was not closed: relation \"t\""
echo "$clean" >"$work/run/pg/server.log"
echo "$leak" >"$work/run/own/data/log/postgresql.log"
echo "$clean" >"$work/run/server-logs/fresh.1.1.server.log"
echo "$leak" >"$work/run/pg/initdb.log"          # not a server log
echo "$leak" >"$work/run/own/data/log/postgresql.csv"  # the csvlog copy of the same lines
SCAN_ROOT=$work/run
out=$(scan_server_logs "$work/run"; echo "counts $scan_passed $scan_failed")
scan_server_logs "$work/run" >/dev/null  # this shell's offsets
if [ "$(tail -1 <<<"$out")" = "counts 2 1" ] && grep -qxF "server log own/data/log/postgresql.log:" <<<"$out"; then
  ok "a scan counts each server log once and names the one with a problem"
else
  not_ok "a scan counts each server log once and names the one with a problem" "got: $out"
fi
echo "$clean" >>"$work/run/pg/server.log"
out=$(scan_server_logs "$work/run"; echo "counts $scan_passed $scan_failed")
if [ "$out" = "counts 1 0" ]; then ok "the next scan reads what was written since the last one"; else not_ok "the next scan reads what was written since the last one" "got: $out"; fi
# Made anew (another inode), as long as before: read from its start.
printf '%s\n%s\n' "$leak" "$clean" >"$work/new.log"
mv "$work/new.log" "$work/run/pg/server.log"
out=$(scan_server_logs "$work/run"; echo "counts $scan_passed $scan_failed")
if [ "$(tail -1 <<<"$out")" = "counts 0 1" ]; then ok "a log made anew is read from its start"; else not_ok "a log made anew is read from its start" "got: $out"; fi

echo "# server log check: $n checks, $fails failed"
[ "$fails" -eq 0 ]
