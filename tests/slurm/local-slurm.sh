#!/usr/bin/env bash
# A one-machine Slurm cluster for the Slurm tests, all of it in one folder: its own munged (key,
# socket), slurmctld and slurmd on free ports, this machine as one node of all its CPUs, one
# partition. Runs as the calling user (no root needed, no system service touched).
#   tests/slurm/local-slurm.sh start DIR   starts it and waits until the node is idle; prints
#                                          the SLURM_CONF to export
#   tests/slurm/local-slurm.sh stop DIR    stops it (what start started, by the pid files in DIR)
set -euo pipefail
command_name="${1:-}"
dir="${2:-}"
if [ -z "$command_name" ] || [ -z "$dir" ]; then
  echo "local-slurm.sh: expected 'start DIR' or 'stop DIR'" >&2
  exit 2
fi

stop() {
  for daemon in slurmd slurmctld munged; do
    if [ -f "$dir/$daemon.pid" ]; then
      kill "$(cat "$dir/$daemon.pid")" 2>/dev/null || true
    fi
  done
  for daemon in slurmd slurmctld munged; do  # wait for them to go
    for _ in $(seq 50); do
      [ -f "$dir/$daemon.pid" ] && kill -0 "$(cat "$dir/$daemon.pid" 2>/dev/null)" 2>/dev/null || break
      sleep 0.1
    done
    rm -f "$dir/$daemon.pid"
  done
}

free_port() {  # a TCP port nothing listens on
  while true; do
    local port=$((20000 + RANDOM % 30000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}

case "$command_name" in
  stop) stop; exit 0 ;;
  start) ;;
  *) echo "local-slurm.sh: expected 'start' or 'stop', found '$command_name'" >&2; exit 2 ;;
esac

for tool in munged slurmctld slurmd sinfo; do
  if ! command -v "$tool" >/dev/null && [ ! -x "/usr/sbin/$tool" ]; then
    echo "local-slurm.sh: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)" >&2
    exit 2
  fi
done
export PATH="$PATH:/usr/sbin"
dir="$(mkdir -p "$dir" && cd "$dir" && pwd)"
chmod a+x "$dir"  # munged wants every folder above its socket open to all
stop  # a cluster left over in DIR from an interrupted run
rm -rf "$dir/state" "$dir/spool"
mkdir -p "$dir/state" "$dir/spool"
head -c 128 /dev/urandom > "$dir/munge.key"
chmod 600 "$dir/munge.key"
munged --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"

user="$(id -un)"
controller_port="$(free_port)"
node_port="$(free_port)"
while [ "$node_port" = "$controller_port" ]; do node_port="$(free_port)"; done
host="$(hostname -s)"
cpus="$(nproc)"
memory_mb="$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)"
cat > "$dir/slurm.conf" <<CONF
ClusterName=dtsim-tests
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$controller_port
SlurmdPort=$node_port
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=60
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN
PartitionName=tests Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
  if sinfo -h -o %t 2>/dev/null | grep -q '^idle'; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "local-slurm.sh: the node did not come up in 20 s; logs in $dir" >&2
stop
exit 1
