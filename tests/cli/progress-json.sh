#!/bin/sh
# linkwright-cli --progress and --json: progress as JSON lines on stderr
# for simulate, sensitivity, optimize and render; with --json, every
# command's error as one JSON object on stdout (and the exit code kept).
#   progress-json.sh LINKWRIGHT-CLI MODELS-DIR
cli=$1 models=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
bad() { n=$((n + 1)); echo "not ok $n $1"; [ -f "$2" ] && sed 's/^/# /' "$2" | head -20; }

# every stderr line of a run is {"t": .., "fraction": ..} (or the fields
# given), fractions non-decreasing and ending at 1
check_lines() { # FILE FIELDS...
  python3 - "$@" <<'PY'
import json, sys
path, fields = sys.argv[1], sys.argv[2:]
rows = [json.loads(l) for l in open(path) if l.strip()]
assert rows, "no progress lines"
for r in rows:
    assert sorted(r) == sorted(fields), r
fr = [r["fraction"] for r in rows]
assert all(b >= a for a, b in zip(fr, fr[1:])), fr
assert 0 <= fr[0] and abs(fr[-1] - 1) < 1e-9, (fr[0], fr[-1])
PY
}

echo "1..9"
"$cli" simulate "$models/pendulum.json" --t-end 1 --progress --json >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && check_lines "$tmp/err" t fraction && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/out" &&
   [ "$(tail -1 "$tmp/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["t"])')" = "1" ]; then
  ok "simulate --progress: JSON lines to t = 1 on stderr, the result on stdout"
else bad "simulate --progress" "$tmp/err"; fi

"$cli" sensitivity "$models/five-bar.json" --objective psi1 --t-end 0.5 --progress >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && check_lines "$tmp/err" t fraction; then ok "sensitivity --progress"
else bad "sensitivity --progress" "$tmp/err"; fi

"$cli" optimize "$models/slider-crank-codesign.json" --max-evaluations 3 --progress >"$tmp/out" 2>"$tmp/err"
if check_lines "$tmp/err" evaluation fraction objective best; then ok "optimize --progress"
else bad "optimize --progress" "$tmp/err"; fi

"$cli" render "$models/pendulum.json" --out "$tmp/p.gif" --width 64 --height 48 --fps 10 --t-end 0.5 --progress \
  >"$tmp/out" 2>"$tmp/err"
if [ $? -eq 0 ] && check_lines "$tmp/err" t fraction; then ok "render --progress"
else bad "render --progress" "$tmp/err"; fi

# errors with --json: one object on stdout with the status and the message
json_error() { # NAME EXPECTED-CODE STATUS WORDS -- ARGS...
  name=$1 code=$2 status=$3 words=$4
  shift 5
  "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ $rc -eq "$code" ] && python3 - "$tmp/out" "$status" "$words" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
obj = json.loads(text)
assert text.count("\n") == 1, text
assert obj["status"] == sys.argv[2], obj
assert sys.argv[3] in obj["error"]["message"], obj
PY
  then ok "$name"; else bad "$name (exit $rc)" "$tmp/out"; fi
}
json_error "simulate --json: a missing file" 2 model_error "nothere.json" -- simulate "$tmp/nothere.json" --json
json_error "check --json: a missing file" 2 model_error "nothere.json" -- check "$tmp/nothere.json" --json
json_error "sensitivity --json: an unknown objective" 1 usage_error "no objective 'nope'" -- \
  sensitivity "$models/five-bar.json" --objective nope --json
json_error "render --json: an unknown format" 1 usage_error "the output is a .webm video" -- \
  render "$models/five-bar.json" --out "$tmp/x.mp4" --json
json_error "an unknown command with --json" 1 usage_error "unknown command" -- frobnicate --json
