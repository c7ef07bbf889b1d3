#!/bin/sh
# End-to-end checks of the csvq binary.
set -eu
bin=./build/csvq
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'item,qty,price\napple,3,1.5\npear,10,0.25\nfig,1,4\n' > "$tmp/a.csv"
out=$($bin "$tmp/a.csv" --where 'qty>1' --sort price:desc --select item,price)
[ "$out" = "$(printf 'item,price\napple,1.5\npear,0.25')" ] || { echo "FAIL sort/select: $out"; exit 1; }
if $bin "$tmp/a.csv" --select nope 2>/dev/null; then echo "FAIL unknown column accepted"; exit 1; fi
echo "cli tests passed"
