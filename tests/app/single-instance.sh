#!/bin/sh
# One instance per session: a second launch with a file opens it in the
# running instance (a second window there) and ends at once; the first
# instance goes on.  --help shows [FILE…] and not the automation options.
# Run in a private D-Bus session (dbus-run-session) on the display of the
# test command.
#   single-instance.sh LINKWRIGHT MODEL1 MODEL2
app=$1 model1=$2 model2=$3
echo "1..5"
if ! command -v gdbus >/dev/null; then
  for i in 1 2 3 4 5; do echo "ok $i # SKIP gdbus is not installed"; done
  exit 0
fi
id=io.github.linkwright.Linkwright
obj=/io/github/linkwright/Linkwright
tmp=$(mktemp -d)
trap 'kill "$first" 2>/dev/null; rm -rf "$tmp"' EXIT

help=$(LANGUAGE=C "$app" --help 2>&1)
case "$help" in
  *"[FILE…]"*) echo "ok 1 --help shows [FILE…]" ;;
  *) echo "not ok 1 --help shows [FILE…]"; echo "$help" | sed 's/^/# /' ;;
esac
case "$help" in
  *screenshot*|*quit-after-run*|*bench-fps*) echo "not ok 2 --help hides the automation options" ;;
  *) echo "ok 2 --help hides the automation options" ;;
esac

"$app" "$model1" >"$tmp/first.log" 2>&1 &
first=$!
owned=no
for _ in $(seq 1 100); do
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner "$id" 2>/dev/null | grep -q true && { owned=yes; break; }
  sleep 0.2
done
# the first window is there before the second launch
for _ in $(seq 1 50); do
  gdbus introspect --session --dest "$id" --object-path "$obj/window/1" 2>/dev/null | grep -q org.gtk.Actions && break
  sleep 0.2
done

start=$(date +%s)
timeout 30 "$app" "$model2" >"$tmp/second.log" 2>&1
rc=$?
took=$(( $(date +%s) - start ))
if [ "$owned" = yes ] && [ $rc -eq 0 ] && [ $took -lt 15 ]; then
  echo "ok 3 the second launch hands its file over and ends (${took} s)"
else
  echo "not ok 3 the second launch hands its file over and ends (name owned: $owned, exit $rc, ${took} s)"
  sed 's/^/# /' "$tmp/second.log"
fi
found=no
for _ in $(seq 1 50); do
  gdbus introspect --session --dest "$id" --object-path "$obj/window/2" 2>/dev/null | grep -q org.gtk.Actions && {
    found=yes
    break
  }
  sleep 0.2
done
if [ $found = yes ]; then
  echo "ok 4 the running instance opened a second window"
else
  echo "not ok 4 the running instance opened a second window"
fi
if kill -0 "$first" 2>/dev/null; then
  echo "ok 5 the first instance goes on"
else
  echo "not ok 5 the first instance goes on"
  sed 's/^/# /' "$tmp/first.log"
fi
