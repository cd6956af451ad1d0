#!/bin/bash
# Builds ns-2.35 with the pFabric authors' patch as used for the stored
# ns-2 outputs in docs/reproductions/evidence/peers/ns2-*/ (Debian 12,
# gcc 12.2, the system's Tcl/Tk 8.6.13: apt-get install tcl8.6-dev
# tk8.6-dev libx11-dev libxext-dev). Usage: build_ns2.sh DIR
set -euo pipefail
D=$(realpath -m "${1:?usage: build_ns2.sh DIR}"); mkdir -p "$D"; cd "$D"
HERE=$(dirname "$(realpath "$0")")

# Sources: the pFabric patch and scripts (camsas/qjump-ns2, the QJump
# authors' re-run, which ships the pFabric authors' patch); ns-2.35 as
# released (hbatmit/ns2.35's first commit, "Initial commit of ns-2.35
# excluding gz files"); otcl-1.14 and tclcl-1.20 from ns-allinone-2.35
# (paultsr/ns-allinone-2.35).
# (GITHUB: another place holding the same repositories, e.g. local mirrors.)
# One file of ns-2.35, a wireless mobility scene, was missing from the copy
# used here and is left out.
GITHUB=${GITHUB:-https://github.com}
git clone -q $GITHUB/camsas/qjump-ns2 && git -C qjump-ns2 checkout -q deb0d63717b132d58b49a5f1cfaa321c8a0113fb
git clone -q --no-checkout $GITHUB/hbatmit/ns2.35 ns2.35.git
git -C ns2.35.git archive --prefix=ns-2.35/ f95482f005e2fc5c4a0b16db636a4933711a1952 \
  ':!tcl/mobility/scene/scen-1500x300-60-0-20-2' | tar x
git clone -q --no-checkout $GITHUB/paultsr/ns-allinone-2.35 allinone.git
git -C allinone.git archive 7c93412391263673ff459664244bd395930f2ff0 otcl-1.14 tclcl-1.20 | tar x

# Tcl/Tk 8.6 as the ns-allinone configure scripts look for them: one
# prefix with the headers (the private ones too) and the libraries
P=$D/sys; mkdir -p $P/include $P/lib
for f in /usr/include/tcl8.6/*.h /usr/include/tcl8.6/tcl-private/{generic,unix}/*.h \
         /usr/include/tcl8.6/tk-private/{generic,unix}/*.h; do ln -sf $f $P/include/; done
ln -sf /usr/lib/x86_64-linux-gnu/libtcl8.6.so /usr/lib/x86_64-linux-gnu/libtk8.6.so $P/lib/
ln -sfn /usr/share/tcltk/tcl8.6 $P/lib/tcl8.6; ln -sfn /usr/share/tcltk/tk8.6 $P/lib/tk8.6
TCL="--with-tcl=$P --with-tcl-ver=8.6 --with-tk=$P --with-tk-ver=8.6"
# Tcl 8.6 hides interp->result and interp->errorLine unless asked for them
OLD_TCL="-DUSE_INTERP_RESULT -DUSE_INTERP_ERRORLINE"

(cd otcl-1.14 && CFLAGS="-O2 $OLD_TCL" ./configure $TCL && make)
# Tcl 8.6's clock.tcl calls `source -encoding utf-8 FILE`; tclcl's
# replacement of `source` takes one argument (tclcl-source.diff)
(cd tclcl-1.20 && patch -p0 < "$HERE/tclcl-source.diff" && ./configure $TCL --with-otcl=$D/otcl-1.14 \
  && make CCOPT="-O2 -Wno-write-strings -Wno-parentheses $OLD_TCL")

# The pfabric patch was made against ns-2.34: three of its hunks do not
# apply to ns-2.35. tcp/tcp.h hunk 1 only deletes the licence header (left
# out); tcp/tcp.cc hunk 8 (rtt_backoff's bound) is already in ns-2.35;
# tcp/tcp-sink.cc hunk 4 (DCTCP's ECN echo) differs from 2.35 only in
# parentheses of the context and is applied by hand (tcp-sink-hunk4.diff).
cd ns-2.35
patch -p1 < ../qjump-ns2/pfabric.patch || true
rm -f tcp/*.rej queue/red.cc.orig tcl/lib/ns-default.tcl.orig tcp/tcp-sink.cc.orig tcp/tcp-sink.h.orig tcp/tcp.cc.orig tcp/tcp.h.orig
patch -p1 < "$HERE/tcp-sink-hunk4.diff"
./configure $TCL --with-otcl=$D/otcl-1.14 --with-tclcl=$D/tclcl-1.20
# -O2 (the configure's default has none); gnu++98 and -fpermissive for
# ns-2.35's pre-C++11 code under gcc 12
make CCOPT="-O2 -std=gnu++98 -fpermissive -Wno-write-strings $OLD_TCL" ns
./ns -v 2>/dev/null || true
echo "built $D/ns-2.35/ns"
