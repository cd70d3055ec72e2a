#!/usr/bin/env bash
# Smoke test of the real binary: open every model in models/, run it to the
# end flat out, save a screenshot, quit; then the five-bar once more with no
# EGL to be had (the 3-D view's render thread cannot start: the view draws on
# the interface's thread and says so).  TAP output; the screenshots are kept
# in $LW_SCREENSHOT_DIR (default: the build's tests/screenshots).  Needs a
# display (the test command starts Xvfb).
set -u
app=$1
models_dir=$2
out=${LW_SCREENSHOT_DIR:-$(dirname "$app")/../../tests/screenshots}
mkdir -p "$out"
models=("$models_dir"/*.json)
echo "1..$((${#models[@]} + 1))"
if [ -z "${DISPLAY:-}" ]; then
  for i in $(seq $((${#models[@]} + 1))); do echo "ok $i # SKIP no display"; done
  exit 0
fi
export GSETTINGS_BACKEND=memory GTK_A11Y=none
i=0
for m in "${models[@]}"; do
  i=$((i + 1))
  name=$(basename "$m" .json)
  png="$out/$name.png"
  rm -f "$png"
  log=$(timeout 120 env ${LW_SAN_PRELOAD:+"LD_PRELOAD=$LW_SAN_PRELOAD"} "$app" --flat-out --screenshot "$png" --quit-after-run "$m" 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "not ok $i $name: exit $rc"
    echo "$log" | sed 's/^/# /'
    continue
  fi
  if [ ! -s "$png" ]; then
    echo "not ok $i $name: no screenshot"
    echo "$log" | sed 's/^/# /'
    continue
  fi
  # a real picture: a window of the expected size with more than a handful of colours
  read -r w h colors < <(identify -format '%w %h %k\n' "$png" 2>/dev/null || echo "0 0 0")
  if [ "$w" -lt 800 ] || [ "$h" -lt 500 ] || [ "$colors" -lt 200 ]; then
    echo "not ok $i $name: screenshot ${w}x${h} with $colors colours"
    continue
  fi
  if echo "$log" | grep -qiE "critical|warning"; then
    echo "not ok $i $name: GTK warnings"
    echo "$log" | sed 's/^/# /'
    continue
  fi
  echo "ok $i $name (${w}x${h}, $colors colours, $png)"
done
# no EGL vendor for the render thread (GTK draws through GLX here, or falls
# back to it): the same picture, drawn on the interface's thread
i=$((i + 1))
png="$out/five-bar-no-egl.png"
rm -f "$png"
log=$(env -u LW_VIEW_NO_THREAD __EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent timeout 120 \
  env ${LW_SAN_PRELOAD:+"LD_PRELOAD=$LW_SAN_PRELOAD"} "$app" --flat-out --screenshot "$png" --quit-after-run \
  "$models_dir/five-bar.json" 2>&1)
rc=$?
read -r w h colors < <(identify -format '%w %h %k\n' "$png" 2>/dev/null || echo "0 0 0")
if [ $rc -ne 0 ] || [ "$colors" -lt 200 ] || ! echo "$log" | grep -q "draws on the interface's thread"; then
  echo "not ok $i five-bar without EGL: exit $rc, screenshot ${w}x${h} with $colors colours"
  echo "$log" | sed 's/^/# /'
else
  echo "ok $i five-bar without EGL (${w}x${h}, $colors colours; $(echo "$log" | grep -o "the 3-D view draws.*"))"
fi
