#!/usr/bin/env bash
# The documentation site (mkdocs.yml, pages under docs/; docs/development.md, "The documentation site"):
#
#   bash scripts/docs.sh build      strict build into site/ (git-ignored): a warning, a broken link or
#                                   anchor, an unlisted page or a broken API cross-reference fails it
#   bash scripts/docs.sh serve      live preview on http://127.0.0.1:8000/, bound to 127.0.0.1 only
#                                   (PORT=8001 bash scripts/docs.sh serve for another port)
#   bash scripts/docs.sh ladders    regenerate docs/data/GAME/ladder.md and ladder.png from the
#                                   evaluation results docs/data/GAME/*/results.json (scripts/ladder_page.py)
#   bash scripts/docs.sh pictures   regenerate the rgb_array frames of the game pages (docs/images/*-frame.png)
#   bash scripts/docs.sh screenshots  retake the play-page screenshots (docs/images/play-*.png): the
#                                   browser tests that play a whole game keep theirs (KARDINAL_SCREENSHOTS),
#                                   reduced to 256 colours
#
# Each sets up .venv first (scripts/setup.sh: the docs extra for the site, train for the ladders).
set -euo pipefail
cd "$(dirname "$0")/.."
LC_COLLATE=C  # the results files of a ladder pool in byte order, as tests/test_report.py reads them
command=${1:-}
case "$command" in
    build)
        bash scripts/setup.sh docs
        start=$SECONDS
        NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --clean --site-dir site
        echo "docs: built site/ in $((SECONDS - start)) s; bash scripts/docs.sh serve to browse the pages" >&2
        ;;
    serve)
        bash scripts/setup.sh docs
        NO_MKDOCS_2_WARNING=1 exec .venv/bin/mkdocs serve --strict --dev-addr "127.0.0.1:${PORT:-8000}"
        ;;
    ladders)
        bash scripts/setup.sh train
        for folder in docs/data/*/; do
            sources=("$folder"*/results.json)
            [ -e "${sources[0]}" ] || continue
            .venv/bin/python scripts/ladder_page.py "${sources[@]}" --out "$folder" --name ladder
        done
        ;;
    pictures)
        bash scripts/setup.sh docs
        .venv/bin/python scripts/docs_pictures.py --game kardinal --players 4 --moves 40 --seed 3 \
            --out docs/images/kardinal-frame.png
        .venv/bin/python scripts/docs_pictures.py --game kardinal_koenig --players 4 --moves 60 --seed 3 \
            --out docs/images/koenig-frame.png
        ;;
    screenshots)
        bash scripts/setup.sh train,dev
        shots=$(mktemp -d)
        trap 'rm -rf "$shots"' EXIT
        KARDINAL_SCREENSHOTS=$shots .venv/bin/python -m pytest -q -m browser \
            tests/test_browser.py::test_play_a_full_game_by_clicking_and_download_it
        .venv/bin/python - "$shots" << 'PY'
import sys
from PIL import Image  # matplotlib's dependency

for name, out in (("play_middle.png", "play-kardinal.png"), ("koenig_play_middle.png", "play-koenig.png")):
    image = Image.open(f"{sys.argv[1]}/{name}").convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    image.save(f"docs/images/{out}", optimize=True)
    print(f"wrote docs/images/{out}")
PY
        ;;
    *)
        echo "usage: bash scripts/docs.sh build|serve|ladders|pictures|screenshots" >&2
        exit 2
        ;;
esac
