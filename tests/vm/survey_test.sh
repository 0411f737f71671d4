# shellcheck shell=sh
# A short survey inside the test VM (busybox sh, 2 CPUs, TCG): latscope
# --survey -T 30s on CPU1, the loads left out (the stress stage runs
# them; each would add three runs), the cost suite at 2 % in 2 rounds of
# timings of 100 ms at least (TCG is slow; the test is of behaviour): the
# setup verdict, the three contexts quiet (10 s each), the cost suite. The VM has no Python: the survey must say it made no
# profile (latscope-report cannot run) and exit 1, every phase done all
# the same. Its directory, survey-RELEASE, comes back to the host
# (LATSCOPE-FILE markers), which makes the profile and checks it
# (scripts/vm.sh) and sets the two 6.12 VMs' side by side
# (scripts/check.sh). Ends with "survey: N passed, N failed".
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh
# The real hackbench, stress-ng and iperf3, not busybox's applets.
export PATH=/usr/bin:/bin:/sbin:/usr/sbin
ip link set lo up

name=survey-$(uname -r)
d=/tmp/$name
rc=0
latscope --survey "$d" -T 30s -c 1 --survey-skip grinder,neighbour,classic \
	--cost-scale 2 --cost-repeat 2 --cost-min-run 100 >/tmp/survey.out 2>&1 || rc=$?
sed 's/^/# /' /tmp/survey.out | grep -v "^# SURVEY| phase" | tail -n 12
expect_rc "survey: exit 1 (no profile without latscope-report)" "$rc" 1
has "survey: the profile not made, said: latscope-report cannot run" /tmp/survey.out \
	"^SURVEY| no profile: .*cannot run latscope-report"
survey_done "survey: every phase of 5 done (setup, 3 timer runs, cost)" "$d" 5
for f in system.txt 02-user-quiet.json 04-irq-quiet.json 05-cost.json 05-cost-latency.json; do
	if [ -s "$d/$f" ]; then ok "survey: $f written"; else nok "survey: $f written" "missing"; fi
done
nothing_left "survey"
dump_survey "$name" "$d"
echo "survey: $pass passed, $fail failed"
[ "$fail" = 0 ]
