#!/usr/bin/env bash
# ab.sh SESSION ROUNDS "VARIANTS" "CELLS": the A/B runs behind the section
# "Two guests: a trial of both waits ..." of docs/benchmarks.md, in guests
# that `scripts/rxe-vm start --guests 2 SESSION` booted.
# variant: pt (perftest) | NAME=BINARY[:extra options of ours]
# cell: op:size:iters; prints one line per measurement: round cell variant t_typical
S=$1 ROUNDS=$2 VARIANTS=$3 CELLS=$4
RV=${RXE_VM:-$(dirname "$(readlink -f "$0")")/../../../scripts/rxe-vm}
port=21000
for r in $(seq 1 "$ROUNDS"); do
  for cell in $CELLS; do
    IFS=: read -r op size iters <<<"$cell"
    vs=($VARIANTS); n=${#vs[@]}
    for k in $(seq 0 $((n-1))); do
      v=${vs[$(( (k + r) % n ))]}
      port=$((port+1))
      if [ "$v" = pt ]; then
        case $op in fetch_add) tool="ib_atomic_lat -A FETCH_AND_ADD";; *) tool="ib_${op}_lat -s $size";; esac
        cmd="$tool -d rxe0 -x 1 -F -p $port -n $iters"
        a="cd \$(mktemp -d); timeout 200 $cmd >/dev/null 2>&1"
        b="cd \$(mktemp -d); for t in \$(seq 30); do timeout 200 $cmd 192.0.2.1 >o 2>e && break; sleep 1; done; awk '\$1==\"$size\" || (\$1==\"8\" && \"$op\"==\"fetch_add\") {print \$5}' o | tail -1"
      else
        name=${v%%=*}; rest=${v#*=}; bin=${rest%%:*}; extra=""; [[ $rest == *:* ]] && extra=${rest#*:}
        cmd="$bin --bench lat --op $op -s $size -n $iters -g 1 -p $port -t 60 $extra"
        a="cd \$(mktemp -d); $cmd --accept-timeout 200 >/dev/null 2>&1"
        b="cd \$(mktemp -d); sleep 0.5; $cmd --connect-timeout 60 --json j.json 192.0.2.1 >o 2>e; python3 -c 'import json;print(json.load(open(\"j.json\"))[\"results\"][0][\"t_typical\"])'"
        v=$name
      fi
      out=$($RV exec --timeout 300 "$S" -a "$a" -b "$b" 2>/dev/null | grep -E '^[0-9.]+$' | tail -1)
      echo "$r $cell $v ${out:-FAIL}"
    done
  done
done
