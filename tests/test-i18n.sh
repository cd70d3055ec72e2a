#!/usr/bin/env bash
# The built application in Spanish and in German, with the build's compiled
# translations (build/po/<lang>/LC_MESSAGES/linkwright.mo), read through the
# accessibility tree (AT-SPI) in a private D-Bus session:
#   1. LANGUAGE=es: the Run button, the Sensitivity page and the status line
#      carry their Spanish names, and the English ones are gone;
#   2. LANGUAGE=de: the same in German;
#   3. LANGUAGE=de with LC_NUMERIC=de_DE.UTF-8 (a decimal comma): the status
#      line shows the comma, so the locale is in force;
#   4. ... and the model saved through the German Save button still writes
#      its numbers with a '.' (the same values as the file that was opened).
# The application binds its text domain to the installation's locale
# directory, compiled in (LOCALEDIR); an installation into a DESTDIR would not
# move it.  A preloaded library (tests/lw-test-localedir.c) points
# bindtextdomain() at the build's po/ directory instead.
# Usage: test-i18n.sh APP PRELOAD PODIR MODEL LOCPATH     TAP output.
set -u
app=$1 preload=$2 podir=$3 model=$4 locpath=$5
echo "1..4"
skip_all() {
  for i in 1 2 3 4; do echo "ok $i # SKIP $1"; done
  exit 0
}
[ -n "${DISPLAY:-}" ] || skip_all "no display"
# the sanitizers' runtime must come first in LD_PRELOAD and would then load
# into the D-Bus session and the probe too: the translations are checked by
# the normal build's run of this test
ldd "$app" 2>/dev/null | grep -q libasan && skip_all "the application is built with the sanitizers"
py=/usr/bin/python3
command -v dbus-run-session >/dev/null 2>&1 || skip_all "no dbus-run-session"
"$py" -c "import pyatspi" 2>/dev/null || skip_all "no pyatspi"
for l in es de; do
  [ -s "$podir/$l/LC_MESSAGES/linkwright.mo" ] || skip_all "no compiled $l translation in $podir"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# probe.py APP MODEL OUT RUN PAGE STATUS_WORD [SAVE_BUTTON]: start the
# application on MODEL, find the Run button and the page button by their
# translated names, read the status line; with SAVE_BUTTON, press it and wait
# for MODEL to be written.  Writes a JSON report to OUT.
cat >"$tmp/probe.py" <<'EOF'
import json, os, subprocess, sys, time
import pyatspi

app_path, model, out, run_name, page_name, status_word = sys.argv[1:7]
save_name = sys.argv[7] if len(sys.argv) > 7 else None
rep = {"names": [], "status": "", "saved": False, "errors": []}


def walk(node, depth=0):
    if node is None or depth > 60:
        return
    yield node
    try:
        n = node.childCount
    except Exception:
        return
    for i in range(n):
        try:
            c = node.getChildAtIndex(i)
        except Exception:
            continue
        yield from walk(c, depth + 1)


