"""Slims the shipped fonts in place: drops the TrueType hinting (fpgm, prep, cvt, gasp and each
glyph's instructions) and the glyph names (post format 3). Hinting snaps outlines to a screen's
pixel grid; labels print at 203 dpi and up, where it changes nothing, and it made every embedded
subset about a third larger. Glyph names serve font editors only.
Run with fontTools: python3 slim.py *.ttf"""
import sys
from fontTools.ttLib import TTFont

for path in sys.argv[1:]:
    font = TTFont(path)
    for tag in ("fpgm", "prep", "cvt ", "gasp", "hdmx", "LTSH", "VDMX"):
        if tag in font:
            del font[tag]
    glyf = font["glyf"]
    for name in font.getGlyphOrder():
        glyph = glyf[name]
        if hasattr(glyph, "program"):
            glyph.program.fromBytecode(b"")
        elif glyph.isComposite() and hasattr(glyph, "program"):
            del glyph.program
    maxp = font["maxp"]
    for field in ("maxZones", "maxTwilightPoints", "maxStorage", "maxFunctionDefs",
                  "maxInstructionDefs", "maxStackElements", "maxSizeOfInstructions"):
        if hasattr(maxp, field):
            setattr(maxp, field, 1 if field == "maxZones" else 0)
    font["post"].formatType = 3.0
    font.save(path)
    print(path)
