// Calibrates the relevance floors of attachment search on documents and questions written for it
// (bench/corpora/relevance-*.ts): the coverage floor for words and the cosine floor for vectors are
// each fitted on half the questions (the threshold that best separates answerable from absent
// questions) and reported, with recall, on the other half. Needs the CI embedding model for the
// cosine floor (BENCH_EMBED_MODEL or TEST_EMBED_MODEL); without it only words are calibrated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SearchMode } from '../src/attachments/index/index.ts';
import { AttachmentIndex } from '../src/attachments/index/index.ts';
import type { RelevanceFloor } from '../src/attachments/index/relevance.ts';
import type { SearchHit } from '../src/attachments/types.ts';
import { createStore } from '../src/compose/create-store.ts';
import type { Owner } from '../src/scope/scope.ts';
import { CALIBRATION_DOCS } from './corpora/relevance-docs.ts';
import { CALIBRATION_QUESTIONS, type CalibrationQuestion } from './corpora/relevance-questions.ts';
import { benchEmbedModelPath } from './embed-model-path.ts';
import { loadLlamaEmbedder } from './eval/llama-embedder.ts';
import { benchQuantisation } from './quantisation-bench.ts';

interface Scores {
  question: CalibrationQuestion;
  /** Answerable: the answering chunk's coverage / cosine (0 / -1 when not ranked at all). Absent: the best of any chunk. */
  coverage: number;
  cosine: number | undefined;
}

const OWNER: Owner = { kind: 'channel', key: 'slack:TCAL:C1' };
const ALL = { relevanceFloor: false, maxChars: 1e9, limit: 500 } as const;

function answers(h: SearchHit, q: CalibrationQuestion): boolean {
  const doc = CALIBRATION_DOCS.find((d) => d.id === q.doc);
  return h.filename === doc?.filename && h.passage.includes(q.phrase ?? '\u0000');
}

async function scoresOf(
  ix: AttachmentIndex,
  q: CalibrationQuestion,
  vectors: boolean,
): Promise<Scores> {
  const lexical = await ix.search([OWNER], q.q, ALL.limit, {
    mode: 'lexical',
    ...ALL,
    wholeDocuments: false,
  });
  const vector = vectors
    ? await ix.search([OWNER], q.q, ALL.limit, { mode: 'vector', ...ALL, wholeDocuments: false })
    : [];
  const pick = (hits: SearchHit[]) =>
    q.kind === 'absent' ? hits[0] : hits.find((h) => answers(h, q));
  return {
    question: q,
    coverage: pick(lexical)?.lexical?.coverage ?? 0,
    cosine: vectors ? (pick(vector)?.vector?.cosine ?? -1) : undefined,
  };
}

const fmt = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' ');

interface Outcome {
  found: number;
  answerable: number;
  silent: number;
  absent: number;
}

/** What the tool would do: the answer among the 5 hits, or no hit at all for an absent question. */
async function outcome(
  ix: AttachmentIndex,
  qs: CalibrationQuestion[],
  mode: SearchMode,
  floor?: RelevanceFloor,
): Promise<Outcome> {
  const o: Outcome = { found: 0, answerable: 0, silent: 0, absent: 0 };
  for (const q of qs) {
    const hits = await ix.search([OWNER], q.q, 5, {
      mode,
      ...(floor ? { relevanceFloor: floor } : {}),
    });
    if (q.kind === 'absent') {
      o.absent++;
      if (hits.length === 0) o.silent++;
    } else {
      o.answerable++;
      if (hits.some((h) => answers(h, q))) o.found++;
    }
  }
  return o;
}

const describe = (o: Outcome) =>
  `answer in top 5 for ${o.found}/${o.answerable}, "not in the files" for ${o.silent}/${o.absent} absent`;

/**
 * Recall first: the floor must keep the answer in the top 5 for `KEEP` of the answerable
 * questions (what is cut, the model can never use; what passes, it can still judge), and among
 * those floors the one that refuses the most absent questions wins (ties: the lower).
 */
const KEEP = 0.9;
async function fitFloor(
  ix: AttachmentIndex,
  qs: CalibrationQuestion[],
  mode: SearchMode,
  grid: number[],
  floorAt: (t: number) => RelevanceFloor,
) {
  let best = { t: grid[0] ?? 0, o: undefined as Outcome | undefined };
  for (const t of grid) {
    const o = await outcome(ix, qs, mode, floorAt(t));
    if (o.found < KEEP * o.answerable) continue;
    if (!best.o || o.silent > best.o.silent) best = { t, o };
  }
  return best;
}

const steps = (from: number, to: number, step: number) =>
  Array.from(
    { length: Math.round((to - from) / step) + 1 },
    (_, i) => +(from + i * step).toFixed(2),
  );

