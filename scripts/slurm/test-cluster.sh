#!/usr/bin/env bash
# A throw-away single-node Slurm cluster on this machine, for testing
# scripts/slurm/sweep.sbatch: munged, slurmctld and slurmd (Debian's
# slurm-wlm and munge) with every file under one folder, on free ports, with
# no cgroups (proctrack/linuxproc, task/none), two partitions over the one
# node (typea, the default, and typeb) and node features typea,typeb.
# Nothing outside DIR is touched; the system's /etc/slurm is not read.
#
#   scripts/slurm/test-cluster.sh run DIR -- COMMAND [ARGS...]
#       start the cluster in DIR (made if missing), run COMMAND with
#       SLURM_CONF set (sbatch, squeue, sinfo then talk to this cluster),
#       stop the daemons and delete DIR; exits with COMMAND's status
#   scripts/slurm/test-cluster.sh check
#       exit 0 if a cluster can be made here, else print why and exit 3
#
# Exit status 3 means "cannot run Slurm here" (not installed, not root, a
# daemon would not start), with the reason on stderr: callers skip on it.
set -u

die3() {
	echo "test-cluster: $*" >&2
	exit 3
}

check() {
	local c
	for c in munged slurmctld slurmd sbatch sinfo squeue scancel; do
		command -v "$c" >/dev/null 2>&1 ||
			die3 "$c not found (apt-get install slurm-wlm munge)"
	done
	[ "$(id -u)" -eq 0 ] || die3 "needs root (slurmd runs the jobs; SlurmUser=root)"
	plugdir=""
	for d in /usr/lib/x86_64-linux-gnu/slurm-wlm /usr/lib/aarch64-linux-gnu/slurm-wlm \
		/usr/lib/slurm-wlm /usr/lib64/slurm /usr/lib/slurm; do
		[ -e "$d/select_cons_tres.so" ] && plugdir=$d && break
	done
	[ -n "$plugdir" ] || die3 "the Slurm plugins (select_cons_tres.so) are not found"
}

# a TCP port nobody listens on, and the next one
free_ports() {
	local p
	for p in $(shuf -i 20000-60000 -n 40); do
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null &&
			! (exec 3<>"/dev/tcp/127.0.0.1/$((p + 1))") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

pids=()

stop() {
	local p i
	if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
		# our cluster only runs our jobs
		scancel --full --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null
		for i in $(seq 1 20); do
			[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
			sleep 0.25
		done
	fi
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for i in $(seq 1 40); do
		local alive=0
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ "$alive" -eq 0 ] && break
		sleep 0.1
	done
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=()
}

start() {
	local dir=$1 node cpus memkb mem port i state
	check
	mkdir -p "$dir" || die3 "cannot make '$dir'"
	dir=$(cd "$dir" && pwd)
	mkdir -p "$dir/munge-key" "$dir/munge-run" "$dir/state" "$dir/spool" "$dir/log" ||
		die3 "cannot make the folders in '$dir'"
	printf '#!/bin/sh\nexit 0\n' >"$dir/spool/exec-test" && chmod +x "$dir/spool/exec-test" &&
		"$dir/spool/exec-test" 2>/dev/null ||
		die3 "cannot run a script from '$dir' (mounted noexec?): slurmd runs the job scripts there"
	rm -f "$dir/spool/exec-test"
	chmod 700 "$dir/munge-key"
	chmod 755 "$dir" "$dir/munge-run"
	head -c 128 /dev/urandom >"$dir/munge-key/munge.key" && chmod 400 "$dir/munge-key/munge.key" ||
		die3 "cannot write the munge key"
	node=$(hostname -s)
	cpus=$(nproc --all)
	memkb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	mem=$((memkb / 1024 * 9 / 10))   # MiB, 10 % margin: slurmd drains a node that has less
	port=$(free_ports) || die3 "no free TCP port for slurmctld and slurmd"

	cat >"$dir/slurm.conf" <<EOF
# written by scripts/slurm/test-cluster.sh: a one-node test cluster
ClusterName=ppbenchtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge-run/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
PluginDir=$plugdir
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
# sbatch --wait polls every 2 s only when MinJobAge is under 6 s (else 2, 8, 32 s)
MinJobAge=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem Features=typea,typeb State=UNKNOWN
PartitionName=typea Nodes=$node Default=YES MaxTime=INFINITE State=UP
PartitionName=typeb Nodes=$node MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$dir/slurm.conf

	munged --foreground --force --socket="$dir/munge-run/munge.socket" \
		--key-file="$dir/munge-key/munge.key" --pid-file="$dir/munge-run/munged.pid" \
		--seed-file="$dir/munge-run/munged.seed" --log-file="$dir/log/munged.log" \
		>>"$dir/log/munged.out" 2>&1 &
	pids+=($!)
	for i in $(seq 1 50); do
		[ -S "$dir/munge-run/munge.socket" ] && break
		kill -0 "${pids[0]}" 2>/dev/null || break
		sleep 0.1
	done
	[ -S "$dir/munge-run/munge.socket" ] ||
		{ stop; die3 "munged did not start: $(tail -1 "$dir/log/munged.log" 2>/dev/null)"; }

	slurmctld -D -i -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
	pids+=($!)
	slurmd -D -f "$SLURM_CONF" -N "$node" >>"$dir/log/slurmd.out" 2>&1 &
	pids+=($!)
	state=""
	for i in $(seq 1 100); do
		state=$(sinfo -h -N -n "$node" -o %T 2>/dev/null | head -1)
		case $state in idle*) break ;; esac
		for p in "${pids[@]}"; do
			kill -0 "$p" 2>/dev/null || {
				stop
				die3 "a daemon exited at start: $(grep -h -E 'fatal|error' "$dir"/log/slurm*.log \
					"$dir"/log/*.out 2>/dev/null | grep -v -i pmix | tail -1)"
			}
		done
		sleep 0.2
	done
	case $state in
	idle*) ;;
	*)
		local why
		why=$(sinfo -h -R -o %E 2>/dev/null | head -1)
		stop
		die3 "the node is not idle after 20 s (state '${state:-none}'${why:+: $why})"
		;;
	esac
}

case ${1:-} in
check)
	check
	;;
run)
	[ $# -ge 4 ] && [ "$3" = "--" ] || { echo "usage: $0 run DIR -- COMMAND [ARGS...]" >&2; exit 2; }
	dir=$2
	shift 3
	made=0
	[ -e "$dir" ] || made=1
	cleanup() {
		stop
		if [ "$made" -eq 1 ]; then
			rm -rf "$dir"
		else
			rm -rf "$dir/munge-key" "$dir/munge-run" "$dir/state" "$dir/spool" \
				"$dir/log" "$dir/slurm.conf"
		fi
	}
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	start "$dir"
	"$@"
	exit $?
	;;
*)
	echo "usage: $0 run DIR -- COMMAND [ARGS...] | $0 check" >&2
	exit 2
	;;
esac
