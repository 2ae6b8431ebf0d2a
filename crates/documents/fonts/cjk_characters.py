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
