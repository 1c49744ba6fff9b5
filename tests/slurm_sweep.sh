#!/usr/bin/env bash
# A real single-node Slurm cluster on this machine (slurmctld + slurmd + munged as background
# processes, talking over 127.0.0.1 only), the tiny sweep submitted through ci/slurm/submit-sweep
# as a job array plus a dependent collect job, and the collected summary compared bitwise with
# the one the local runner produces for the same points. Skips (exit 77) with the reason when
# Slurm cannot start here. Recipe: shared notes "slurm-single-node.md".
# usage: slurm_sweep.sh CLAIMCHECK RUNS_FILE SOURCE_DIR
set -uo pipefail
CC=$(realpath "$1") RUNS=$(realpath "$2") SRC=$(realpath "$3")
skip() { echo "SKIP: $*"; exit 77; }
for b in slurmctld slurmd sbatch squeue sinfo scancel munged mungekey; do
  command -v "$b" >/dev/null || skip "$b not installed (ci/setup test installs slurmctld slurmd slurm-client munge, services disabled)"
done
[ "$(id -u)" -eq 0 ] || skip "a test cluster runs its daemons as root (SlurmUser=root); not root here"

D=$(mktemp -d /tmp/claimcheck-slurm.XXXXXX)
H=$(hostname -s)
pids=()
cleanup() {
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
    scancel --user=root 2>/dev/null
    for _ in $(seq 100); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.1; done   # drain before stopping
  fi
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  rm -rf "$D"
}
trap cleanup EXIT
mkdir -p "$D/state" "$D/spool" "$D/work"
cat >"$D/slurm.conf" <<CONF
ClusterName=claimchecktest
SlurmctldHost=$H(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
MailProg=/bin/true
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
NodeName=$H NodeAddr=127.0.0.1 NodeHostname=$H CPUs=$(nproc) Sockets=1 CoresPerSocket=$(nproc) ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$D/slurm.conf

# munge: a key, its run folder, the daemon as the munge user (unless one already runs).
if ! pgrep -x munged >/dev/null; then
  [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key || skip "cannot create a munge key"
  chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
  install -d -o munge -g munge -m 0755 /run/munge
  setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged -F >"$D/munged.out" 2>&1 &
  pids+=($!)
fi
slurmctld -D -c -f "$SLURM_CONF" >"$D/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$D/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 300); do [ "$(sinfo -h -n "$H" -o %t 2>/dev/null)" = idle ] && break; sleep 0.1; done
if [ "$(sinfo -h -n "$H" -o %t 2>/dev/null)" != idle ]; then
  tail -5 "$D/slurmctld.log" "$D/slurmd.log" 2>/dev/null
  skip "the node did not come up idle within 30 s (logs above)"
fi
echo "slurm: node $H idle"

# The same sweep, locally and through Slurm.
"$CC" sweep run tiny_sweep --config "$RUNS" --cache "$D/local" --jobs 2 >/dev/null || { echo "FAIL: local sweep run"; exit 1; }
"$CC" sweep collect tiny_sweep --config "$RUNS" --cache "$D/local" --out "$D/out_local" >/dev/null || { echo "FAIL: local collect"; exit 1; }
cd "$D/work" || exit 1
ids=$(CLAIMCHECK=$CC "$SRC/ci/slurm/submit-sweep" tiny_sweep 2 --config "$RUNS" --cache "$D/slurm" --out "$D/out_slurm") \
  || { echo "FAIL: submit-sweep"; exit 1; }
echo "submitted: array and collect job ids $ids"
for _ in $(seq 1200); do [ -z "$(squeue -h)" ] && break; sleep 0.2; done
if [ -n "$(squeue -h)" ]; then echo "FAIL: jobs still queued after 240 s"; squeue; exit 1; fi
cat "$D"/out_slurm/slurm-*.out 2>/dev/null | tail -20
if [ ! -f "$D/out_slurm/summary.jsonl" ]; then echo "FAIL: the collect job wrote no summary"; exit 1; fi
if cmp "$D/out_local/summary.jsonl" "$D/out_slurm/summary.jsonl"; then
  echo "PASS: the Slurm array's summary is bitwise the local runner's ($(wc -l <"$D/out_slurm/summary.jsonl") points)"
else
  echo "FAIL: the Slurm and local summaries differ"; exit 1
fi
