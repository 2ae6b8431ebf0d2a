#!/usr/bin/env bash
# Makes DroidSansFallback-CJK.ttf: the characters of GB 2312, JIS X 0208 and KS X 1001 (and CJK
# punctuation, kana, Hangul jamo, full-width forms) from Debian's DroidSansFallbackFull.ttf.
# NanumGothic-Hangul.ttf: the Hangul syllables of KS X 1001 from Debian's NanumGothic.ttf (Droid
# has no Hangul). Needs: apt install fonts-droid-fallback fonts-nanum; pip install fonttools.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 "$here/cjk_characters.py"
pyftsubset /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf \
  --unicodes-file=/tmp/cjk-unicodes.txt --output-file="$here/DroidSansFallback-CJK.ttf" \
  --layout-features='*' --name-IDs='*' --name-legacy
pyftsubset /usr/share/fonts/truetype/nanum/NanumGothic.ttf \
  --unicodes-file=/tmp/hangul.txt --no-hinting --output-file="$here/NanumGothic-Hangul.ttf"
