// Attachment search figures: 10,000 chunks of mixed English/Korean text in a session, a channel
// and a project, on an SQLite store in a temp dir. Reports the cold build a new replica pays, warm
// search latency (the search_attachment target is p95 < 20 ms) and the cost of seeing an upload
// another replica made.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AttachmentIndex, type NewAttachment } from '../src/attachments/index/index.ts';
import { createStore } from '../src/compose/create-store.ts';
import type { Owner } from '../src/scope/scope.ts';
import { attachmentCorpus } from './corpora/attachment-corpus.ts';
import { fmt, percentile } from './stats.ts';

const CHUNKS = 10_000;
const SECTIONS_PER_FILE = 250;
const QUERIES = 500;
const WARMUP = 50;

function pdf(fileId: string, bytes: number): NewAttachment {
  const pages = SECTIONS_PER_FILE;
  return { fileId, filename: `${fileId}.pdf`, kind: 'pdf', mime: 'application/pdf', bytes, pages };
}

export async function benchSearch(): Promise<string[]> {
  const { section, query } = attachmentCorpus();
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-search-bench-'));
  const store = await createStore(`sqlite://${path.join(dir, 'state.db')}`);
  try {
    const project = 'slack:TBENCH';
    const owners: Owner[] = [
      { kind: 'session', key: `${project}:C1:1700000000.000100` },
      { kind: 'channel', key: `${project}:C1` },
      { kind: 'project', key: project },
    ];
    const writer = new AttachmentIndex(store);
    let t0 = performance.now();
    let chars = 0;
    const files = CHUNKS / SECTIONS_PER_FILE;
    for (let f = 0; f < files; f++) {
      const sections = Array.from({ length: SECTIONS_PER_FILE }, (_, i) => section(i + 1));
      chars += sections.reduce((n, s) => n + s.text.length, 0);
      const owner = owners[f % 5 === 0 ? 0 : f % 5 < 3 ? 1 : 2] as Owner;
      const bytes = sections.reduce((n, x) => n + Buffer.byteLength(x.text), 0);
      await writer.addFile(owner, pdf(`F${f}`, bytes), sections);
    }
    const ingestMs = performance.now() - t0;
    const listed = await writer.listFiles(owners);
    const total = listed.reduce((n, f) => n + f.chunks, 0);

    // A fresh instance is a replica that has never seen these owners: its first search builds.
    const reader = new AttachmentIndex(store);
    t0 = performance.now();
    await reader.search(owners, 'deployment policy', 6);
    const coldMs = performance.now() - t0;

    for (let i = 0; i < WARMUP; i++) await reader.search(owners, query(), 6);
    const times: number[] = [];
    let hits = 0;
    for (let i = 0; i < QUERIES; i++) {
      const q = query();
      const start = performance.now();
      hits += (await reader.search(owners, q, 6)).length;
      times.push(performance.now() - start);
    }

    // Another replica uploads one more file; the reader rebuilds only that file's segment.
    const extra = Array.from({ length: SECTIONS_PER_FILE }, (_, i) => section(i + 1));
    await writer.addFile(owners[0] as Owner, pdf('Fnew', 1), extra);
    t0 = performance.now();
    await reader.search(owners, 'deployment policy', 6);
    const refreshMs = performance.now() - t0;

    const mb = (chars / 1e6).toFixed(1);
    return [
      `attachment index: ${total.toLocaleString('en-US')} chunks (${listed.length} files, ${mb} M chars, 3 owners) added in ${(ingestMs / 1000).toFixed(1)} s`,
      `attachment index cold build on a new replica (first search over 10,000 chunks): ${fmt(coldMs)}`,
      `search_attachment over 10,000 chunks: p50 ${fmt(percentile(times, 50))}, p95 ${fmt(percentile(times, 95))}, p99 ${fmt(percentile(times, 99))} (target p95 < 20 ms; ${QUERIES} queries, ${(hits / QUERIES).toFixed(1)} hits each)`,
      `search after another replica's 250-chunk upload (one-file rebuild): ${fmt(refreshMs)}`,
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
