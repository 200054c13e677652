// Sentence vectors as a user notices them: the one sentence of a long passage that answers a
// question asked in other words finds that passage, though the passage as a whole reads as about
// something else; the vectors survive the store (a restarted replica finds the same); and a stored
// value with broken sentence vectors still searches by its chunk vectors.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AttachmentIndex } from '../../src/attachments/index/index.ts';
import {
  chunkScore,
  decodeVectors,
  encodeVectors,
  quantise,
} from '../../src/attachments/index/vectors.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { TableEmbedder } from './fake-embedders.ts';
import { textFile } from './index-fixtures.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(() => store.close());

const owner = (): Owner => ({ kind: 'channel', key: `slack:T${randomUUID().slice(0, 8)}:C1` });

// The first rule a text contains gives its vector: the whole passage mentions office hours first,
// so it reads as being about them; only its second sentence, alone, reads as about refunds.
const table = () =>
  new TableEmbedder(
    'table-v1',
    [
      ['office hours', [0, 1, 0]],
      ['money back', [1, 0, 0]],
    ],
    [0, 0, 1],
  );

const HANDBOOK =
  'The office hours are nine to five on weekdays. Ask the billing team to get your money back ' +
  'within 30 days of the purchase. Parking behind the building is free for visitors.';

describe('sentence vectors', () => {
  test('a passage whose one sentence answers is found by meaning, first', async () => {
    const embedder = table();
    const ix = new AttachmentIndex(store, { embedder, sentenceVectors: true });
    const o = owner();
    await ix.addFile(o, textFile('handbook'), [{ text: HANDBOOK, heading: 'Billing' }]);
    await ix.addFile(o, textFile('faq'), [{ text: 'Forms live on the intranet.' }]);
    const hits = await ix.search([o], 'money back', 5, { mode: 'vector' });
    assert.deepEqual(
      hits.map((h) => h.fileId),
      ['handbook'],
    );
    // Each sentence was embedded on its own, under the chunk's heading.
    assert.ok(
      embedder
        .documents()
        .includes(
          'Billing\nAsk the billing team to get your money back within 30 days of the purchase.',
        ),
    );

    // Without sentence vectors the same passage reads as about office hours only.
    const plain = new AttachmentIndex(store, { embedder: table() });
    const p = owner();
    await plain.addFile(p, textFile('handbook'), [{ text: HANDBOOK, heading: 'Billing' }]);
    assert.deepEqual(await plain.search([p], 'money back', 5, { mode: 'vector' }), []);
  });

  test('a restarted replica reads them from the store and embeds nothing again', async () => {
    const o = owner();
    await new AttachmentIndex(store, { embedder: table(), sentenceVectors: true }).addFile(
      o,
      textFile('handbook'),
      [{ text: HANDBOOK }],
    );
    const embedder = table();
    const restarted = new AttachmentIndex(store, { embedder, sentenceVectors: true });
    const hits = await restarted.search([o], 'money back', 5, { mode: 'vector' });
    assert.deepEqual(
      hits.map((h) => h.fileId),
      ['handbook'],
    );
    assert.deepEqual(embedder.documents(), []);
  });

  test('a chunk scores the mean of its own cosine and its best sentence’s', () => {
    const unit = (...xs: number[]) => Float32Array.from(xs);
    const v = quantise('m', [unit(0, 1, 0), unit(1, 0, 0)], {
      starts: Uint32Array.from([0, 2, 2]),
      vectors: [unit(1, 0, 0), unit(0, 0, 1)],
    });
    const q = unit(1, 0, 0);
    assert.ok(Math.abs(chunkScore(v, 0, q) - 0.5) < 0.01, 'chunk 0: (0 + 1) / 2');
    assert.ok(Math.abs(chunkScore(v, 1, q) - 1) < 0.01, 'chunk 1 has no sentences: its cosine');

    const stored = encodeVectors(v);
    const back = decodeVectors(JSON.parse(JSON.stringify(stored)), 2);
    assert.ok(back && Math.abs(chunkScore(back, 0, q) - 0.5) < 0.01, 'the same after the store');
    // Sentence vectors that do not fit leave the chunk vectors, scored alone.
    const broken = decodeVectors({ ...stored, sentences: { ...stored.sentences, count: 5 } }, 2);
    assert.ok(broken && broken.sentences === undefined);
    assert.ok(Math.abs(chunkScore(broken, 0, q)) < 0.01);
  });
});
