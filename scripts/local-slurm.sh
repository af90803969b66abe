#!/usr/bin/env bash
# A single-node Slurm on localhost, for tests: scripts/local-slurm.sh start|stop|status|env
#
# Runs as root in a container without systemd (CI, the developers' machines): munged,
# slurmctld and slurmd are started here as plain daemons, not as services. Everything Slurm
# writes (configuration, state, spool, logs, pid files) lives under $ROOFSIM_SLURM_STATE
# (default /var/tmp/roofsim-slurm); the system's /etc/slurm is left alone, so a real Slurm
# configured on the machine is not touched. Clients find this cluster through SLURM_CONF:
#   eval "$(scripts/local-slurm.sh env)"    # then sbatch, squeue, sinfo talk to it
# The packages come from scripts/install-deps.sh --tests (slurm-wlm, munge); docs/slurm.md says more.
set -euo pipefail

state=${ROOFSIM_SLURM_STATE:-/var/tmp/roofsim-slurm}
conf=$state/slurm.conf
# Ports other than Slurm's defaults (6817/6818), so that a real slurmd/slurmctld on the same
# machine does not collide with this one.
ctld_port=${ROOFSIM_SLURM_CTLD_PORT:-16817}
slurmd_port=${ROOFSIM_SLURM_SLURMD_PORT:-16818}
export SLURM_CONF=$conf

die() { echo "local-slurm: $*" >&2; exit 1; }

