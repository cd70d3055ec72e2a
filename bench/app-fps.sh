#!/usr/bin/env bash
# Display frame rate of the application while the solver runs on its worker
# thread, paced to real time: the five-bar (4 bodies) and a 100-link chain.
# Prints frame intervals from GTK's frame clock and the 3-D view's own render
# time.  Each round runs the five-bar twice: with the 3-D view drawn on its
# render thread (as the application does) and drawn on the interface's
# thread (LW_VIEW_NO_THREAD=1, "five-bar, main"), in the same minutes.  With the gtk-tick
# baseline (5th argument), they alternate with a plain GTK window that
# paints an area of the 3-D view's size at every frame: the rate GTK itself
# reaches on this display in the same minutes.  Starts Xvfb when there is no
# display.
#
#   app-fps.sh APP CLI SOURCE_ROOT [SECONDS] [GTK_TICK] [ROUNDS]
set -euo pipefail
app=$1
cli=$2
root=$3
seconds=${4:-5}
tick=${5:-}
rounds=${6:-3}
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
size=""
for r in $(seq "$rounds"); do
  out=$("$app" --bench-fps "$seconds" "$root/models/five-bar.json" 2>/dev/null | grep '^frames' || echo "no result")
  printf '%-16s %s\n' "five-bar" "$out"
  one=$(LW_VIEW_NO_THREAD=1 "$app" --bench-fps "$seconds" "$root/models/five-bar.json" 2>/dev/null | grep '^frames' || echo "no result")
  printf '%-16s %s\n' "five-bar, main" "$one"
  size=$(printf '%s\n' "$out" | sed -nE 's/.*view ([0-9]+)x([0-9]+).*/\1 \2/p')
  if [ -n "$tick" ] && [ -n "$size" ]; then
    printf '%-16s ' "gtk-tick"
    # shellcheck disable=SC2086
    "$tick" $size "$seconds" 2>/dev/null | sed "s/\$/, area $(echo $size | tr ' ' x)/" || echo "no result"
  fi
done
printf '%-16s ' "chain-100"
"$app" --bench-fps "$seconds" "$tmp/chain-100.json" 2>/dev/null | grep '^frames' || echo "no result"
rm -rf "$tmp"
