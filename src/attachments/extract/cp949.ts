// A CP949 (Windows Korean, the WHATWG "euc-kr") decoder. Node's TextDecoder('euc-kr') only knows
// KS X 1001: it silently drops the lead byte of the 8,822 extension syllables (e.g. 똠 = 8C 63
// comes out as "c"), even with fatal: true. So: KS X 1001 pairs come from Node's decoder once, and
// the extension is rebuilt the way Microsoft defined it, the missing Hangul syllables in Unicode
// order over the extension byte ranges (0x8141…0xC652).

const TRAILS = 190; // 0x41…0xFE
let table: Uint16Array | undefined;

const index = (lead: number, trail: number) => (lead - 0x81) * TRAILS + (trail - 0x41);

function buildTable(): Uint16Array {
  const t = new Uint16Array(126 * TRAILS);
  const ksx = new TextDecoder('euc-kr');
  const known = new Set<number>();
  for (let lead = 0xa1; lead <= 0xfe; lead++) {
    for (let trail = 0xa1; trail <= 0xfe; trail++) {
      const s = ksx.decode(new Uint8Array([lead, trail]));
      const c = s.length === 1 ? s.charCodeAt(0) : 0xfffd;
      if (c === 0xfffd) continue;
      t[index(lead, trail)] = c;
      known.add(c);
    }
  }
  // Added to CP949 after KS X 1001 (Windows' euro and registered signs).
  t[index(0xa2, 0xe6)] = 0x20ac;
  t[index(0xa2, 0xe7)] = 0x00ae;

  let syllable = 0xac00;
  const nextMissing = () => {
    while (syllable <= 0xd7a3 && known.has(syllable)) syllable++;
    return syllable <= 0xd7a3 ? syllable++ : 0;
  };
  for (let lead = 0x81; lead <= 0xc6; lead++) {
    const lastTrail = lead <= 0xa0 ? 0xfe : 0xa0;
    for (let trail = 0x41; trail <= lastTrail; trail++) {
      if ((trail > 0x5a && trail < 0x61) || (trail > 0x7a && trail < 0x81)) continue;
      const c = nextMissing();
      if (c === 0) return t;
      t[index(lead, trail)] = c;
    }
  }
  return t;
}

/** Decodes CP949, or returns undefined at the first byte sequence CP949 does not define. */
export function decodeCp949(bytes: Uint8Array): string | undefined {
  table ??= buildTable();
  const out = new Uint16Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      out[n++] = b;
      continue;
    }
    const trail = bytes[++i];
    if (b < 0x81 || b > 0xfe || trail === undefined || trail < 0x41 || trail > 0xfe)
      return undefined;
    const c = table[index(b, trail)] ?? 0;
    if (c === 0) return undefined;
    out[n++] = c;
  }
  return new TextDecoder('utf-16le').decode(out.subarray(0, n));
}
