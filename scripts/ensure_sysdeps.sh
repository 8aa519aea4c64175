#!/usr/bin/env bash
# Install the system packages the test suite needs beyond Python, once: Debian's Chromium and
# ChromeDriver for the browser tests and the report charts (kaleido), CJK fonts for pages and PDF
# reports, poppler-utils, Pango for WeasyPrint and headless LibreOffice Calc for the XLSX check.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium chromium-driver)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need+=(fonts-noto-cjk)
command -v pdftoppm >/dev/null 2>&1 || need+=(poppler-utils)
# WeasyPrint renders the PDF reports with Pango.
ldconfig -p 2>/dev/null | grep -q libpangoft2-1.0 || need+=(libpango-1.0-0 libpangoft2-1.0-0)
# LibreOffice Calc (headless) opens the XLSX exports in a test, as a finance director's office suite would.
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc-nogui)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "WARNING: cannot install ${need[*]} (needs root and apt-get); browser tests will be skipped" >&2
  exit 0
fi
echo "Installing system packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
