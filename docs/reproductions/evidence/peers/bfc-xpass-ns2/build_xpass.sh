#!/bin/bash
# Builds the BFC co-author's fork of ExpressPass's ns-2 code (ns-2.35 with
# ExpressPass; github.com/preeyshah/ns2-xpass) as used for the stored run in
# this folder, on Debian 12 (gcc 12.2, the system's Tcl/Tk 8.6.13), against
# the otcl-1.14 and tclcl-1.20 that ../ns2-build/build_ns2.sh builds (its
# DIR: otcl-1.14/, tclcl-1.20/ and sys/, the Tcl/Tk prefix).
# Usage: build_xpass.sh DIR NS2_BUILD_DIR   (builds DIR/ns-2.35/ns)
# XPASS_LOG=0: leave out xpass-log.diff (the output-only per-flow logs).
set -euo pipefail
D=$(realpath -m "${1:?usage: build_xpass.sh DIR NS2_BUILD_DIR}"); mkdir -p "$D"; cd "$D"
B=$(realpath "${2:?usage: build_xpass.sh DIR NS2_BUILD_DIR}")
HERE=$(dirname "$(realpath "$0")")

# The fork's newest commit ("Running", 2020-09-15), whose parent is the
# ExpressPass authors' kaist-ina/ns2-xpass f4e38bc; it changes only
# script_fct.py, scripts/large-scale-fattree.tcl and workloads/conga.tcl.
# Two files were absent from the copy used here and are left out (neither is
# read by ExpressPass's scripts): an example's data file and a wireless
# mobility scene (the same one ../ns2-build leaves out).
# (GITHUB: another place holding the same repository, e.g. a local mirror.)
GITHUB=${GITHUB:-https://github.com}
git clone -q --no-checkout $GITHUB/preeyshah/ns2-xpass ns2-xpass.git
git -C ns2-xpass.git archive --prefix=ns-2.35/ 72d47fa1564edd5811ff02fb9dbecb24b98d1799 \
  ':!tcl/ex/pi/picoeff.dat.gz' ':!tcl/mobility/scene/scen-1500x300-60-0-20-2' | tar x

cd ns-2.35
# output only: each flow's line at the receiver (outputs/flowlog.out) and at
# the sender (outputs/sendlog.out); PROVENANCE.md says what they hold
if [ "${XPASS_LOG:-1}" != 0 ]; then patch -p1 < "$HERE/xpass-log.diff"; fi

P=$B/sys
TCL="--with-tcl=$P --with-tcl-ver=8.6 --with-tk=$P --with-tk-ver=8.6"
./configure $TCL --with-otcl=$B/otcl-1.14 --with-tclcl=$B/tclcl-1.20
# the flags of ../ns2-build: Tcl 8.6 hides interp->result and
# interp->errorLine unless asked for them; -O2 (the configure's default has
# none); gnu++98 and -fpermissive for ns-2.35's pre-C++11 code under gcc 12
make CCOPT="-O2 -std=gnu++98 -fpermissive -Wno-write-strings -DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE" ns
echo "built $D/ns-2.35/ns"
