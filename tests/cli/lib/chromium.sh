# Sourced by the HTML report tests (tests/cli/check_html.sh, diff_html.sh; this folder is not a
# test): headless Chromium (Debian's chromium, tools/setup.sh) on a report page. Needs $tmp.

# Exits 77 when chromium is absent; sets `browser` and `flags` (a 1400 px wide window).
skip_without_chromium() {
  browser=$(command -v chromium || command -v chromium-browser || true)
  if [[ -z "$browser" ]]; then
    echo "chromium not installed: skipped"
    exit 77
  fi
  flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-extensions --disable-dev-shm-usage
         --user-data-dir="$tmp/profile" --window-size=1400,1000)
}

# screenshot PAGE: a PNG of PAGE into $tmp/shot.png, or exit 1 when there is none or it looks
# blank (more than a blank page's few hundred bytes); sets `shot_size`.
screenshot() {
  timeout 120 "$browser" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$1" >"$tmp/shot.log" 2>&1
  [[ -s "$tmp/shot.png" ]] || { echo "FAIL: no screenshot: $(cat "$tmp/shot.log")"; exit 1; }
  [[ "$(head -c 8 "$tmp/shot.png" | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] ||
    { echo "FAIL: not a PNG"; exit 1; }
  shot_size=$(stat -c %s "$tmp/shot.png")
  [[ $shot_size -gt 5000 ]] || { echo "FAIL: screenshot of $shot_size bytes looks blank"; exit 1; }
}

# rendered PAGE SCRIPT: the value SCRIPT (JavaScript, run in a copy of PAGE once it has rendered)
# puts in document.body's data-measure attribute; the rendered DOM is left in $tmp/dom.html.
rendered() {
  local script=${2//\\/\\\\}  # the script as a sed replacement: \, | and & escaped
  script=${script//|/\\|}
  script=${script//&/\\&}
  sed "s|</body>|<script>(function(){${script}})();</script></body>|" "$1" >"$tmp/measure.html"
  timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/measure.html" >"$tmp/dom.html" 2>"$tmp/dom.log"
  grep -o 'data-measure="[^"]*"' "$tmp/dom.html" | sed 's/data-measure="//; s/"$//'
}

# The JavaScript of a measure that starts "page=<scroll width> wide=<elements past 1400 px> ".
wide_measure='"page="+document.documentElement.scrollWidth+" wide="+[...document.body.querySelectorAll("*")].filter(e=>e.getBoundingClientRect().right>1400).length+" "'

# fits MEASURE: no horizontal scrolling at 1400 px (the window less its scroll bar), no element
# past 1400 px.
fits() {
  local page=${1#page=}
  page=${page%% *}
  [[ $page -le 1400 && "$1" == *" wide=0 "* ]]
}
