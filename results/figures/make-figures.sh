#!/bin/sh
# Regenerates every picture in results/figures/ (run from the repository's root):
#   sh results/figures/make-figures.sh
# Each schedule is built (or certified) first, then drawn; `gossipcert draw` replays it in the
# verifier before drawing and refuses a schedule that does not pass.
set -e
F=results/figures
g() { gossipcert "$@"; }

# Dimakopoulos's ring schedules: full duplex (single-port, p=1), half duplex even and odd n
g construct ring:8 -a ring-fd -m single-port:p=1 -p gossip -o $F/ring8-fd.json --force
g draw $F/ring8-fd.json -g ring:8 -m single-port:p=1 -p gossip -o $F/ring8-fd.png --force
g construct ring:8 -a ring-hd -m half-duplex:p=1 -p gossip -o $F/ring8-hd.json --force
g draw $F/ring8-hd.json -g ring:8 -m half-duplex:p=1 -p gossip -o $F/ring8-hd.png --force
g construct ring:7 -a ring-hd -m half-duplex:p=1 -p gossip -o $F/ring7-hd.json --force
g draw $F/ring7-hd.json -g ring:7 -m half-duplex:p=1 -p gossip -o $F/ring7-hd.png --force
g draw $F/ring7-hd.json -g ring:7 -m half-duplex:p=1 -p gossip -o $F/ring7-hd-knowledge.png --knowledge --force

# Dimakopoulos-Dimopoulos: pipelined total exchange in the fat tree with 4 leaves
g construct fattree:4 -a fattree-total-exchange -m all-port -p total-exchange -o $F/fattree4-total-exchange.json --force
g draw $F/fattree4-total-exchange.json -g fattree:4 -m all-port -p total-exchange -o $F/fattree4-total-exchange.png --force

# a certified optimum: telephone gossip on CCC3 in 7 rounds (certificate in place of a schedule)
g solve ccc:3 -m telephone -p gossip -q -o $F/ccc3-telephone-gossip.cert.json --force
g draw $F/ccc3-telephone-gossip.cert.json -o $F/ccc3-telephone-gossip.png --force
g draw $F/ccc3-telephone-gossip.cert.json -o $F/ccc3-telephone-gossip.svg --force
g draw $F/ccc3-telephone-gossip.cert.json -o $F/ccc3-telephone-gossip-knowledge.png --knowledge --force
