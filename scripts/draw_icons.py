"""Draw the app's icons for the web app manifest: static/icons/icon-<size>.png.

The masthead in small: white "FFA" in the PDF's Liberation Sans Bold on black, over the red
rule of the classic Traveller covers. Everything that matters sits inside the middle 80%, so
a launcher that crops the icon to a circle (a "maskable" icon) keeps it whole.

    .venv/bin/python scripts/draw_icons.py     # after changing the drawing; commit the PNGs

Pillow comes with WeasyPrint. The PNGs are committed, so serving the site needs no build step.
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parents[1]
FONT = ROOT / "static" / "fonts" / "LiberationSans-Bold.ttf"
SIZES = (192, 512)
BLACK, WHITE, RED = (0, 0, 0), (255, 255, 255), (200, 16, 46)  # site.css --black, --red


def draw(size: int) -> Image.Image:
    image = Image.new("RGB", (size, size), BLACK)
    pen = ImageDraw.Draw(image)
    font = ImageFont.truetype(str(FONT), round(size * 0.3))
    pen.text((size / 2, size * 0.44), "FFA", font=font, fill=WHITE, anchor="mm")
    rule = round(size * 0.05)
    top = round(size * 0.64)
    pen.rectangle((round(size * 0.18), top, round(size * 0.82), top + rule), fill=RED)
    return image


def main() -> None:
    for size in SIZES:
        path = ROOT / "static" / "icons" / f"icon-{size}.png"
        draw(size).save(path, optimize=True)
        print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