# Is the process in pid file $1 alive? (A zombie is not: in a container nothing may reap the
# daemons once they exit, and kill -0 succeeds on a zombie.)
running() { [ -r "/proc/$1/stat" ] && [ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" != Z ]; }
alive() { [ -s "$1" ] && running "$(cat "$1")"; }

# munged: one per machine (clients find it at its socket in /run/munge). Reused when it is
# already running, whoever started it; started here otherwise, as the munge user, as the
# Debian service does (munged checks that its key belongs to the user it runs as).
munge_socket=/run/munge/munge.socket.2
munge_pid=/run/munge/munged.pid
start_munge() {
  command -v munged >/dev/null || die "munged not found: install the packages with scripts/install-deps.sh --tests"
  if alive "$munge_pid" && munge -n </dev/null >/dev/null 2>&1; then return; fi
  install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
  install -d -o munge -g munge -m 0755 /run/munge
  if [ ! -s /etc/munge/munge.key ]; then  # the package's postinst makes one; make it if gone
    mungekey --create --keyfile=/etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged --socket="$munge_socket" --pid-file="$munge_pid"
  touch "$state/munged.started-here"  # so that stop stops only a munged it started
  for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && return; sleep 0.1; done
  die "munged does not answer (see /var/log/munge/munged.log)"
}

# The configuration: this one host as the only node, with the CPUs and memory slurmd itself
# detects (slurmd refuses a node that claims more than it has). No cgroups (containers lack
# them): processes are tracked by their /proc parentage and tasks are not confined.
write_conf() {
  local node node_line
  node=$(hostname -s)
  # `slurmd -C` prints "NodeName=vm CPUs=2 Boards=1 ... RealMemory=24105"; keep its sizes.
  node_line=$(slurmd -C | head -n1 | sed -e "s/^NodeName=[^ ]*//")
  cat >"$conf" <<EOF
# Written by scripts/local-slurm.sh: a single-node test cluster on localhost.
ClusterName=roofsim-local
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# Each finished job appended to a text file: what a test reads instead of sacct (sacct needs
# slurmdbd).
JobCompType=jobcomp/filetxt
JobCompLoc=$state/log/jobcomp.txt
SchedulerType=sched/backfill
# Pending jobs looked at every 2 s instead of every 60: a dependent job starts soon after the
# jobs it waits for.
SchedulerParameters=sched_interval=2,bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
# A restarted slurmd's node comes back by itself; finished jobs stay listed (squeue
# --states=all, scontrol show job) for 10 minutes; a job whose dependency can no longer be
# met (an array task failed) is cancelled instead of waiting forever.
ReturnToService=2
MinJobAge=600
DependencyParameters=kill_invalid_depend
SlurmdTimeout=60
NodeName=$node NodeAddr=127.0.0.1$node_line State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

node_state() { sinfo -h -N -o '%T' 2>/dev/null | head -n1; }

start() {
  [ "$(id -u)" -eq 0 ] || die "run as root (it starts munged, slurmctld and slurmd)"
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null ||
    die "slurmctld/slurmd/sbatch not found: install the packages with scripts/install-deps.sh --tests"
  mkdir -p "$state/ctld" "$state/spool" "$state/log"
  if alive "$state/slurmctld.pid" && alive "$state/slurmd.pid"; then
    echo "local-slurm: already running (SLURM_CONF=$conf)"
  else
    stop_daemons  # one of the two may have died: start both afresh
    start_munge
    write_conf
    # Each start's daemon logs begin empty (the last start's are kept as .old).
    for f in "$state"/log/slurmctld.log "$state"/log/slurmd.log; do
      if [ -f "$f" ]; then mv -f "$f" "$f.old"; fi
    done
    # A fresh start: no jobs of an earlier start (stop cancelled them; one killed otherwise left
    # them as running) recovered from the state directory (-c) or the spool.
    rm -rf "${state:?}/spool" && mkdir -p "$state/spool"
    slurmctld -c -f "$conf" || die "slurmctld did not start (see $state/log/slurmctld.log)"
    slurmd -f "$conf" -N "$(hostname -s)" || die "slurmd did not start (see $state/log/slurmd.log)"
  fi
  # Ready when the node is idle (or already running jobs): 60 s at most.
  local s=""
  for _ in $(seq 120); do
    s=$(node_state)
    case $s in idle | mixed | allocated | completing) echo "local-slurm: node $(hostname -s) $s; export SLURM_CONF=$conf"; return ;; esac
    sleep 0.5
  done
  echo "local-slurm: the node is not idle after 60 s (state: '${s:-no answer}'); the logs end with:" >&2
  tail -n 20 "$state/log/slurmctld.log" "$state/log/slurmd.log" >&2 || true
  exit 1
}

# The processes of this cluster's jobs: slurmstepd and what it runs, found by the SLURM_CONF
# in their environment (slurmd passes its own on; jobs inherit sbatch's). Jobs of another
# Slurm on the machine name another SLURM_CONF, or none.
job_pids() {
  local p env
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" != $$ ] || continue
    env=$( { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null) || continue
    grep -qx "SLURM_CONF=$conf" <<<"$env" || continue
    if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] || grep -q '^SLURM_JOB_ID=' <<<"$env"; then echo "$p"; fi
  done
}

# Stops the jobs, slurmd and slurmctld, waiting until they are gone (a new slurmctld cannot
# bind the port while the old one holds it).
stop_daemons() {
  local f pid pids
  # A test cluster's jobs end with it: cancelled while the controller runs, then any left
  # (the controller had died) killed.
  if alive "$state/slurmctld.pid"; then
    pids=$(timeout 15 squeue -h -o '%A' 2>/dev/null || true)
    [ -z "$pids" ] || timeout 15 scancel $pids 2>/dev/null || true
  fi
  pids=$(job_pids)
  if [ -n "$pids" ]; then
    kill $pids 2>/dev/null || true
    sleep 2
    pids=$(job_pids)  # slurmstepd ignores SIGTERM once its slurmd is gone
    [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
  fi
  for f in "$state/slurmd.pid" "$state/slurmctld.pid"; do
    alive "$f" || continue
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do running "$pid" || break; sleep 0.1; done
    if running "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
    rm -f "$f"
  done
}

stop() {
  stop_daemons
  if [ -e "$state/munged.started-here" ]; then
    alive "$munge_pid" && kill "$(cat "$munge_pid")" 2>/dev/null || true
    rm -f "$state/munged.started-here"
  fi
  echo "local-slurm: stopped"
}

status() {
  local rc=0 d
  for d in slurmctld slurmd; do
    if alive "$state/$d.pid"; then echo "$d: running (pid $(cat "$state/$d.pid"))"; else echo "$d: not running"; rc=1; fi
  done
  if alive "$munge_pid"; then echo "munged: running (pid $(cat "$munge_pid"))"; else echo "munged: not running"; rc=1; fi
  [ $rc -eq 0 ] && sinfo
  echo "SLURM_CONF=$conf"
  return $rc
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
