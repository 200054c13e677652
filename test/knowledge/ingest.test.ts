// Ingest on a real Neo4j: Markdown front matter and PDF/DOCX sidecars, idempotent re-runs, changed
// and deleted files, supersession, and the kg-ingest CLI with the writer account from the env.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ingestDirectory } from '../../src/knowledge/ingest.ts';
import { ReadRunner } from '../../src/knowledge/read-runner.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

async function read(cypher: string, params: Record<string, unknown> = {}) {
  const runner = new ReadRunner(kg.reader, 'neo4j');
  return runner.read((q) => q(cypher, { prefix: kg.corpus.uriPrefix, ...params }), {
    timeoutMs: 10_000,
    phase: 'test',
  });
}

async function shape() {
  const [row] = await read(
    `MATCH (d:Document) WHERE d.source_uri STARTS WITH $prefix
     OPTIONAL MATCH (c:Chunk)-[:PART_OF]->(d)
     OPTIONAL MATCH (cl:Claim)-[:SUPPORTED_BY]->(ev:Evidence)-[:LOCATED_IN]->(c)
     OPTIONAL MATCH (e:Entity)-[m:MENTIONED_IN]->(d)
     RETURN count(DISTINCT d) AS docs, collect(DISTINCT c.chunk_id) AS chunks,
       count(DISTINCT ev) AS evidence, count(DISTINCT cl) AS claims, count(DISTINCT m) AS mentions`,
  );
  return { ...row, chunks: [...((row?.chunks as string[]) ?? [])].sort() };
}

const ingestAgain = (prune = false) =>
  ingestDirectory({
    driver: kg.writer,
    root: kg.corpus.root,
    uriPrefix: kg.corpus.uriPrefix,
    prune,
  });

test('Markdown, PDF and DOCX are ingested with their metadata; a file without groups is skipped', async () => {
  assert.equal(kg.report.documents, 12);
  assert.deepEqual(
    kg.report.skipped.map((s) => s.file),
    [path.join('eng', 'no-meta.md')],
  );
  assert.equal(kg.report.principals, 3);
  const docs = await read(
    `MATCH (d:Document) WHERE d.source_uri STARTS WITH $prefix
     RETURN d.source_uri AS uri, d.title AS title, d.source_version AS version,
       d.allowed_groups AS groups, d.acl_partition AS partition, d.superseded_by AS superseded_by`,
  );
  const byUri = new Map(docs.map((d) => [d.uri, d]));
  const { uri, groups } = kg.corpus;
  assert.equal(byUri.get(uri('eng/payments.pdf'))?.title, 'Payments');
  assert.equal(byUri.get(uri('sec/review.docx'))?.version, '2');
  assert.deepEqual(byUri.get(uri('sec/review.docx'))?.groups, [groups.sec]);
  assert.equal(byUri.get(uri('shared/ops-and-eng.md'))?.partition, groups.ops);
  assert.equal(
    byUri.get(uri('eng/adr/adr-001-timeouts.md'))?.superseded_by,
    uri('eng/adr/adr-002-timeouts.md'),
  );
  assert.ok(!byUri.has(uri('eng/no-meta.md')));
  const [chunks] = await read(
    `MATCH (c:Chunk)-[:PART_OF]->(d:Document) WHERE d.source_uri STARTS WITH $prefix
     RETURN count(c) AS n, sum(CASE WHEN c.acl_partition = d.acl_partition THEN 1 ELSE 0 END) AS same`,
  );
  assert.equal(chunks?.n, chunks?.same, 'every chunk carries its document partition');
});

test('a second run over the same files changes nothing', async () => {
  const first = await shape();
  const report = await ingestAgain();
  assert.equal(report.removedChunks, 0);
  assert.deepEqual(await shape(), first);
});

test('a changed file replaces its chunks and evidence; claims left without evidence go', async () => {
  const file = path.join(kg.corpus.root, 'eng/runbook-order-api.md');
  const original = readFileSync(file, 'utf8');
  const marker = `retrymarker${kg.corpus.tag}`;
  writeFileSync(
    file,
    original
      .replace('200 ms', `900 ms (${marker})`)
      .replace(`groups: [${kg.corpus.groups.eng}]`, `groups: [${kg.corpus.groups.sec}]`),
  );
  const claimsWithMarker = async () =>
    (
      await read('MATCH (cl:Claim) WHERE cl.statement CONTAINS $m RETURN count(cl) AS n', {
        m: marker,
      })
    )[0]?.n;
  try {
    const report = await ingestAgain();
    assert.ok(report.removedChunks >= 1);
    const rows = await read(
      `MATCH (c:Chunk)-[:PART_OF]->(d:Document {source_uri: $uri})
       RETURN c.text AS text, c.acl_partition AS partition`,
      { uri: kg.corpus.uri('eng/runbook-order-api.md') },
    );
    assert.ok(rows.length > 0 && rows.every((r) => !String(r.text).includes('200 ms')));
    assert.ok(
      rows.every((r) => r.partition === kg.corpus.groups.sec),
      'new groups reach chunks',
    );
    assert.equal(await claimsWithMarker(), 1);
  } finally {
    writeFileSync(file, original);
    await ingestAgain();
  }
  // Back to the original text: the marker claim lost its only evidence and was swept.
  assert.equal(await claimsWithMarker(), 0);
});

