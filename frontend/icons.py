"""The installable app's icons (issue 28), drawn from the header's brand mark —
a white ♠ and a red ♥ on the header's colour (``theme.css`` ``--header``,
``base.css`` ``.brand-mark``) — and committed as PNGs under
``static/frontend/icons/``. Run ``python -m frontend.icons`` (with Pillow and the
DejaVu fonts, a development-only need) to draw them again after a change here.

A maskable icon fills its square and keeps the mark inside the central circle
of 80 % that every platform's mask leaves visible; the plain ones are a rounded
square with the mark larger."""

from __future__ import annotations

from pathlib import Path

HEADER = "#17202e"
SPADE = "#ffffff"
HEART = "#ff6b6b"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
OUT = Path(__file__).resolve().parent / "static" / "frontend" / "icons"
ICONS = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "maskable-512.png": (512, True),
}


def draw(size: int, *, maskable: bool):  # type: ignore[no-untyped-def]
    """One icon, ``size`` pixels square."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    if maskable:
        pen.rectangle((0, 0, size, size), fill=HEADER)
    else:
        pen.rounded_rectangle((0, 0, size - 1, size - 1), radius=size // 6, fill=HEADER)
    # The mark: two glyphs side by side, within 56 % (maskable) or 70 % of the side.
    width = size * (0.56 if maskable else 0.7)
    font = ImageFont.truetype(FONT, int(width / 1.25))
    spade, heart = "♠", "♥"
    left = pen.textbbox((0, 0), spade, font=font)
    right = pen.textbbox((0, 0), heart, font=font)
    gap = -size * 0.06  # the glyphs' boxes are wider than their ink
    total = (left[2] - left[0]) + gap + (right[2] - right[0])
    top = max(left[3], right[3]) - min(left[1], right[1])
    x = (size - total) / 2
    y = (size - top) / 2 - min(left[1], right[1])
    pen.text((x - left[0], y), spade, font=font, fill=SPADE)
    pen.text((x + (left[2] - left[0]) + gap - right[0], y), heart, font=font, fill=HEART)
    return image


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (size, maskable) in ICONS.items():
        draw(size, maskable=maskable).save(OUT / name, optimize=True)
        print(OUT / name)


if __name__ == "__main__":
    main()
