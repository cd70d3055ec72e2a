#!/usr/bin/env bash
# Recovery after SIGKILL, with the real binary: open a copy of the four-bar,
# draw a link in edit mode with the pointer (xdotool), kill -9 the process,
# start it again on the same file, accept the recovery with the keyboard;
# then Ctrl+W must ask to save (the recovered model is modified) and Return
# (Save) must write the model, as edited, to the original file without
# asking where (its file name came back).  Three rounds, each on the first
# restart.  TAP output; needs a display with no other window on it (the test
# command starts Xvfb) and xdotool.
set -u
app=$1
models_dir=$2
rounds=3
echo "1..$rounds"
if [ -z "${DISPLAY:-}" ] || ! command -v xdotool >/dev/null; then
  for i in $(seq $rounds); do echo "ok $i # SKIP no display or no xdotool"; done
  exit 0
fi
export GSETTINGS_BACKEND=memory GTK_A11Y=none

# wait up to $2 s for a visible window named exactly $1; prints its id
wait_window() {
  local end=$((SECONDS + $2)) id
  while [ $SECONDS -lt $end ]; do
    id=$(xdotool search --onlyvisible --name "^$1\$" 2>/dev/null | head -1)
    if [ -n "$id" ]; then
      echo "$id"
      return 0
    fi
    sleep 0.2
  done
  return 1
}

# press keys with the pointer over window $1 (no window manager: the
# keyboard goes to the window under the pointer)
keys_to() {
  xdotool mousemove --window "$1" 40 40
  sleep 0.3
  shift
  xdotool key "$@"
}

round() {
  local tmp pid pid2 win dlg json expected as
  tmp=$(mktemp -d)
  export XDG_CACHE_HOME=$tmp/cache XDG_DATA_HOME=$tmp/data
  cp "$models_dir/four-bar.json" "$tmp/four-bar.json"
  "$app" "$tmp/four-bar.json" >"$tmp/first.log" 2>&1 &
  pid=$!
  win=$(wait_window Linkwright 30) || { echo "no window"; kill -9 $pid; return 1; }
  sleep 1
  # edit mode, then a link drawn in the empty lower part of the view
  keys_to "$win" ctrl+m
  sleep 1.5
  xdotool mousemove 430 650
  sleep 0.3
  xdotool mousedown 1
  for x in 440 460 480 500 520 540 560 580 600; do
    xdotool mousemove $x 650
    sleep 0.08
  done
  sleep 0.2
  xdotool mouseup 1
  local end=$((SECONDS + 10))
  json=
  while [ -z "$json" ] && [ $SECONDS -lt $end ]; do
    json=$(ls "$XDG_CACHE_HOME"/linkwright/autosave/*.json 2>/dev/null | head -1)
    sleep 0.2
  done
  [ -n "$json" ] || { echo "no autosave after the edit"; kill -9 $pid; return 1; }
  sleep 0.3
  expected=$(cat "$json")
  kill -9 $pid
  wait $pid 2>/dev/null
  if cmp -s "$tmp/four-bar.json" "$models_dir/four-bar.json"; then :; else
    echo "the file changed before the restart"
    return 1
  fi

  # the first restart offers the model back
  "$app" "$tmp/four-bar.json" >"$tmp/second.log" 2>&1 &
  pid2=$!
  dlg=$(wait_window "Recover the unsaved model[?]" 30) || {
    echo "no recovery offered"
    kill -9 $pid2
    return 1
  }
  sleep 0.5
  keys_to "$dlg" Return
  sleep 1.5
  if [ -e "$json" ]; then
    echo "the autosave was not taken over"
    kill -9 $pid2
    return 1
  fi
  as=$(ls "$XDG_CACHE_HOME"/linkwright/autosave/"$pid2"-*.json 2>/dev/null | head -1)
  if [ -z "$as" ] || [ "$(cat "$as")" != "$expected" ]; then
    echo "the recovered model differs from the edited one (${as:-no autosave of the new process})"
    kill -9 $pid2
    return 1
  fi
  # modified: closing asks; Save writes to the file it came from
  win=$(wait_window Linkwright 5)
  keys_to "$win" ctrl+w
  dlg=$(wait_window "Save changes[?]" 10) || {
    echo "closing did not ask: the recovered model is not marked modified"
    kill -9 $pid2
    return 1
  }
  sleep 0.5
  keys_to "$dlg" Return
  end=$((SECONDS + 15))
  while kill -0 $pid2 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.2; done
  if kill -0 $pid2 2>/dev/null; then
    echo "Save did not close the window (no file name: Save As asked where?)"
    kill -9 $pid2
    return 1
  fi
  if [ "$(cat "$tmp/four-bar.json")" != "$expected" ]; then
    echo "the saved file is not the edited model"
    return 1
  fi
  rm -rf "$tmp"
  return 0
}

for i in $(seq $rounds); do
  if msg=$(round 2>&1); then
    echo "ok $i recovered after kill -9: file name, modified state and model as edited"
  else
    echo "not ok $i $msg" | head -1
    echo "$msg" | sed 's/^/# /'
  fi
done
