"""SVG pictures as RGB arrays (the envs' ``render_mode="rgb_array"``), rasterised by resvg
(``resvg-py``, a self-contained wheel) and decoded by Pillow, both in the core install.

Text needs a font: resvg uses the system's fonts (any sans-serif; Debian:
``fonts-dejavu-core``). Without one the picture has no text but still the same shape.
"""

from __future__ import annotations

import io

import numpy as np

from machu_env.core import files


def _libraries():
    try:
        import resvg_py
        from PIL import Image
    except ImportError as e:
        raise ImportError(f"rgb_array rendering needs {e.name}, a dependency of machu-env: "
                          "pip install resvg-py pillow") from None
    return resvg_py, Image


def svg_to_rgb(svg: str) -> np.ndarray:
    """The picture as an ``(height, width, 3)`` uint8 array (on a white background)."""
    resvg_py, image = _libraries()
    png = resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff")
    with image.open(io.BytesIO(bytes(png))) as picture:
        return np.asarray(picture.convert("RGB"))


def svg_to_png(svg: str, path) -> None:
    """Write the picture as a PNG file."""
    resvg_py, _ = _libraries()
    files.write_bytes(path, bytes(resvg_py.svg_to_bytes(svg_string=svg, background="#ffffff")))