test('dropping `supersedes` clears superseded_by; prune removes deleted files', async () => {
  const { root, uri } = kg.corpus;
  const adr2 = path.join(root, 'eng/adr/adr-002-timeouts.md');
  writeFileSync(adr2, readFileSync(adr2, 'utf8').replace(/^supersedes: .*\n/m, ''));
  rmSync(path.join(root, 'eng/retired-deploys.md'));
  const report = await ingestAgain(true);
  assert.equal(report.prunedDocuments, 1);
  const [adr1] = await read('MATCH (d:Document {source_uri: $u}) RETURN d.superseded_by AS s', {
    u: uri('eng/adr/adr-001-timeouts.md'),
  });
  assert.equal(adr1?.s, null);
  const gone = await read('MATCH (d:Document {source_uri: $u}) RETURN d', {
    u: uri('eng/retired-deploys.md'),
  });
  assert.deepEqual(gone, []);
});

test('the kg-ingest CLI reads the writer account from the environment', async () => {
  const run = (env: Record<string, string>, extra: string[] = []) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['src/cli/kg-ingest.ts', kg.corpus.root, '--uri-prefix', kg.corpus.uriPrefix, ...extra],
        { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 },
        (err, stdout, stderr) =>
          resolve({
            code: err ? Number((err as { code?: unknown }).code ?? 1) : 0,
            stdout,
            stderr,
          }),
      );
    });
  const missing = await run({});
  assert.equal(missing.code, 1);
  assert.match(
    missing.stderr,
    /kg-ingest needs NEO4J_URI, NEO4J_WRITER_USER and NEO4J_WRITER_PASSWORD/,
  );
  const ok = await run({
    NEO4J_URI: kg.server.uri,
    NEO4J_WRITER_USER: kg.server.user,
    NEO4J_WRITER_PASSWORD: kg.server.password,
  });
  assert.equal(ok.code, 3, ok.stderr); // 3: done, but a file was skipped
  assert.match(ok.stdout, /11 documents, \d+ chunks, \d+ claims/);
  assert.match(ok.stderr, /no-meta\.md: no front matter/);
  // Nothing changed since: the dry run says so, file by file, and writes nothing.
  const check = await run(
    {
      NEO4J_URI: kg.server.uri,
      NEO4J_WRITER_USER: kg.server.user,
      NEO4J_WRITER_PASSWORD: kg.server.password,
    },
    ['--check'],
  );
  assert.equal(check.code, 3, check.stderr);
  assert.match(check.stdout, /eng\/runbook-order-api\.md: unchanged/);
  assert.match(
    check.stdout,
    /check only, nothing written: 0 added, 0 updated, 11 unchanged, 0 gone from the directory, 0 principals changed/,
  );
});

test('unknown front-matter and sidecar keys are warnings naming the file and line; the document is still ingested', async () => {
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-kg-warn-'));
  try {
    const group = `warn-${kg.corpus.tag}`;
    writeFileSync(
      path.join(dir, 'policy.md'),
      `---\ngroups: [${group}]\ntitle: Policy\nowner: [contractors]\ngrops: [typo]\n---\n# Policy\n\nWarnings must name their line.\n`,
    );
    const warned: string[] = [];
    const report = await ingestDirectory({
      driver: kg.writer,
      root: dir,
      uriPrefix: `kb-warn-${kg.corpus.tag}://`,
      onWarning: (file, line, message) => warned.push(`${file}:${line}: ${message}`),
    });
    assert.equal(report.documents, 1);
    assert.deepEqual(
      report.warnings.map((w) => [w.file, w.line, w.message.split(' is ')[0]]),
      [
        ['policy.md', 4, 'unknown key "owner"'],
        ['policy.md', 5, 'unknown key "grops"'],
      ],
    );
    assert.equal(warned.length, 2);
    assert.match(
      warned[0] ?? '',
      /^policy\.md:4: unknown key "owner" is ignored \(known: groups, deny,/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
