// Principals with their workspace, the `everyone` group, per-person grants, deny rules (deny wins)
// and `kg:ingest --check`, on a real Neo4j (ARCHITECTURE.md, "Knowledge (Neo4j)").
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import neo4j, { type Driver } from 'neo4j-driver';
import { closeExtractWorkers } from '../../src/attachments/extract/index.ts';
import { ingestDirectory } from '../../src/knowledge/ingest.ts';
import { principalIdOf } from '../../src/knowledge/knowledge-tool.ts';
import { KnowledgeProvider } from '../../src/knowledge/provider.ts';
import { KNOWLEDGE_DEFAULTS, type KnowledgeSettings } from '../../src/knowledge/settings.ts';
import type { KnowledgeResult } from '../../src/knowledge/types.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { neo4jForTests, type TestNeo4j } from '../support/neo4j-server.ts';

const tag = randomBytes(4).toString('hex');
const T = `T${tag}`;
const OTHER = `T${tag}x`;
const word = `kwx${tag}`;
const eng = `eng-${tag}`;
const contractors = `contractors-${tag}`;
const prefix = `kb-deny-${tag}://`;
const id = (user: string, team = T) => principalIdOf({ platform: 'slack', projectId: team }, user);

let server: TestNeo4j;
let writer: Driver;
let reader: Driver;
let dir: string;
let provider: KnowledgeProvider;

const doc = (meta: string, body: string) => `---\n${meta}\n---\n# Doc\n\n${body} ${word}.\n`;

function writeDocs(): void {
  writeFileSync(
    path.join(dir, 'eng.md'),
    doc(`groups: [${eng}]\ndeny: [${contractors}]`, 'Engineering only handbook'),
  );
  writeFileSync(
    path.join(dir, 'all.md'),
    doc(`groups: ["slack:${T}:everyone"]`, 'Lunch menu for the whole workspace'),
  );
  writeFileSync(
    path.join(dir, 'personal.md'),
    doc(`groups: ["${id('U9')}"]`, 'Salary letter for one person'),
  );
  writeFileSync(
    path.join(dir, 'not-u2.md'),
    doc(`groups: [${eng}]\ndeny: ["${id('U2')}"]`, 'Reorg plan'),
  );
  // The deprecated form (no workspace) still grants, with a warning.
  writeFileSync(path.join(dir, 'principals.yaml'), `slack:U5-${tag}: [${eng}]\n`);
}

before(async () => {
  server = await neo4jForTests();
  writer = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
  const login = server.reader ?? { user: server.user, password: server.password };
  reader = neo4j.driver(server.uri, neo4j.auth.basic(login.user, login.password));
  dir = mkdtempSync(path.join(tmpdir(), 'tm-kg-deny-'));
  writeDocs();
  const report = await ingestDirectory({ driver: writer, root: dir, uriPrefix: prefix });
  assert.deepEqual(report.skipped, []);
  assert.deepEqual(
    report.warnings.map((w) => [w.file, w.line, w.message.split(': ')[0]]),
    [['principals.yaml', 1, `"slack:U5-${tag}"`]],
  );
  const settings: KnowledgeSettings = {
    ...KNOWLEDGE_DEFAULTS,
    // A workspace without shared channels may turn Slack's everyone group on.
    everyoneGroups: ['slack', 'discord'],
    principalGroups: {
      [id('U1')]: [eng],
      [id('U2')]: [eng],
      [id('U3')]: [eng, contractors],
      // Deprecated key: matches U4 in every workspace.
      [`slack:U4-${tag}`]: [eng],
    },
  };
  provider = new KnowledgeProvider({ driver: reader, settings, log: silentLogger() });
});

