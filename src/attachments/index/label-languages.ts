// Each chunk gets the language its words are read in. A chunk too short or too mixed to tell takes
// its file's most common language, so a table row or a heading is stemmed like the text around it.
import type { Chunk } from './chunk.ts';
import { detectLanguage } from './language.ts';
import { timeSlicer } from './time-slice.ts';

function majority(langs: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const l of langs) if (l) counts.set(l, (counts.get(l) ?? 0) + 1);
  let best = '';
  let n = 0;
  for (const [l, c] of counts) if (c > n) [best, n] = [l, c];
  return best;
}

/** Copies of `chunks` with `lang` set, detected in time slices. */
export async function labelLanguages(chunks: readonly Chunk[]): Promise<Chunk[]> {
  const pause = timeSlicer();
  const langs: string[] = [];
  for (const c of chunks) {
    langs.push(detectLanguage(c.text).lang);
    await pause();
  }
  const fallback = majority(langs);
  return chunks.map((c, i) => ({ ...c, lang: langs[i] || fallback }));
}

/** The same, at once: for chunks stored before languages were recorded (read once per process). */
export function labelLanguagesNow(chunks: readonly Chunk[]): Chunk[] {
  if (chunks.every((c) => c.lang !== undefined)) return chunks as Chunk[];
  const langs = chunks.map((c) => c.lang ?? detectLanguage(c.text).lang);
  const fallback = majority(langs);
  return chunks.map((c, i) => ({ ...c, lang: langs[i] || fallback }));
}
