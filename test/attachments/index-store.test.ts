// The attachment index contract, run on SQLite and on a real Redis: the same behaviour on both.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  AttachmentIndex,
  attachmentKeys,
  type NewAttachment,
  ownerKey,
} from '../../src/attachments/index/index.ts';
import type { ExtractedSection } from '../../src/attachments/types.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestRedis } from '../support/redis-server.ts';

type Open = () => Promise<{ store: Store; cleanup: () => Promise<void> }>;

const FILLER =
  'The team met on Monday to review the quarterly report and discuss the deployment schedule. ';

function file(id: string, name = `${id}.txt`): NewAttachment {
  return { fileId: id, filename: name, kind: 'text', mime: 'text/plain', bytes: 100 };
}

function text(...parts: string[]): ExtractedSection[] {
  return parts.map((t, i) => ({ text: t, page: i + 1 }));
}

function indexContract(name: string, open: Open): void {
  describe(`attachment index: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let tick = 1_000;
    const now = () => tick++;
    const owners = () => {
      const base = `slack:T${randomUUID()}`;
      const session: Owner = { kind: 'session', key: `${base}:C1:1700.1` };
      const channel: Owner = { kind: 'channel', key: `${base}:C1` };
      const project: Owner = { kind: 'project', key: base };
      return { session, channel, project, all: [session, channel, project] };
    };

    before(async () => {
      ({ store, cleanup } = await open());
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    test('Korean queries match inside longer words', async () => {
      const ix = new AttachmentIndex(store, { now });
      const { session } = owners();
      await ix.addFile(
        session,
        file('hr'),
        text('연차휴가 규정은 다음과 같다. 직원은 매년 15일을 쓴다.'),
      );
      await ix.addFile(session, file('menu'), text('오늘 점심 메뉴는 김치찌개와 된장국이다.'));
      const hits = await ix.search([session], '휴가 규정', 5);
      assert.equal(hits.length, 1);
      assert.equal(hits[0]?.fileId, 'hr');
      assert.match(hits[0]?.passage ?? '', /연차휴가 규정은/);
      assert.equal(hits[0]?.page, 1);
    });

    test('the chunk holding the rare term ranks first, with page and offsets', async () => {
      const ix = new AttachmentIndex(store, { now });
      const { channel } = owners();
      const pages = Array.from({ length: 6 }, (_, i) =>
        i === 4
          ? `${FILLER}The rollout uses Kubernetes operators. ${FILLER}`
          : `${FILLER.repeat(3)}Page ${i + 1} ends here.`,
      );
      await ix.addFile(channel, file('report', 'report.pdf'), text(...pages));
      // Chunks holding only "deployment" (every page says it) are below the relevance floor.
      const relevant = await ix.search([channel], 'deployment kubernetes', 3);
      assert.deepEqual(
        relevant.map((h) => h.page),
        [5],
      );
      const hits = await ix.search([channel], 'deployment kubernetes', 3, {
        relevanceFloor: false,
        maxChars: 1_000, // less than the whole file, so it comes in passages
      });
      assert.equal(hits.length, 3);
      assert.equal(hits[0]?.page, 5);
      assert.match(hits[0]?.passage ?? '', /Kubernetes/);
      assert.ok((hits[0]?.score ?? 0) > (hits[1]?.score ?? 0));
      assert.equal(hits[0]?.filename, 'report.pdf');
      assert.ok((hits[0]?.end ?? 0) > (hits[0]?.start ?? 0));
      // Equal scores come back in page order, every time.
      assert.deepEqual(
        hits.slice(1).map((h) => h.page),
        [1, 2],
      );
      assert.equal((await ix.search([channel], 'deployment', 2, { maxChars: 1_000 })).length, 2);
      // Within the default budget the whole file is small enough to be given whole, once.
      const whole = await ix.search([channel], 'deployment', 2);
      assert.equal(whole.length, 1);
      assert.equal(whole[0]?.whole, true);
      assert.deepEqual(await ix.search([channel], 'the of and', 5), []);
    });

    test('owners are isolated and hits say which owner they came from', async () => {
      const ix = new AttachmentIndex(store, { now });
      const a = owners();
      const b = owners();
      await ix.addFile(a.session, file('secret'), text('Zanzibar launch codes are here.'));
      await ix.addFile(b.session, file('s'), text('Session notes mention zanzibar once.'));
      await ix.addFile(b.channel, file('c'), text('Channel file: zanzibar zanzibar.'));
      await ix.addFile(b.project, file('p'), text('Project wiki on Zanzibar.'));
      assert.deepEqual(await ix.search([a.channel, a.project, b.session], 'launch codes', 5), []);
      const hits = await ix.search(b.all, 'zanzibar', 10);
      assert.deepEqual(hits.map((h) => h.fileId).sort(), ['c', 'p', 's']);
      for (const h of hits) {
        const expected = { s: b.session, c: b.channel, p: b.project }[h.fileId as 's' | 'c' | 'p'];
        assert.deepEqual(h.owner, expected);
      }
      assert.deepEqual(
        (await ix.listFiles([b.channel])).map((f) => f.fileId),
        ['c'],
      );
    });

    test('lists images (not searchable) and files newest last; re-adding replaces', async () => {
      const ix = new AttachmentIndex(store, { now });
      const o = owners();
      const img = await ix.addFile(o.channel, { ...file('img', 'a.png'), kind: 'image' }, []);
      assert.equal(img.chunks, 0);
      assert.deepEqual(img.owner, o.channel);
      await ix.addFile(o.session, { ...file('doc'), pages: 2 }, text('alpha beta', 'gamma'));
      await ix.addFile(o.project, file('old'), text('first version'));
      await ix.addFile(o.project, file('old'), text('second version'));
      const listed = await ix.listFiles(o.all);
      assert.deepEqual(
        listed.map((f) => [f.fileId, f.chunks, f.owner.kind]),
        [
          ['img', 0, 'channel'],
          ['doc', 2, 'session'],
          ['old', 1, 'project'],
        ],
      );
      assert.equal(listed[1]?.pages, 2);
      assert.deepEqual(await ix.search(o.all, 'png', 5), []);
      assert.deepEqual(await ix.search(o.all, 'first', 5), []);
      assert.equal((await ix.search(o.all, 'second', 5))[0]?.fileId, 'old');
    });

    test('another instance on the same store sees new files and removals', async () => {
      const mine = new AttachmentIndex(store, { now });
      const theirs = new AttachmentIndex(store, { now });
      const o = owners();
      await mine.addFile(o.session, file('one'), text('orchid greenhouse notes'));
      assert.equal((await theirs.search(o.all, 'orchid', 5)).length, 1); // warm their cache
      assert.equal((await mine.search(o.all, 'orchid', 5)).length, 1);
      await theirs.addFile(o.channel, file('two'), text('orchid watering plan'));
      await theirs.addFile(o.session, file('three'), text('orchid repotting'));
      assert.deepEqual((await mine.search(o.all, 'orchid', 5)).map((h) => h.fileId).sort(), [
        'one',
        'three',
        'two',
      ]);
      await theirs.removeOwner(o.session);
      assert.deepEqual(
        (await mine.search(o.all, 'orchid', 5)).map((h) => h.fileId),
        ['two'],
      );
    });

    test('concurrent uploads to one owner from two instances all land', async () => {
      const a = new AttachmentIndex(store, { now });
      const b = new AttachmentIndex(store, { now });
      const o = owners();
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? a : b).addFile(o.channel, file(`f${i}`), text(`parallel upload ${i}`)),
        ),
      );
      assert.equal((await a.listFiles([o.channel])).length, 12);
      assert.equal((await b.search([o.channel], 'parallel', 20)).length, 12);
    });

    test('removeOwner deletes its keys and leaves other owners alone', async () => {
      const ix = new AttachmentIndex(store, { now });
      const o = owners();
      await ix.addFile(o.session, file('gone'), text('walrus migration'));
      await ix.addFile(o.channel, file('kept'), text('walrus habitat'));
      await ix.search(o.all, 'walrus', 5);
      await ix.removeOwner(o.session);
      const ok = ownerKey(o.session);
      for (const key of [
        attachmentKeys.files(ok),
        attachmentKeys.version(ok),
        attachmentKeys.chunks(ok, 'gone'),
      ]) {
        assert.equal(await store.kv.get(key), undefined, key);
      }
      assert.deepEqual(
        (await ix.search(o.all, 'walrus', 5)).map((h) => h.fileId),
        ['kept'],
      );
      assert.deepEqual(await ix.listFiles([o.session]), []);
      await ix.removeOwner(o.session); // removing twice is harmless
    });

    test('a small cache still answers correctly for many owners', async () => {
      // Room for about two of these owners' indexes.
      const ix = new AttachmentIndex(store, { now, cacheBytes: 1_500 });
      const list = Array.from({ length: 5 }, () => owners().session);
      for (const [i, o] of list.entries()) await ix.addFile(o, file(`f${i}`), text(`heron ${i}`));
      for (let round = 0; round < 2; round++) {
        for (const [i, o] of list.entries()) {
          assert.deepEqual(
            (await ix.search([o], 'heron', 5)).map((h) => h.fileId),
            [`f${i}`],
          );
        }
      }
    });
  });
}

indexContract('SQLite', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-index-'));
  return {
    store: await createStore(`sqlite://${path.join(dir, 'state.db')}`),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

indexContract('Redis', async () => {
  const redis = await startTestRedis();
  return { store: await createStore(redis.url), cleanup: () => redis.stop() };
});
