"""Writes the code points of the CJK subsets (comma-separated U+XXXX, for pyftsubset):
/tmp/cjk-unicodes.txt (GB 2312, JIS X 0208, KS X 1001 Hanja, kana, CJK punctuation, full-width
forms) and /tmp/hangul.txt (the 2,350 Hangul syllables of KS X 1001 and the jamo)."""
chars=set()
def two_byte(codec, lo=0xA1, hi=0xFE):
    for a in range(lo, hi+1):
        for b in range(lo, hi+1):
            try: chars.update(bytes([a,b]).decode(codec))
            except Exception: pass
two_byte('gb2312'); two_byte('euc_jp'); two_byte('euc_kr')
for lo,hi in [(0x3000,0x30FF),(0xFF00,0xFFEF),(0x3130,0x318F)]:
    chars.update(chr(c) for c in range(lo,hi+1))
chars={c for c in chars if ord(c)>=0x2E80}
open('/tmp/cjk-unicodes.txt','w').write(','.join('U+%04X'%ord(c) for c in sorted(chars)))
print(len(chars))

hangul=set()
for a in range(0xB0,0xC9):
    for b in range(0xA1,0xFF):
        try: hangul.update(bytes([a,b]).decode('euc_kr'))
        except Exception: pass
hangul={c for c in hangul if 0xAC00<=ord(c)<=0xD7A3}
hangul.update(chr(c) for c in range(0x3131,0x318F))
open('/tmp/hangul.txt','w').write(','.join('U+%04X'%ord(c) for c in sorted(hangul)))
print(len(hangul))
