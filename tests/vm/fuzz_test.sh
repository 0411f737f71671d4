#!/bin/sh
# The fuzz and race stage (tests/vm/fuzz.c) in the GPIO test VM, on a
# gpio-sim chip of its own so GPIO setups reach real lines and interrupts.
# Seed and length come from the kernel command line (lsseed=, lsfuzz=),
# set by scripts/vm.sh from LATSCOPE_FUZZ_SEED and LATSCOPE_FUZZ_SECONDS.
# shellcheck source=tests/vm/lib.sh
. /vm_lib.sh

secs=60
seed=
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	lsfuzz=*) secs=${arg#lsfuzz=} ;;
	lsseed=*) seed=${arg#lsseed=} ;;
	esac
done
mount -t configfs none /sys/kernel/config 2>/dev/null
cfg=/sys/kernel/config/gpio-sim/fuzz
if mkdir $cfg && mkdir $cfg/bank0 && echo 8 >$cfg/bank0/num_lines &&
	echo latscope-fuzz >$cfg/bank0/label && echo 1 >$cfg/live; then
	chip=latscope-fuzz
else
	echo "# fuzz: no gpio-sim chip, GPIO setups name no real line"
	chip=no-such-chip
fi
/fuzz -t "$secs" -g "$chip" ${seed:+-s "$seed"}
rc=$?
if [ -d $cfg ]; then
	echo 0 >$cfg/live
	rmdir $cfg/bank0 $cfg
fi
exit $rc
