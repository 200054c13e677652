// Hybrid attachment search as the model and the operator notice it: fusion puts the chunk both
// rankings found first, another owner's chunk never appears however close its vector, a broken
// embedding endpoint leaves search by words (logged once a minute), and a new embedding model's
// vectors are never compared with the old ones'.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { fuse } from '../../src/attachments/index/fusion.ts';
import { AttachmentIndex, attachmentKeys, ownerKey } from '../../src/attachments/index/index.ts';
import type { AttachmentRecord } from '../../src/attachments/types.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { HashingEmbedder } from '../support/hashing-embedder.ts';
import { BrokenEmbedder, TableEmbedder } from './fake-embedders.ts';
import { capturingLogger, textFile } from './index-fixtures.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(() => store.close());

const owners = () => {
  const base = `slack:T${randomUUID().slice(0, 8)}`;
  const session: Owner = { kind: 'session', key: `${base}:C1:1700.1` };
  const channel: Owner = { kind: 'channel', key: `${base}:C1` };
  const project: Owner = { kind: 'project', key: base };
  return { session, channel, project, all: [session, channel, project] };
};

const file = textFile;

// Query "refund window" points along the first axis.
const table = (id = 'table-v1') =>
  new TableEmbedder(
    id,
    [
      ['refund window', [1, 0, 0, 0]],
      ['billing', [0.8, 0.6, 0, 0]],
      ['money back', [0.95, 0.31, 0, 0]],
      ['emphasis', [0, 0, 1, 0]],
    ],
    [0, 0, 0, 1],
  );

describe('fusion', () => {
  test('reciprocal-rank fusion puts a chunk found by both rankings above either list’s first', () => {
    const lexical = [
      { segment: 0, doc: 1, score: 9, coverage: 1 },
      { segment: 0, doc: 0, score: 5, coverage: 1 },
    ];
    const vector = [
      { segment: 0, doc: 2, score: 0.95 },
      { segment: 0, doc: 0, score: 0.8 },
    ];
    const fused = fuse(lexical, vector);
    assert.deepEqual(
      fused.map((f) => f.doc),
      [0, 1, 2],
    );
    assert.deepEqual(fused[0]?.lexical?.rank, 2);
    assert.deepEqual(fused[0]?.vector?.rank, 2);
  });

  test('through the index: words-only, vector-only and both, and the both-found chunk first', async () => {
    const embedder = table();
    const ix = new AttachmentIndex(store, { embedder });
    const o = owners();
    await ix.addFile(o.channel, file('both'), [
      { text: 'Refunds: the window is thirty days; ask billing.' },
    ]);
    await ix.addFile(o.channel, file('words'), [
      { text: 'Refund: the window. Refund, window, refund, window: said for emphasis.' },
    ]);
    await ix.addFile(o.channel, file('meaning'), [
      { text: 'You get your money back within a month.' },
    ]);
    const hybrid = await ix.search(o.all, 'refund window', 5);
    assert.deepEqual(
      hybrid.map((h) => h.fileId),
      ['both', 'words', 'meaning'],
    );
    assert.ok(hybrid[0]?.lexical && hybrid[0].vector, 'found by both');
    assert.equal(hybrid[1]?.vector, undefined);
    assert.equal(hybrid[2]?.lexical, undefined);
    const lexical = await ix.search(o.all, 'refund window', 5, { mode: 'lexical' });
    assert.equal(lexical[0]?.fileId, 'words', 'words alone prefer the repetition');
    assert.ok(!lexical.some((h) => h.fileId === 'meaning'));
    const vector = await ix.search(o.all, 'refund window', 5, { mode: 'vector' });
    assert.deepEqual(
      vector.map((h) => h.fileId),
      ['meaning', 'both'],
    );
    // The query was embedded as a query, the chunks as documents.
    assert.ok(embedder.calls.some((c) => c.purpose === 'query' && c.texts[0] === 'refund window'));
    assert.equal(embedder.documents().length, 3);
  });
});

