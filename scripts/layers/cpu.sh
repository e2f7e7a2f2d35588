# CPU accounting for the driver: each job runs in a control group of its own, so the CPU its
# processes use is counted, the servers it starts included (a postmaster leaves the job's process
# tree, not its control group). The summary prints each job's CPU time beside its wall time:
# on 2 cores, the sum of the jobs' CPU time over 2 is the shortest the run can be.
# Needs a writable cgroup v1 cpuacct hierarchy or cgroup v2 (root, or a delegated subtree);
# without one, nothing is counted and nothing is printed.
# shellcheck shell=bash

cpu_root=""
if [ -w /sys/fs/cgroup/cpuacct/cgroup.procs ] && [ -r /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
  cpu_root=/sys/fs/cgroup/cpuacct
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup/cgroup.procs ]; then
  cpu_root=/sys/fs/cgroup
fi

cpu_group_join() { # cpu_group_join NAME: moves the calling (sub)shell into a new group NAME
  [ -n "$cpu_root" ] || return 0
  local g="$cpu_root/idgen_${RUN##*.}_${1//[^A-Za-z0-9]/_}"
  mkdir -p "$g" 2>/dev/null && echo "$BASHPID" >"$g/cgroup.procs" 2>/dev/null || return 0
}
cpu_group_seconds() { # cpu_group_seconds NAME: the CPU seconds the group's processes used ("" without)
  [ -n "$cpu_root" ] || return 0
  local g="$cpu_root/idgen_${RUN##*.}_${1//[^A-Za-z0-9]/_}" us
  if [ -r "$g/cpuacct.usage" ]; then echo $(($(cat "$g/cpuacct.usage") / 1000000000))
  elif [ -r "$g/cpu.stat" ]; then
    us=$(awk '$1 == "usage_usec" { print $2 }' "$g/cpu.stat")
    echo $((${us:-0} / 1000000))
  fi
}
cpu_groups_remove() { # the run's groups: what still runs in them (kept clusters) goes back to the root
  [ -n "$cpu_root" ] || return 0
  local g p
  for g in "$cpu_root"/idgen_"${RUN##*.}"_*; do
    [ -d "$g" ] || continue
    while read -r p; do echo "$p" >"$cpu_root/cgroup.procs" 2>/dev/null; done <"$g/cgroup.procs"
    rmdir "$g" 2>/dev/null
  done
}
cpu_text() { # cpu_text SECONDS: "  CPU 12m03s" or nothing
  [ -n "$1" ] || return 0
  printf '   CPU %3dm%02ds' $(($1 / 60)) $(($1 % 60))
}
