// Chunking and tokenising: the pure half of the attachment index.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { embeddingTexts } from '../../src/attachments/index/embed-texts.ts';
import {
  chunkSections,
  joinSections,
  SECTION_SEPARATOR,
  tokenize,
} from '../../src/attachments/index/index.ts';
import type { ExtractedSection } from '../../src/attachments/types.ts';

const SENTENCE = 'The committee reviewed the travel policy and approved the new budget. ';

describe('chunkSections', () => {
  const sections: ExtractedSection[] = [
    { text: SENTENCE.repeat(40), page: 1 },
    { text: '   \n  ', page: 2 },
    { text: 'A short page.', page: 3, heading: 'Summary' },
    {
      text: '연차휴가 규정은 다음과 같다. 직원은 매년 유급 휴가를 사용할 수 있다. '.repeat(50),
      page: 4,
    },
    { text: 'x'.repeat(1900) },
  ];
  const chunks = chunkSections(sections);
  const joined = joinSections(sections);

  test('offsets point into the joined section text', () => {
    assert.equal(joined, sections.map((s) => s.text).join(SECTION_SEPARATOR));
    for (const c of chunks) assert.equal(joined.slice(c.start, c.end), c.text);
  });

  test('chunks stay inside one section and keep its page and heading', () => {
    let base = 0;
    const ranges = sections.map((s) => {
      const r = { from: base, to: base + s.text.length, page: s.page, heading: s.heading };
      base += s.text.length + SECTION_SEPARATOR.length;
      return r;
    });
    for (const c of chunks) {
      const r = ranges.find((x) => c.start >= x.from && c.end <= x.to);
      assert.ok(r, `chunk ${c.start}-${c.end} crosses a section`);
      assert.equal(c.page, r.page);
      assert.equal(c.heading, r.heading);
    }
    assert.equal(chunks.filter((c) => c.page === 2).length, 0, 'blank section gives no chunk');
    assert.deepEqual(
      chunks.filter((c) => c.page === 3).map((c) => [c.text, c.heading]),
      [['A short page.', 'Summary']],
    );
  });

  test('~800 characters, ~100 overlap, cut at sentence or word boundaries', () => {
    const page1 = chunks.filter((c) => c.page === 1);
    assert.ok(page1.length >= 3);
    for (const c of chunks) assert.ok(c.text.length <= 850, `chunk of ${c.text.length}`);
    for (const c of page1.slice(0, -1)) assert.ok(c.text.length >= 400);
    for (let i = 1; i < page1.length; i++) {
      const prev = page1[i - 1]!;
      const cur = page1[i]!;
      const overlap = prev.end - cur.start;
      assert.ok(overlap > 0 && overlap <= 100, `overlap ${overlap}`);
      assert.ok(cur.text.startsWith('The committee'), 'starts at a sentence');
      assert.ok(prev.text.endsWith('budget.'), 'ends at a sentence');
    }
    for (const c of chunks.filter((x) => x.page === 4)) {
      assert.match(c.text, /^\S/);
      assert.match(c.text, /[.다]$/);
    }
  });

  test('text without any boundary is cut hard, and every character is covered', () => {
    const xs = chunks.filter((c) => c.text.startsWith('x'));
    assert.ok(xs.length >= 2);
    let covered = xs[0]!.start;
    for (const c of xs) {
      assert.ok(c.start <= covered);
      covered = c.end;
    }
    assert.equal(covered, joined.length);
  });

  test('honours targetChars and overlapChars', () => {
    const small = chunkSections([{ text: SENTENCE.repeat(10) }], {
      targetChars: 200,
      overlapChars: 0,
    });
    assert.ok(small.length >= 3);
    for (const c of small) assert.ok(c.text.length <= 200);
    for (let i = 1; i < small.length; i++) assert.ok(small[i]!.start >= small[i - 1]!.end);
  });

  test('never splits a surrogate pair', () => {
    const text = '𠀀'.repeat(1000);
    for (const c of chunkSections([{ text }])) {
      assert.equal(c.text, '𠀀'.repeat(c.text.length / 2));
    }
  });
});

describe('tokenize', () => {
  test('NFKC, lower case, stopwords dropped, plurals folded (Snowball)', () => {
    const terms = tokenize('The ＡＰＩ Policies of the Servers', 'en');
    assert.equal(terms.length, 3);
    assert.equal(terms[0], 'api');
    assert.deepEqual(terms, tokenize('api policy server', 'en'));
  });

  test('identifiers are found whole and by their parts', () => {
    assert.deepEqual(tokenize('max_tokens'), ['max_tokens', 'max', 'token']);
    // "get" is an English stop word, so only the meaningful parts are terms of their own.
    assert.deepEqual(tokenize('getUserName'), ['getusername', 'user', 'name']);
  });

  test('Hangul, Han and Kana runs become bigrams; a lone character stays whole', () => {
    assert.deepEqual(tokenize('연차휴가 규정'), ['연차', '차휴', '휴가', '규정']);
    assert.deepEqual(tokenize('東京タワー'), ['東京', '京タ', 'タワ', 'ワー']);
    assert.deepEqual(tokenize('법 API문서'), ['법', 'api', '문서']);
  });
});

describe('embeddingTexts', () => {
  test('every chunk is embedded whole, under its heading', () => {
    const chunks = chunkSections([{ text: SENTENCE.repeat(20), page: 2, heading: 'Travel' }]);
    const texts = embeddingTexts(chunks);
    assert.deepEqual(
      texts,
      chunks.map((c) => `Travel\n${c.text}`),
    );
  });
});