after(async () => {
  await reader?.close();
  await writer?.close();
  await closeExtractWorkers();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ask = (principal: string): Promise<KnowledgeResult> =>
  provider.retrieve({
    query: word,
    principal_id: principal,
    allowed_scopes: ['*'],
    retrieval_mode: 'fulltext',
    max_tokens: 4000,
    timeout_ms: 10_000,
    freshness_required_at: null,
    trace_id: `trace-${tag}`,
  });
const docs = async (principal: string) =>
  [...new Set((await ask(principal)).items.map((i) => i.source_uri.slice(prefix.length)))].sort();

test('principal ids carry the workspace; a Discord DM has none', () => {
  assert.equal(principalIdOf({ platform: 'slack', projectId: 'T1' }, 'U1'), 'slack:T1:U1');
  assert.equal(principalIdOf({ platform: 'slack', projectId: 'E1.T1' }, 'U1'), 'slack:E1.T1:U1');
  assert.equal(principalIdOf({ platform: 'discord', projectId: '42' }, '7'), 'discord:42:7');
  // A user install is the person alone, with none of the server's groups: as in a DM.
  assert.equal(principalIdOf({ platform: 'discord', projectId: 'user:7' }, '7'), 'discord:dm:7');
  assert.equal(principalIdOf({ platform: 'discord', projectId: 'dm:7' }, '7'), 'discord:dm:7');
});

test('every member of the workspace is in its everyone group; another workspace is not', async () => {
  assert.deepEqual(await docs(id('U1')), ['all.md', 'eng.md', 'not-u2.md']);
  assert.deepEqual(await docs(id('U7')), ['all.md']);
  assert.deepEqual(await docs(id('U1', OTHER)), [], 'config grants are per workspace');
  assert.deepEqual(await docs(`discord:dm:U7`), []);
});

test('deny wins over allow: a denied group, a denied person; a personal grant', async () => {
  assert.deepEqual(await docs(id('U3')), ['all.md', 'not-u2.md'], 'contractors are denied eng.md');
  assert.deepEqual(await docs(id('U2')), ['all.md', 'eng.md'], 'U2 is denied by name');
  assert.deepEqual(await docs(id('U9')), ['all.md', 'personal.md']);
});

test('deprecated ids without a workspace still grant, from config and from the graph', async () => {
  assert.deepEqual(await docs(id(`U4-${tag}`)), ['all.md', 'eng.md', 'not-u2.md']);
  assert.deepEqual(await docs(id(`U5-${tag}`)), ['all.md', 'eng.md', 'not-u2.md']);
});

test('the audience check applies deny rules and personal grants like retrieval', async () => {
  const chunks = async (principal: string, name: string) =>
    (await ask(principal)).items
      .filter((i) => i.source_uri === `${prefix}${name}`)
      .map((i) => i.chunk_id);
  const engChunks = await chunks(id('U1'), 'eng.md');
  const reorg = await chunks(id('U1'), 'not-u2.md');
  const lunch = await chunks(id('U1'), 'all.md');
  assert.ok(engChunks.length > 0 && reorg.length > 0 && lunch.length > 0);
  const all = [...engChunks, ...reorg, ...lunch];
  assert.deepEqual(
    [...(await provider.unreadableBy([id('U1'), id('U2')], all))].sort(),
    [...reorg].sort(),
  );
  assert.deepEqual(
    [...(await provider.unreadableBy([id('U1'), id('U3')], all))].sort(),
    [...engChunks].sort(),
  );
  assert.deepEqual([...(await provider.unreadableBy([id('U1'), id('U7')], lunch))], []);
  assert.deepEqual(
    [...(await provider.unreadableBy([id('U1', OTHER)], lunch))].sort(),
    [...lunch].sort(),
  );
});

test('kg:ingest --check lists added, updated and removed documents and writes nothing', async () => {
  writeFileSync(
    path.join(dir, 'eng.md'),
    doc(`groups: [${eng}]\ndeny: [${contractors}, "${id('U1')}"]`, 'Engineering only handbook'),
  );
  writeFileSync(path.join(dir, 'new.md'), doc(`groups: [${eng}]\ncolour: blue`, 'New page'));
  unlinkSync(path.join(dir, 'personal.md'));
  writeFileSync(path.join(dir, 'principals.yaml'), `slack:U5-${tag}: [${eng}, ${contractors}]\n`);
  const report = await ingestDirectory({
    driver: writer,
    root: dir,
    uriPrefix: prefix,
    check: true,
    prune: true,
  });
  assert.deepEqual(report.changes, {
    added: [`${prefix}new.md`],
    // Rewriting the file moved its modification time, which is its `updated_at` without one in the metadata.
    updated: [{ source_uri: `${prefix}eng.md`, fields: ['updated_at', 'deny'] }],
    unchanged: 2,
    removed: [`${prefix}personal.md`],
    principals: [`slack:U5-${tag}`],
  });
  assert.ok(report.warnings.some((w) => w.file === 'new.md' && /"colour"/.test(w.message)));
  // Nothing was written: the old rules still hold.
  assert.deepEqual(await docs(id('U1')), ['all.md', 'eng.md', 'not-u2.md']);
  assert.deepEqual(await docs(id('U9')), ['all.md', 'personal.md']);
  assert.deepEqual(await docs(id(`U5-${tag}`)), ['all.md', 'eng.md', 'not-u2.md']);
  // The real run then makes exactly those changes.
  await ingestDirectory({ driver: writer, root: dir, uriPrefix: prefix, prune: true });
  assert.deepEqual(await docs(id('U1')), ['all.md', 'new.md', 'not-u2.md']);
  assert.deepEqual(await docs(id('U9')), ['all.md']);
  assert.deepEqual(await docs(id(`U5-${tag}`)), ['all.md', 'new.md', 'not-u2.md']);
  const again = await ingestDirectory({
    driver: writer,
    root: dir,
    uriPrefix: prefix,
    check: true,
  });
  assert.deepEqual(again.changes, {
    added: [],
    updated: [],
    unchanged: 4,
    removed: [],
    principals: [],
  });
});
