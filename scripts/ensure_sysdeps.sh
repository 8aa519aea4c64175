#!/usr/bin/env bash
# Install, once, the system packages beyond Python.
#   ensure_sysdeps.sh portal  what the portal itself uses: CJK fonts for pages, PDF reports and
#                             chart images, Pango for WeasyPrint (`make run`)
#   ensure_sysdeps.sh test    the above plus what only the tests use: Debian's Chromium and
#                             ChromeDriver (browser tests), poppler-utils (PDF pages as images),
#                             headless LibreOffice Calc (the XLSX round-trip), Prometheus and
#                             node_exporter (the contracts' monitoring pull) (`make test`)
set -euo pipefail
scope="${1:-test}"
case "$scope" in
  portal|test) ;;
  *) echo "usage: $0 portal|test" >&2; exit 2 ;;
esac
need=()
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need+=(fonts-noto-cjk)
# WeasyPrint renders the PDF reports with Pango.
ldconfig -p 2>/dev/null | grep -q libpangoft2-1.0 || need+=(libpango-1.0-0 libpangoft2-1.0-0)
if [ "$scope" = test ]; then
  command -v chromium >/dev/null 2>&1 || need+=(chromium chromium-driver)
  command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
  # LibreOffice Calc opens the XLSX exports in a test, as a finance director's office suite would.
  command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
  # The contracts' Prometheus pull is tested against a real Prometheus and node_exporter.
  command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
  command -v prometheus-node-exporter >/dev/null 2>&1 || need+=(prometheus-node-exporter)
fi
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "WARNING: cannot install ${need[*]} (needs root and apt-get); tests that need them are skipped" >&2
  exit 0
fi
echo "Installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
