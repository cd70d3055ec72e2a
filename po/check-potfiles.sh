#!/bin/sh
# Every source file with strings marked for translation is listed in
# POTFILES.in, so that the translations can reach them.
root=$1
status=0
# (sources at any depth under src/, with every marker xgettext's glib preset
# reads: _() N_() C_() NC_() and the ngettext family)
for f in $(cd "$root" && grep -rl -E '\b(N?C?_)\("|\b(g_d)?ngettext\(|translatable="yes"' \
             --include='*.c' --include='*.ui' src ui 2>/dev/null | sort); do
  if ! grep -qx "$f" "$root/po/POTFILES.in"; then
    echo "$f has translatable strings but is not in po/POTFILES.in"
    status=1
  fi
done
exit $status
