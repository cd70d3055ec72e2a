#!/bin/sh
# Every source file with strings marked for translation is listed in
# POTFILES.in, so that the translations can reach them.
root=$1
status=0
for f in $(cd "$root" && grep -l -E '\b_\("|\bN_\("|translatable="yes"' src/*/*.c ui/*.ui ui/*/*.ui 2>/dev/null); do
  if ! grep -qx "$f" "$root/po/POTFILES.in"; then
    echo "$f has translatable strings but is not in po/POTFILES.in"
    status=1
  fi
done
exit $status
