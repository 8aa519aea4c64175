"""Pixels for the report charts: domain.svgcharts drawings painted with Pillow (FreeType).

WeasyPrint lays out SVG text one letter at a time (seconds for three charts of a fifty-offer
report); an image painted here takes milliseconds. It is a JPEG, which WeasyPrint embeds as it
is. Fonts: Noto Sans CJK (Simplified Chinese face of the collection) found through fontconfig,
else DejaVu Sans, else Pillow's own font.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from domain.svgcharts import Chart

SCALE = 2  # pixels per drawing unit: sharp at A4 width
_SC_INDEX = 2  # NotoSansCJK-*.ttc: JP, KR, SC, TC, HK


@lru_cache(maxsize=4)
def _font_file(bold: bool) -> tuple[str, int] | None:
    if not shutil.which("fc-match"):
        return None
    for pattern, marker, index in (
        ("Noto Sans CJK SC", "cjk", _SC_INDEX),
        ("DejaVu Sans", "dejavu", 0),
    ):
        try:
            path = subprocess.run(
                ["fc-match", "-f", "%{file}", pattern + (":bold" if bold else "")],
                capture_output=True, text=True, timeout=10, check=True,
            ).stdout.strip()  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None
        if marker in path.lower():  # fc-match answers its best guess, maybe another family
            return path, index if path.endswith(".ttc") else 0
    return None


@lru_cache(maxsize=32)
def _font(size: int, bold: bool) -> Any:
    found = _font_file(bold)
    if found:
        try:
            return ImageFont.truetype(found[0], size, index=found[1])
        except OSError:
            pass
    return ImageFont.load_default(size)


_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}


def _rgb(colour: str) -> str:
    return colour if colour.startswith("#") or colour != "white" else "#ffffff"


def jpeg(chart: Chart) -> bytes:
    """The chart as a JPEG for the PDF: WeasyPrint embeds a JPEG as it is, whereas it decodes and
    recompresses every PNG (about 0.1 s per chart, on every build). Full chroma resolution and a
    high quality keep the coloured labels crisp at A4."""
    out = io.BytesIO()
    _paint(chart).save(out, format="JPEG", quality=92, subsampling=0)
    return out.getvalue()


def _paint(chart: Chart) -> Image.Image:
    s = SCALE
    image = Image.new("RGB", (round(chart.width * s), round(chart.height * s)), "white")
    draw = ImageDraw.Draw(image)
    for kind, *a in chart.items:
        if kind == "rect":
            x, y, w, h, fill = a
            if w > 0 and h > 0:
                # A bar thinner than a pixel is still drawn one pixel wide (Pillow refuses a
                # rectangle whose far edge lies before its near one).
                x0, y0 = x * s, y * s
                x1, y1 = max(x0, (x + w) * s - 1), max(y0, (y + h) * s - 1)
                draw.rectangle([x0, y0, x1, y1], fill=_rgb(fill))
        elif kind == "line":
            x1, y1, x2, y2, stroke, width = a
            draw.line(
                [x1 * s, y1 * s, x2 * s, y2 * s], fill=_rgb(stroke), width=max(1, round(width * s))
            )
        elif kind == "circle":
            cx, cy, r, fill, stroke, width = a
            draw.ellipse([(cx - r) * s, (cy - r) * s, (cx + r) * s, (cy + r) * s],
                         fill=_rgb(fill), outline=_rgb(stroke), width=round(width * s))  # fmt: skip
        elif kind == "text":
            x, y, text, size, anchor, fill, weight, rotate = a
            font = _font(round(size * s), weight == "bold")
            if rotate:
                box = draw.textbbox((0, 0), text, font=font, anchor="lt")
                label = Image.new("RGBA", (int(box[2]) + 2, int(box[3]) + 2), (255, 255, 255, 0))
                ImageDraw.Draw(label).text((0, 0), text, font=font, fill=_rgb(fill), anchor="lt")
                label = label.rotate(-rotate, expand=True)
                image.paste(
                    label, (round(x * s - label.width / 2), round(y * s - label.height / 2)), label
                )
            else:
                draw.text(
                    (x * s, y * s),
                    text,
                    font=font,
                    fill=_rgb(fill),
                    anchor=_ANCHOR.get(anchor, "ls"),
                )
    return image
