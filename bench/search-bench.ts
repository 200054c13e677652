// Attachment search figures: 10,000 chunks of mixed English/Korean text in a session, a channel
// and a project, on an SQLite store in a temp dir. Reports the cold build a new replica pays, warm
// search latency (the search_attachment target is p95 < 20 ms) and the cost of seeing an upload
// another replica made.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AttachmentIndex, type NewAttachment } from '../src/attachments/index/index.ts';
import type { ExtractedSection } from '../src/attachments/types.ts';
import { createStore } from '../src/compose/create-store.ts';
import type { Owner } from '../src/scope/scope.ts';
import { mulberry32 } from '../test/support/prng.ts';
import { fmt, percentile } from './stats.ts';

const CHUNKS = 10_000;
const SECTIONS_PER_FILE = 250;
const QUERIES = 500;
const WARMUP = 50;

const EN = (
  'report budget deployment server policy travel leave customer contract review schedule ' +
  'security incident release database migration latency quarter revenue forecast meeting ' +
  'approval invoice vendor onboarding training audit compliance network backup storage ' +
  'cluster kubernetes container pipeline benchmark roadmap feature request ticket support'
).split(' ');
const FILLER_EN = 'the a of to and in for on with that is was by as at from this be are'.split(' ');
const KO = (
  '휴가 규정 직원 회사 보고서 예산 회의 일정 프로젝트 계약 정책 보안 서버 배포 데이터 분석 ' +
  '고객 매출 인사 교육 평가 승인 요청 문서 시스템 관리 운영 개발 테스트 품질 장애 점검'
).split(' ');
const PARTICLES = '은 는 이 가 을 를 의 에 에서 으로 와 과'.split(' ');

const rng = mulberry32;

const rand = rng(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
// A long tail of rare identifiers, drawn Zipf-like, so some terms are rare and some common.
const RARE = Array.from({ length: 4000 }, (_, i) => `term${i.toString(36)}`);
const rare = () => RARE[Math.floor(RARE.length * rand() ** 3)] as string;

function englishSentence(): string {
  const words = Array.from({ length: 8 + Math.floor(rand() * 8) }, () =>
    rand() < 0.4 ? pick(FILLER_EN) : rand() < 0.8 ? pick(EN) : rare(),
  );
  const s = words.join(' ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}. `;
}

function koreanSentence(): string {
  const words = Array.from(
    { length: 5 + Math.floor(rand() * 5) },
    () => `${pick(KO)}${rand() < 0.3 ? pick(KO) : ''}${pick(PARTICLES)}`,
  );
  return `${words.join(' ')} 확인했다. `;
}

/** ~780 characters: one section is one chunk, so the corpus holds exactly CHUNKS chunks. */
function section(page: number): ExtractedSection {
  const korean = rand() < 0.4;
  let text = '';
  while (text.length < 700) text += korean ? koreanSentence() : englishSentence();
  return { text: text.slice(0, 780).trimEnd(), page };
}

function query(): string {
  const r = rand();
  if (r < 0.35) return `${pick(EN)} ${pick(EN)}`;
  if (r < 0.55) return `${pick(EN)} ${rare()} ${pick(EN)}`;
  if (r < 0.85) return `${pick(KO)} ${pick(KO)}`;
  return `${pick(KO)}${pick(PARTICLES)} ${pick(EN)}`;
}

function pdf(fileId: string, bytes: number): NewAttachment {
  const pages = SECTIONS_PER_FILE;
  return { fileId, filename: `${fileId}.pdf`, kind: 'pdf', mime: 'application/pdf', bytes, pages };
}

export async function benchSearch(): Promise<string[]> {
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
