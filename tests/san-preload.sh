#!/bin/sh
# The wrapper of the tests under the sanitizers (meson test --wrapper, see
# linkwright.sh): a program built with AddressSanitizer runs with the
# libraries of $LW_SAN_PRELOAD preloaded, anything else (a script) as it is;
# smoke.sh passes them on to the application it starts.
if [ -n "${LW_SAN_PRELOAD:-}" ] && [ -f "$1" ] && ldd "$1" 2>/dev/null | grep -q libasan; then
  LD_PRELOAD="$LW_SAN_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"
fi
exec "$@"
