// What the model reads of a hit: whole sentences, never a fragment; the answer that follows the
// matching words, not an excerpt stopping before it; a bounded amount per search; a small file
// whole.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AttachmentIndex, chunkSections } from '../../src/attachments/index/index.ts';
import { passageFor } from '../../src/attachments/index/passage.ts';
import { buildSegment } from '../../src/attachments/index/segment.ts';
import { sentenceSpans } from '../../src/attachments/index/sentences.ts';
import type { AttachmentRecord } from '../../src/attachments/types.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { mulberry32 } from '../support/prng.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(() => store.close());

const SEED = 0x9a55;
const random = mulberry32(SEED);
const WORDS =
  'budget review travel policy server incident vendor contract approval invoice schedule audit network backup storage cluster pipeline roadmap ticket support'.split(
    ' ',
  );

/** A sentence of 6–30 words, capitalised, ending in . ! or ? */
function sentence(): string {
  const n = 6 + Math.floor(random() * 25);
  const words = Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]);
  const s = words.join(' ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${'.!?'.charAt(Math.floor(random() * 3))}`;
}

const record = (chunks: number): AttachmentRecord => ({
  fileId: 'f',
  filename: 'f.txt',
  kind: 'text',
  mime: 'text/plain',
  bytes: 1,
  chunks,
  addedAt: 1,
  owner: { kind: 'channel', key: 'slack:T:C' },
});

describe('sentences', () => {
  test('end at . ! ? and CJK marks, not after abbreviations, initials or before lower case', () => {
    const text =
      'See e.g. the annex. Dr. Smith agreed! Version 4.2 ships soon? J. R. Doe wrote it. 연차는 15일이다. 次へ。Done';
    const parts = sentenceSpans(text).map((s) => text.slice(s.start, s.end));
    assert.deepEqual(parts, [
      'See e.g. the annex.',
      'Dr. Smith agreed!',
      'Version 4.2 ships soon?',
      'J. R. Doe wrote it.',
      '연차는 15일이다.',
      '次へ。',
      'Done',
    ]);
  });
});

describe('passages', () => {
  test(`every chunk's passage is whole sentences and at most the cap (seed ${SEED})`, async () => {
    const text = Array.from({ length: 300 }, sentence).join(' ');
    const sentencesOf = new Set(sentenceSpans(text).map((s) => text.slice(s.start, s.end)));
    const chunks = chunkSections([{ text }]);
    const seg = await buildSegment(record(chunks.length), chunks);
    const weights = new Map([
      ['audit', 2],
      ['roadmap', 1],
    ]);
    for (const cap of [300, 700, 1200]) {
      for (let doc = 0; doc < chunks.length; doc++) {
        const p = passageFor(seg, doc, weights, cap);
        assert.ok(p, `chunk ${doc}`);
        assert.ok(p.text.length <= cap, `${p.text.length} > ${cap}`);
        assert.equal(text.slice(p.start, p.end), p.text);
        // Made of whole sentences of the text: it starts where one starts and ends where one ends.
        const starts = [...sentencesOf].some((s) => p.text.startsWith(s));
        const ends = [...sentencesOf].some((s) => p.text.endsWith(s));
        assert.ok(
          starts && ends,
          `cap ${cap}, chunk ${doc}: "${p.text.slice(0, 40)}…${p.text.slice(-40)}"`,
        );
        assert.match(p.text, /[.!?]$/);
      }
    }
  });

  test('the sentence after the matching one comes along, even across the chunk’s end', async () => {
    const filler = 'The team met on Monday to review the quarterly report. ';
    const text = `${filler.repeat(5)}To claim a refund, write to billing. Refunds are paid within 30 days of the request. ${filler.repeat(5)}`;
    const cut = text.indexOf(' Refunds are paid');
    // The chunk holding the question's words ends just before the answer.
    const chunks = [
      { text: text.slice(0, cut), start: 0, end: cut },
      { text: text.slice(cut + 1).trimEnd(), start: cut + 1, end: text.trimEnd().length },
    ];
    const seg = await buildSegment(record(chunks.length), chunks);
    const p = passageFor(seg, 0, new Map([['refund', 2]]), 700);
    assert.match(
      p?.text ?? '',
      /To claim a refund, write to billing\. Refunds are paid within 30 days/,
    );
  });

  test('a search returns at most its character budget, in whole passages', async () => {
    const ix = new AttachmentIndex(store, { maxChars: 2_000 });
    const o: Owner = { kind: 'channel', key: `slack:T${randomUUID().slice(0, 8)}:C1` };
    const sections = Array.from({ length: 20 }, (_, i) => ({
      text: Array.from({ length: 12 }, sentence).join(' '),
      page: i + 1,
    }));
    await ix.addFile(
      o,
      { fileId: 'big', filename: 'big.pdf', kind: 'pdf', mime: 'application/pdf', bytes: 1 },
      sections,
    );
    const hits = await ix.search([o], 'audit budget roadmap', 6);
    assert.ok(hits.length >= 2);
    const total = hits.reduce((n, h) => n + h.passage.length, 0);
    assert.ok(total <= 2_000, `${total}`);
    for (const h of hits) {
      assert.equal(h.whole, false);
      assert.match(h.passage, /^[A-Z][\s\S]*[.!?]$/);
      assert.ok(h.page !== undefined && h.page >= 1);
    }
  });

  test('a document small enough for the budget is given whole, once', async () => {
    const ix = new AttachmentIndex(store);
    const o: Owner = { kind: 'channel', key: `slack:T${randomUUID().slice(0, 8)}:C1` };
    const text = [
      'Travel policy.',
      'Book flights through the portal. Economy class is the rule for flights under six hours.',
      'Hotels are booked by the travel desk; receipts go into the expenses tool within 30 days.',
    ];
    await ix.addFile(
      o,
      { fileId: 'small', filename: 'travel.md', kind: 'text', mime: 'text/markdown', bytes: 1 },
      text.map((t, i) => ({ text: t, heading: `Part ${i + 1}` })),
    );
    const hits = await ix.search([o], 'receipts for hotels and flights', 6);
    assert.equal(hits.length, 1);
    assert.equal(hits[0]?.whole, true);
    assert.equal(hits[0]?.passage, text.join('\n\n'));
  });
});