def find_app(timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        for a in pyatspi.Registry.getDesktop(0):
            if a is not None and a.name and "linkwright" in a.name.lower():
                return a
        time.sleep(0.2)
    return None


def named(root, name, roles):
    for n in walk(root):
        try:
            if n.name == name and n.getRoleName() in roles:
                return n
        except Exception:
            pass
    return None


buttons = ("push button", "toggle button", "radio button", "page tab")
env = dict(os.environ)
env.pop("GTK_A11Y", None)
mtime = os.stat(model).st_mtime_ns
proc = subprocess.Popen([app_path, "--flat-out", model], env=env,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    app = find_app()
    if app is None:
        rep["errors"].append("the application is not on the accessibility bus")
    else:
        end = time.time() + 30
        run = None
        while time.time() < end and run is None:
            run = named(app, run_name, buttons)
            time.sleep(0.2)
        page = named(app, page_name, buttons)
        rep["run"] = run is not None
        rep["page"] = page is not None
        for n in walk(app):
            try:
                if n.name and n.getRoleName() in buttons + ("label",):
                    rep["names"].append(n.name)
            except Exception:
                pass
        end = time.time() + 10
        while time.time() < end and status_word not in rep["status"]:
            for n in walk(app):
                try:
                    if n.getRoleName() == "label" and (n.name or "").startswith("t = "):
                        rep["status"] = n.name
                except Exception:
                    pass
            time.sleep(0.2)
        if save_name:
            save = named(app, save_name, buttons)
            rep["save_button"] = save is not None
            if save is not None:
                act = save.queryAction()
                acts = [act.getName(i) for i in range(act.nActions)]
                act.doAction(acts.index("click") if "click" in acts else 0)
                end = time.time() + 20
                while time.time() < end and os.stat(model).st_mtime_ns == mtime:
                    time.sleep(0.2)
                time.sleep(0.5)
                rep["saved"] = os.stat(model).st_mtime_ns != mtime
except Exception as e:
    rep["errors"].append(repr(e))
finally:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
json.dump(rep, open(out, "w"))
EOF

# probe LANGUAGE OUT RUN PAGE STATUS_WORD [SAVE]  (extra environment before)
probe() {
  local lang=$1; shift
  LANGUAGE=$lang LD_PRELOAD="$preload" LW_TEST_TEXTDOMAIN=linkwright LW_TEST_LOCALEDIR="$podir" \
    GSETTINGS_BACKEND=memory HOME="$tmp" XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" \
    XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state" \
    timeout 120 dbus-run-session -- "$py" "$tmp/probe.py" "$app" "$@" >"$tmp/session.log" 2>&1
}

# check N LANG REPORT RUN PAGE STATUS_WORD: the translated names are there,
# the English ones are not
check_names() {
  local n=$1 lang=$2 rep=$3 run=$4 page=$5 word=$6
  local detail
  detail=$("$py" - "$rep" "$run" "$page" "$word" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
run, page, word = sys.argv[2:5]
bad = []
if rep["errors"]:
    bad += rep["errors"]
if not rep.get("run"):
    bad.append("no button named %r" % run)
if not rep.get("page"):
    bad.append("no page named %r" % page)
if word not in rep["status"]:
    bad.append("status %r lacks %r" % (rep["status"], word))
english = sorted({"Run", "Sensitivity", "Properties", "Optimize", "Plots", "Save"} & set(rep["names"]))
if english:
    bad.append("English names left: %s" % ", ".join(english))
print("; ".join(bad) if bad else "%s, %s, status %r" % (run, page, rep["status"]))
sys.exit(1 if bad else 0)
EOF
)
  if [ $? -eq 0 ]; then echo "ok $n LANGUAGE=$lang: $detail"; else echo "not ok $n LANGUAGE=$lang: $detail"; sed 's/^/# /' "$tmp/session.log"; fi
}

cp "$model" "$tmp/model.json"
LC_ALL=C.UTF-8 LANG=C.UTF-8 probe es "$tmp/model.json" "$tmp/es.json" Ejecutar Sensibilidad listo
check_names 1 es "$tmp/es.json" Ejecutar Sensibilidad listo
LC_ALL=C.UTF-8 LANG=C.UTF-8 probe de "$tmp/model.json" "$tmp/de.json" Starten Sensitivität bereit
check_names 2 de "$tmp/de.json" Starten Sensitivität bereit

# a German decimal comma: the locale built for the tests (tests/meson.build)
if ! LOCPATH="$locpath" LC_ALL=de_DE.UTF-8 locale -k decimal_point 2>/dev/null | grep -q '","'; then
  echo "ok 3 # SKIP no de_DE.UTF-8 locale in $locpath"
  echo "ok 4 # SKIP no de_DE.UTF-8 locale"
  exit 0
fi
(
  unset LC_ALL
  export LOCPATH="$locpath" LANG=C.UTF-8
  { export LC_NUMERIC=de_DE.UTF-8; } 2>/dev/null
  probe de "$tmp/model.json" "$tmp/de-num.json" Starten Sensitivität bereit Speichern
)
{ read -r status; read -r saved; read -r errs; } < <("$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["status"], int(r["saved"]), "; ".join(r["errors"]) or "none", sep="\n")' "$tmp/de-num.json")
if [[ $status == *"0,000 s"* ]]; then
  echo "ok 3 LC_NUMERIC=de_DE.UTF-8 is in force: the status reads '$status'"
else
  echo "not ok 3 LC_NUMERIC=de_DE.UTF-8 not in force: the status reads '$status' (errors: $errs)"
  sed 's/^/# /' "$tmp/session.log"
fi
if [ "$saved" != 1 ]; then
  echo "not ok 4 the model was not saved through the button Speichern (errors: $errs)"
  exit 0
fi
# the saved file is JSON with the numbers of the original: a decimal comma
# would split a number in an array or break the syntax
detail=$("$py" - "$model" "$tmp/model.json" <<'EOF'
import json, re, sys
a = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
try:
    b = json.loads(text)
except ValueError as e:
    print("not JSON: %s" % e)
    sys.exit(1)
def numbers(x, path=""):
    if isinstance(x, bool):
        return {}
    if isinstance(x, (int, float)):
        return {path: float(x)}
    out = {}
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else []
    for k, v in items:
        out.update(numbers(v, "%s/%s" % (path, k)))
    return out
na, nb = numbers(a), numbers(b)
diff = [k for k in na if k not in nb or abs(na[k] - nb[k]) > 1e-12 * max(1, abs(na[k]))]
commas = re.findall(r"\d,\d", text)
fractional = re.findall(r"\d\.\d", text)
if diff or not fractional:
    print("%d of %d numbers differ (%s), %d decimal points, %d digit,digit" % (len(diff), len(na), ", ".join(diff[:5]), len(fractional), len(commas)))
    sys.exit(1)
print("%d numbers as in the original, %d with a decimal point" % (len(na), len(fractional)))
EOF
)
if [ $? -eq 0 ]; then echo "ok 4 saved under LC_NUMERIC=de_DE.UTF-8: $detail"; else echo "not ok 4 saved under LC_NUMERIC=de_DE.UTF-8: $detail"; fi