describe('who votes in fusion', () => {
  test('a chunk sharing one stray word ranks below the vector ranking’s answer, yet is not lost', async () => {
    const ix = new AttachmentIndex(store, { embedder: table() });
    const o = owners();
    // Two files hold "refund" alone, three "window" alone: each holds ~0.6 or ~0.4 of the query.
    await ix.addFile(o.channel, file('stray'), [{ text: 'Refund forms are on the intranet.' }]);
    await ix.addFile(o.channel, file('stray2'), [{ text: 'Refund policy: see the handbook.' }]);
    await ix.addFile(o.channel, file('answer'), [
      { text: 'You get your money back within a month of the purchase.' },
    ]);
    for (const id of ['w1', 'w2', 'w3']) {
      await ix.addFile(o.channel, file(id), [{ text: `A window is a pane of glass, ${id}.` }]);
    }
    const hits = await ix.search(o.all, 'refund window', 5);
    const ids = hits.map((h) => h.fileId);
    assert.equal(ids[0], 'answer', ids.join());
    assert.deepEqual(ids.slice(1).sort(), ['stray', 'stray2'], 'still given, after the fused ones');
    const stray = hits.find((h) => h.fileId === 'stray');
    assert.ok(stray?.lexical && stray.lexical.coverage >= 0.5 && stray.lexical.coverage < 0.7);
  });
});

describe('isolation under hybrid search', () => {
  test('another owner’s chunk never comes back, even when its vector is the nearest', async () => {
    const ix = new AttachmentIndex(store, { embedder: table() });
    const mine = owners();
    const theirs = owners();
    await ix.addFile(theirs.session, file('secret'), [
      { text: 'Money back: the refund window secret is PELICAN.' },
    ]);
    await ix.addFile(mine.session, file('mine'), [{ text: 'Our billing notes for the team.' }]);
    for (const mode of ['hybrid', 'vector', 'lexical'] as const) {
      for (const relevanceFloor of [true, false]) {
        const hits = await ix.search(mine.all, 'refund window', 10, { mode, relevanceFloor });
        assert.ok(
          hits.every((h) => h.fileId === 'mine' && !h.passage.includes('PELICAN')),
          `${mode}, floor ${relevanceFloor}: ${hits.map((h) => h.fileId)}`,
        );
      }
    }
    assert.equal((await ix.search(theirs.all, 'refund window', 10))[0]?.fileId, 'secret');
  });
});

describe('a broken embedding endpoint', () => {
  for (const how of ['throws', 'hangs', 'wrong-count', 'mixed-dims'] as const) {
    test(`${how}: files are still added and searched by words, and the log says so once`, async () => {
      const { log, lines } = capturingLogger();
      const embedder = new BrokenEmbedder(how);
      const ix = new AttachmentIndex(store, {
        embedder,
        log,
        queryTimeoutMs: 50,
        embedTimeoutMs: 50,
      });
      const o = owners();
      const rec = await ix.addFile(o.channel, file('doc'), [
        { text: 'The refund window is thirty days.' },
        { text: 'Holidays are listed in the calendar.' },
      ]);
      assert.equal(rec.vectors, undefined, 'no vectors were stored');
      assert.equal(
        await store.kv.get(attachmentKeys.vectors(ownerKey(o.channel), 'doc')),
        undefined,
      );
      for (let i = 0; i < 3; i++) {
        const hits = await ix.search(o.all, 'refund window', 5);
        assert.equal(hits[0]?.fileId, 'doc');
        assert.match(hits[0]?.passage ?? '', /thirty days/);
      }
      assert.deepEqual(await ix.search(o.all, 'refund window', 5, { mode: 'vector' }), []);
      await ix.idle();
      const whats = lines
        .filter((l) => String(l.msg).includes('searching by words only'))
        .map((l) => String(l.what));
      assert.ok(whats.includes('attachment ingest'));
      // A single query text cannot have mixed dimensions; every other fault fails the query too.
      if (how !== 'mixed-dims') assert.ok(whats.includes('attachment search'));
      // Once per kind of work within the minute, however many searches failed.
      assert.equal(whats.length, new Set(whats).size, whats.join(', '));
    });
  }

  test('a query vector of another dimension than the stored ones: words only, logged', async () => {
    const { log, lines } = capturingLogger();
    const o = owners();
    await new AttachmentIndex(store, { embedder: new HashingEmbedder(32, 'same-id') }).addFile(
      o.channel,
      file('doc'),
      [{ text: 'The refund window is thirty days.' }],
    );
    // The same id answering with 64 dimensions now: never compared with the 32-dimension vectors.
    const ix = new AttachmentIndex(store, { embedder: new HashingEmbedder(64, 'same-id'), log });
    const hits = await ix.search(o.all, 'refund window', 5);
    assert.equal(hits[0]?.fileId, 'doc');
    assert.equal(hits[0]?.vector, undefined);
    assert.ok(lines.some((l) => /dimensions/.test(JSON.stringify(l))));
  });
});

