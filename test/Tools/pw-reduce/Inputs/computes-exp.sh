#!/bin/sh
# pw-reduce's test script: the module in $1 is interesting (exit status 1)
# while a map in it still computes math.exp.
if grep -q "math.exp" "$1"; then
  exit 1
fi
exit 0
