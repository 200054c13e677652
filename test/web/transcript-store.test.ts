// The web chat's transcript on both stores: threads and messages come back after a restart, a
// streamed answer is one record written when it settles, and a thread kept in the older layout
// (one record for every thread, one for each thread's messages) still opens and is kept anew.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Transcript } from '../../adapters/web/transcript.ts';
import { INDEX_PAGE, type TranscriptStore } from '../../adapters/web/transcript-records.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestRedis } from '../support/redis-server.ts';

/** The store as the transcript sees it, noting every key written. */
function watched(store: Store): { kv: TranscriptStore; written: string[] } {
  const written: string[] = [];
  const kv: TranscriptStore = {
    get: (k) => store.kv.get(k),
    getMany: (ks) => store.kv.getMany(ks),
    set: (k, v) => {
      written.push(k);
      return store.kv.set(k, v);
    },
    delete: (k) => store.kv.delete(k),
  };
  return { kv, written };
}

function transcriptContract(
  name: string,
  open: () => Promise<{ url: string; cleanup: () => Promise<void> }>,
): void {
  describe(`web transcript on ${name}`, () => {
    let url: string;
    let cleanup: () => Promise<void>;
    let store: Store;
    // Each test its own project, so a shared Redis holds nothing of another run.
    const projects: string[] = [];
    const project = () => {
      const p = `web:t${randomUUID()}`;
      projects.push(p);
      return p;
    };
    const fail = (err: unknown) => assert.fail(String(err));

    before(async () => {
      ({ url, cleanup } = await open());
      store = await createStore(url);
    });
    after(async () => {
      for (const p of projects) await store.deletePrefix(`${p}:`);
      await store.close();
      await cleanup();
    });

    test('threads, messages and a streamed answer come back after a restart', async () => {
      const prefix = project();
      const { kv, written } = watched(store);
      const first = new Transcript(kv, prefix, fail);
      const t = await first.createThread();
      await first.addPersonMessage(t.id, { text: 'remember HERON', clientId: 'c1' });
      const answer = await first.addBotMessage(t.id, 'It', true);
      await first.flush();
      const before = written.length;
      for (const piece of [' is', ' a', ' heron', '.']) await first.append(t.id, answer.id, piece);
      await first.flush();
      assert.equal(written.length, before, 'streamed pieces reach the page, not the store');
      await first.update(t.id, answer.id, (m) => {
        delete m.streaming;
        m.sources = ['a page'];
      });
      await first.flush();
      assert.deepEqual(written.slice(before), [`${prefix}:message:${t.id}:${answer.id}`]);

      const reopened = await createStore(url);
      try {
        const again = new Transcript(reopened.kv, prefix, fail);
        const threads = await again.list();
        assert.deepEqual(
          threads.map((x) => [x.id, x.title]),
          [[t.id, 'remember HERON']],
        );
        const messages = await again.messages(t.id);
        assert.deepEqual(
          messages.map((m) => [m.author, m.text, m.streaming ?? false, m.sources ?? []]),
          [
            ['person', 'remember HERON', false, []],
            ['bot', 'It is a heron.', false, ['a page']],
          ],
        );
        const repeated = await again.addPersonMessage(t.id, { text: 'x', clientId: 'c1' });
        assert.equal(repeated.repeated, true, 'a repeated send is still one message');
      } finally {
        await reopened.close();
      }
    });

    test('a deleted message stays deleted after a restart', async () => {
      const prefix = project();
      const first = new Transcript(store.kv, prefix, fail);
      const t = await first.createThread();
      await first.addPersonMessage(t.id, { text: 'keep' });
      const status = await first.addBotMessage(t.id, 'working…');
      await first.update(t.id, status.id, (m) => {
        m.text = 'still working…';
      });
      await first.remove(t.id, status.id);
      await first.flush();
      const again = new Transcript(store.kv, prefix, fail);
      assert.deepEqual(
        (await again.messages(t.id)).map((m) => m.text),
        ['keep'],
      );
    });

    test('more threads than an index page come back in order; a new one writes one page', async () => {
      const prefix = project();
      const { kv, written } = watched(store);
      const first = new Transcript(kv, prefix, fail);
      const made: string[] = [];
      for (let i = 0; i < INDEX_PAGE + 3; i++) made.push((await first.createThread()).id);
      await first.flush();
      const before = written.length;
      made.push((await first.createThread()).id);
      await first.flush();
      assert.deepEqual(
        written.slice(before).sort(),
        [`${prefix}:thread-index:1`, `${prefix}:thread:${made.at(-1)}`].sort(),
        'the new thread and its index page, not every thread id',
      );
      const again = new Transcript(store.kv, prefix, fail);
      assert.deepEqual(
        (await again.list()).map((t) => t.id),
        made,
      );
    });

    test('threads indexed in one record (the previous layout) open, and are indexed in pages', async () => {
      const prefix = project();
      const threads = [randomUUID(), randomUUID()].map((id, i) => ({
        id,
        title: `thread ${i}`,
        createdAt: i,
        updatedAt: i,
      }));
      for (const t of threads) await store.kv.set(`${prefix}:thread:${t.id}`, t);
      await store.kv.set(
        `${prefix}:thread-index`,
        threads.map((t) => t.id),
      );
      const first = new Transcript(store.kv, prefix, fail);
      assert.deepEqual(await first.list(), threads);
      const added = await first.createThread();
      await first.flush();
      assert.equal(await store.kv.get(`${prefix}:thread-index`), undefined);
      const again = new Transcript(store.kv, prefix, fail);
      assert.deepEqual(
        (await again.list()).map((t) => t.id),
        [...threads.map((t) => t.id), added.id],
      );
    });

    test('a thread stored in the older one-record layout opens, and is kept in the new one', async () => {
      const prefix = project();
      const id = randomUUID();
      const thread = { id, title: 'old thread', createdAt: 1, updatedAt: 2 };
      const messages = [
        { id: '00000000000a', author: 'person', text: 'old question', at: 1 },
        { id: '00000000000b', author: 'bot', text: 'old answer', at: 2, votes: [] },
      ];
      await store.kv.set(`${prefix}:threads`, [thread]);
      await store.kv.set(`${prefix}:transcript:${id}`, messages);

      const first = new Transcript(store.kv, prefix, fail);
      assert.deepEqual(await first.list(), [thread]);
      assert.deepEqual(
        (await first.messages(id)).map((m) => m.text),
        ['old question', 'old answer'],
      );
      await first.addPersonMessage(id, { text: 'new question' });
      await first.flush();
      assert.equal(await store.kv.get(`${prefix}:threads`), undefined);
      assert.equal(await store.kv.get(`${prefix}:transcript:${id}`), undefined);

      const again = new Transcript(store.kv, prefix, fail);
      assert.deepEqual(
        (await again.list()).map((t) => t.title),
        ['old thread'],
      );
      assert.deepEqual(
        (await again.messages(id)).map((m) => m.text),
        ['old question', 'old answer', 'new question'],
      );
    });
  });
}

transcriptContract('SQLite', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-web-transcript-'));
  return {
    url: `sqlite://${path.join(dir, 'threadmind.db')}`,
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

transcriptContract('Redis', async () => {
  const redis = await startTestRedis();
  return { url: redis.url, cleanup: () => redis.stop() };
});
