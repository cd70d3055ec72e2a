#!/usr/bin/python3
"""End-to-end test through the accessibility tree (AT-SPI, pyatspi): start
the real application on an example, press Run as a screen reader would, read
the result the window shows, and check that every control has a name.
Run inside its own D-Bus session:  dbus-run-session -- e2e.py APP MODEL CLI
TAP output: into the file LW_TAP_FILE names when it is set (the session's
daemons inherit the standard output: the test runs them with it on the
standard error and shows the file), else on the standard output."""
import os
import subprocess
import sys
import time

import pyatspi

app_path, model, cli = sys.argv[1], sys.argv[2], sys.argv[3]
tests = []


def report(ok, name, detail=""):
    tests.append((ok, name, detail))


class Stop(Exception):
    """The checks that follow cannot be made: report those made so far."""


def find_app(name, timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        desktop = pyatspi.Registry.getDesktop(0)
        for a in desktop:
            if a is not None and a.name and name in a.name.lower():
                return a
        time.sleep(0.2)
    return None


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


def find(root, pred):
    for n in walk(root):
        try:
            if pred(n):
                return n
        except Exception:
            pass
    return None


def text_of(node):
    try:
        t = node.queryText()
        return t.getText(0, -1)
    except Exception:
        return node.name or ""


env = dict(os.environ)
env.pop("GTK_A11Y", None)
env.setdefault("GSETTINGS_BACKEND", "memory")
proc = subprocess.Popen([app_path, "--flat-out", model], env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
try:
    app = find_app("linkwright")
    report(app is not None, "the application appears on the accessibility bus")
    if app is None:
        raise Stop
    # the window is built once the model is open
    end = time.time() + 30
    run = None
    while time.time() < end and run is None:
        run = find(app, lambda n: n.getRoleName() == "push button" and n.name == "Run")
        time.sleep(0.2)
    report(run is not None, "a push button named Run")
    # the status line (a label: its accessible name is its text)
    status = find(app, lambda n: n.getRoleName() == "label" and (n.name or "").startswith("t = "))
    report(status is not None, "a status label 't = ...'")
    before = status.name if status else ""
    report("ready" in before, "before the run the status says ready", before)

    # every control has a name a screen reader can say
    roles = {"push button", "toggle button", "slider", "combo box", "check box", "menu button", "spin button"}
    unnamed = []
    count = 0
    for n in walk(app):
        try:
            role = n.getRoleName()
        except Exception:
            continue
        if role in roles:
            count += 1
            name = (n.name or "").strip()
            # GTK falls back to the class name: that is no name for a person
            if not name or name.startswith("Gtk") or name.startswith("Adw"):
                unnamed.append(f"{role}:{name}")
    report(count >= 10 and not unnamed, "every control has an accessible name",
           f"{count} controls, unnamed: {unnamed}")

    # press Run through its action, as assistive technology does
    if run is not None:
        act = run.queryAction()
        names = [act.getName(i) for i in range(act.nActions)]
        i = names.index("click") if "click" in names else 0
        act.doAction(i)
    result = ""
    end = time.time() + 60
    while time.time() < end:
        result = status.name if status else ""
        if "done" in result:
            break
        time.sleep(0.2)
    report("done" in result and "t = 5.000 s" in result, "after Run the status reads the end of the run", result)

    # the inspector's outputs: the final value of r2.x is shown
    # (switch pages with the stack switcher's button, by name)
    page = find(app, lambda n: n.name == "Inspector" and n.getRoleName() in ("toggle button", "push button", "radio button", "page tab"))
    if page is not None:
        try:
            a = page.queryAction()
            a.doAction(0)
        except Exception:
            pass
        time.sleep(0.5)
    # a row of the inspector: the title label, then the value label
    labels = [n for n in walk(app) if n.getRoleName() == "label"]
    value, ok = "", False
    for a, b in zip(labels, labels[1:]):
        if a.name == "r2.x":
            try:
                float(b.name)
            except (TypeError, ValueError):
                continue  # e.g. the plot's drop-down, not an inspector row
            value, ok = b.name, True
            break
    # the same number the command-line simulation gives
    import json
    final = json.loads(subprocess.run([cli, "simulate", model, "--json"], capture_output=True,
                                      text=True, check=True).stdout)["final"]["r2"][0]
    ok = ok and abs(float(value) - final) <= 1e-5 * max(1.0, abs(final))
    value = f"{value} (command line: {final:.9g})"
    report(ok, "the inspector shows the final r2.x", value)
except Stop:
    pass
finally:
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()

tap = open(os.environ["LW_TAP_FILE"], "w") if os.environ.get("LW_TAP_FILE") else sys.stdout
print(f"1..{len(tests)}", file=tap)
for i, (ok, name, detail) in enumerate(tests, 1):
    print(f"{'ok' if ok else 'not ok'} {i} {name}" + (f"  # {detail}" if detail and ok else ""), file=tap)
    if detail and not ok:
        print(f"# {detail}", file=tap)
tap.flush()
sys.exit(0 if all(t[0] for t in tests) else 1)
