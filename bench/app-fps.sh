#!/usr/bin/env bash
# Display frame rate of the application while the solver runs on its worker
# thread, paced to real time: the five-bar (4 bodies) and a 100-link chain.
# Prints frame intervals from GTK's frame clock and the 3-D view's own render
# time.  Starts Xvfb when there is no display.
set -euo pipefail
app=$1
cli=$2
root=$3
seconds=${4:-5}
if [ -z "${DISPLAY:-}" ]; then
  for n in $(seq 90 120); do
    [ -e "/tmp/.X11-unix/X$n" ] && continue
    Xvfb ":$n" -screen 0 1400x900x24 -nolisten tcp >/dev/null 2>&1 &
    xpid=$!
    trap 'kill $xpid 2>/dev/null' EXIT
    sleep 1
    export DISPLAY=":$n"
    break
  done
fi
export GSETTINGS_BACKEND=memory GTK_A11Y=none
tmp=$(mktemp -d)
"$cli" generate-chain 100 > "$tmp/chain-100.json"
glxinfo -B 2>/dev/null | grep -E "OpenGL renderer" || true
for m in "$root/models/five-bar.json" "$tmp/chain-100.json"; do
  printf '%-16s ' "$(basename "$m" .json)"
  "$app" --bench-fps "$seconds" "$m" 2>/dev/null | grep '^frames' || echo "no result"
done
rm -rf "$tmp"