export async function benchRelevance(): Promise<string[]> {
  const modelPath = benchEmbedModelPath();
  // One thread: the figures do not depend on speed, and a shared machine runs one thread faster.
  const embedder = modelPath ? await loadLlamaEmbedder(modelPath, 1) : undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-relevance-'));
  const store = await createStore(`sqlite://${path.join(dir, 'db.sqlite')}`);
  const lines: string[] = [];
  try {
    // A loaded machine may take seconds per query embedding; calibration must not fall back to words.
    const ix = new AttachmentIndex(store, { embedder, queryTimeoutMs: 60_000 });
    for (const d of CALIBRATION_DOCS) {
      await ix.addFile(
        OWNER,
        { fileId: d.id, filename: d.filename, kind: 'text', mime: 'text/plain', bytes: 1 },
        d.sections,
      );
    }
    const score = async (qs: CalibrationQuestion[]) => {
      const out: Scores[] = [];
      for (const q of qs) out.push(await scoresOf(ix, q, embedder !== undefined));
      return out;
    };
    const all = await score(CALIBRATION_QUESTIONS);
    const of = (kinds: string[], key: 'coverage' | 'cosine') =>
      all.filter((x) => kinds.includes(x.question.kind)).map((x) => x[key] ?? -1);
    lines.push(
      `relevance set: ${CALIBRATION_DOCS.length} documents, ${CALIBRATION_QUESTIONS.length} questions; model ${embedder?.id ?? 'none (BENCH_EMBED_MODEL/TEST_EMBED_MODEL unset: words only)'}`,
      `coverage of the answering chunk, lexical questions: ${fmt(of(['lexical'], 'coverage'))}`,
      `best coverage of any chunk, absent questions: ${fmt(of(['absent'], 'coverage'))}`,
    );
    if (embedder) {
      lines.push(
        `cosine of the answering chunk, answerable questions: ${fmt(of(['lexical', 'paraphrase'], 'cosine'))}`,
        `best cosine of any chunk, absent questions: ${fmt(of(['absent'], 'cosine'))}`,
      );
    }
    // Two folds: fitted on one half of the questions, measured on the other, and the other way.
    const halves = [0, 1].map((r) => CALIBRATION_QUESTIONS.filter((_, i) => i % 2 === r));
    const fits: { cov: number; cos?: number }[] = [];
    for (const fold of [0, 1]) {
      const [fitQs, testQs] = [halves[fold] ?? [], halves[1 - fold] ?? []];
      const wordsOnly = (qs: CalibrationQuestion[]) => qs.filter((q) => q.kind !== 'paraphrase');
      // Words alone fit the coverage floor: it is all a deployment without an embedder has.
      const cov = await fitFloor(ix, wordsOnly(fitQs), 'lexical', steps(0.2, 0.8, 0.05), (t) => ({
        minCoverage: t,
        minCosine: 2,
      }));
      const lexical = await outcome(ix, wordsOnly(testQs), 'lexical', {
        minCoverage: cov.t,
        minCosine: 2,
      });
      let line = `fold ${fold + 1}: coverage floor ${cov.t}; on the other half, lexical: ${describe(lexical)}`;
      if (embedder) {
        const floorAt = (t: number) => ({ minCoverage: cov.t, minCosine: t });
        const cos = await fitFloor(ix, fitQs, 'hybrid', steps(0.1, 0.6, 0.05), floorAt);
        const hybrid = await outcome(ix, testQs, 'hybrid', floorAt(cos.t));
        line += `; cosine floor ${cos.t}; on the other half, hybrid: ${describe(hybrid)}`;
        fits.push({ cov: cov.t, cos: cos.t });
      } else fits.push({ cov: cov.t });
      lines.push(line);
    }
    const mean = (xs: number[]) =>
      Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 20) / 20;
    const cosFits = fits.flatMap((f) => (f.cos === undefined ? [] : [f.cos]));
    lines.push(
      `suggested floors (mean of the folds): coverage ${mean(fits.map((f) => f.cov))}${cosFits.length ? `, cosine ${mean(cosFits)}` : ''}; shipped: coverage ${ix.floor().minCoverage}, cosine ${ix.floor().minCosine}`,
    );
    for (const mode of embedder
      ? (['lexical', 'vector', 'hybrid'] as const)
      : (['lexical'] as const)) {
      lines.push(
        `all ${CALIBRATION_QUESTIONS.length} questions, shipped floors, ${mode}: ${describe(await outcome(ix, CALIBRATION_QUESTIONS, mode))}`,
      );
    }
    if (embedder) lines.push(...(await benchQuantisation(embedder)));
  } finally {
    await store.close();
    await embedder?.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return lines;
}