describe('a new embedding model', () => {
  test('re-embeds lazily, never mixes the two models’ vectors, and drops the old ones', async () => {
    const o = owners();
    const ok = ownerKey(o.channel);
    // v1 puts "billing" next to the query; v2 puts "money back" there instead.
    const v1 = new TableEmbedder(
      'model-v1',
      [
        ['refund', [1, 0]],
        ['billing', [1, 0.05]],
      ],
      [0, 1],
    );
    const v2 = new TableEmbedder(
      'model-v2',
      [
        ['refund', [1, 0, 0]],
        ['money back', [1, 0, 0.05]],
      ],
      [0, 0, 1],
    );
    const old = new AttachmentIndex(store, { embedder: v1 });
    await old.addFile(o.channel, file('billing'), [{ text: 'Questions go to billing.' }]);
    await old.addFile(o.channel, file('money'), [{ text: 'You get your money back.' }]);
    assert.deepEqual(
      (await old.search(o.all, 'refund', 5, { mode: 'vector' })).map((h) => h.fileId),
      ['billing'],
    );

    const ix = new AttachmentIndex(store, { embedder: v2 });
    // Before re-embedding finishes, no v1 vector answers a v2 query.
    const first = await ix.search(o.all, 'refund', 5, { mode: 'vector', relevanceFloor: false });
    assert.ok(!first.some((h) => h.fileId === 'billing' && (h.vector?.cosine ?? 0) > 0.5));
    await ix.idle();
    assert.deepEqual(
      (await ix.search(o.all, 'refund', 5, { mode: 'vector' })).map((h) => h.fileId),
      ['money'],
    );
    assert.deepEqual(v2.documents().sort(), [
      'Questions go to billing.',
      'You get your money back.',
    ]);
    const files = (await store.kv.get(attachmentKeys.files(ok))) as AttachmentRecord[];
    assert.deepEqual(
      files.map((f) => f.vectors),
      ['model-v2', 'model-v2'],
    );
    for (const id of ['billing', 'money']) {
      const stored = (await store.kv.get(attachmentKeys.vectors(ok, id))) as { model: string };
      assert.equal(stored.model, 'model-v2', 'the old vectors were replaced');
    }
    // The replica still on v1 never compares its query with v2 vectors either; it re-embeds back.
    const back = await old.search(o.all, 'refund', 5, { mode: 'vector', relevanceFloor: false });
    assert.ok(!back.some((h) => h.fileId === 'money' && (h.vector?.cosine ?? 0) > 0.5));
    await old.idle();
  });

  test('a file added while the endpoint was down gets its vectors on a later search', async () => {
    const o = owners();
    await new AttachmentIndex(store, { embedder: new BrokenEmbedder('throws') }).addFile(
      o.channel,
      file('late'),
      [{ text: 'The refund window is thirty days.' }],
    );
    const ix = new AttachmentIndex(store, { embedder: table() });
    await ix.search(o.all, 'anything', 5);
    await ix.idle();
    const hits = await ix.search(o.all, 'refund window', 5, { mode: 'vector' });
    assert.equal(hits[0]?.fileId, 'late');
  });
});
