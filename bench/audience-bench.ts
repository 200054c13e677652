// The audience check of a knowledge answer in a channel (src/core/audience.ts), on a real Neo4j
// and the Slack emulator: a 5,000-member channel whose members hold 1–2 of 8 groups, evidence of
// 8 chunks per question. Reports the first question (conversations.members paged, 5 pages) and
// then the per-question cost with the member list and memberships cached, measured in the same run.
import { randomBytes } from 'node:crypto';
import { WebClient } from '@slack/web-api';
import neo4j from 'neo4j-driver';
import { SlackFiles } from '../adapters/slack/slack-files.ts';
import { SlackPort } from '../adapters/slack/slack-port.ts';
import { AnswerAudience, type EvidenceAccess } from '../src/core/audience.ts';
import { principalIdOf } from '../src/knowledge/knowledge-tool.ts';
import { KnowledgeProvider } from '../src/knowledge/provider.ts';
import { ensureSchema } from '../src/knowledge/schema-bootstrap.ts';
import { KNOWLEDGE_DEFAULTS } from '../src/knowledge/settings.ts';
import { silentLogger } from '../src/log/logger.ts';
import type { Destination } from '../src/model/platform-port.ts';
import { startSlackEmulator } from '../test/emulators/slack/index.ts';
import { neo4jForTests } from '../test/support/neo4j-server.ts';
import { mulberry32 } from '../test/support/prng.ts';
import { fmt, percentile } from './stats.ts';

const MEMBERS = 5000;
const GROUPS = 8;
const DOCS = 40;
const CHUNKS_PER_DOC = 10;
const EVIDENCE = 8;
const QUESTIONS = 300;
const WARMUP = 30;

export async function benchAudience(): Promise<string[]> {
  const rand = mulberry32(14);
  const tag = randomBytes(3).toString('hex');
  const server = await neo4jForTests();
  const driver = neo4j.driver(server.uri, neo4j.auth.basic(server.user, server.password));
  const slack = await startSlackEmulator({ signingSecret: 'bench' });
  const lines: string[] = [];
  const groups = Array.from({ length: GROUPS }, (_, g) => `g${g}-${tag}`);
  const users = Array.from({ length: MEMBERS }, (_, n) => `UB${tag.toUpperCase()}${n}`);
  try {
    await ensureSchema(driver);
    const ref = { platform: 'slack' as const, projectId: 'T1', channelId: 'C1', sessionId: '1.0' };
    const members = users.map((u) => ({
      id: principalIdOf(ref, u),
      groups: [
        ...new Set([groups[Math.floor(rand() * GROUPS)], groups[Math.floor(rand() * GROUPS)]]),
      ],
    }));
    const docs = Array.from({ length: DOCS }, (_, d) => ({
      uri: `bench-aud-${tag}://d${d}`,
      groups: groups.filter(() => rand() < 0.3).concat(groups[d % GROUPS] as string),
    }));
    const chunks = docs.flatMap((doc, d) =>
      Array.from({ length: CHUNKS_PER_DOC }, (_, c) => ({
        id: `bench-aud-${tag}-${d}-${c}`,
        uri: doc.uri,
      })),
    );
    await driver.executeQuery(
      `UNWIND $members AS m
       MERGE (p:Principal {principal_id: m.id})
       WITH p, m UNWIND m.groups AS name
       MERGE (g:Group {name: name})
       MERGE (p)-[:MEMBER_OF]->(g)`,
      { members },
    );
    await driver.executeQuery(
      `UNWIND $docs AS doc
       CREATE (d:Document {source_uri: doc.uri, allowed_groups: doc.groups,
         acl_partition: doc.groups[0], acl_partitions: doc.groups})`,
      { docs },
    );
    await driver.executeQuery(
      `UNWIND $chunks AS ch
       MATCH (d:Document {source_uri: ch.uri})
       CREATE (:Chunk {chunk_id: ch.id, text: 'bench', seq: 0, acl_partition: d.acl_partition,
         acl_partitions: d.acl_partitions})-[:PART_OF]->(d)`,
      { chunks },
    );
    slack.setChannelMembers('C1', [...users, slack.botUserId]);
    const client = new WebClient(slack.botToken, { slackApiUrl: slack.apiUrl });
    const log = silentLogger();
    const port = new SlackPort({
      client,
      files: new SlackFiles({
        client,
        source: { allowedHosts: [], maxBytes: 1, timeoutMs: 1000 },
        log,
      }),
      log,
      streaming: 'off',
      assistantStatus: false,
      credentials: {
        forProject: async () => ({
          token: slack.botToken,
          botUserId: slack.botUserId,
          botId: undefined,
        }),
      },
    });
    const provider = new KnowledgeProvider({ driver, settings: KNOWLEDGE_DEFAULTS, log });
    const access: EvidenceAccess = {
      unreadable: (r, ids, evidence) =>
        provider.unreadableBy(
          ids.map((u) => principalIdOf(r, u)),
          evidence.map((e) => e.chunk_id),
        ),
    };
    const to: Destination = { ref, context: {} };
    const question = () => {
      const audience = new AnswerAudience({
        port,
        to,
        asker: users[0] as string,
        mode: 'audience',
        access,
        log,
      });
      const evidence = Array.from({ length: EVIDENCE }, () => {
        const c = chunks[Math.floor(rand() * chunks.length)] as (typeof chunks)[number];
        return { chunk_id: c.id, source_uri: c.uri };
      });
      return { audience, evidence };
    };
    // A check that failed also ends private (fail closed): only decided checks count.
    const decided = (a: AnswerAudience) => {
      if (a.reason === 'check_failed' || a.reason === 'audience_unknown')
        throw new Error(`the audience check did not run: ${a.reason}`);
    };
    const first = question();
    let t = performance.now();
    await first.audience.admit(first.evidence);
    decided(first.audience);
    lines.push(
      `audience check, first question (conversations.members, ${MEMBERS.toLocaleString('en')} members in ${Math.ceil((MEMBERS + 1) / 1000)} pages, emulator): ${fmt(performance.now() - t)}`,
    );
    for (let i = 0; i < WARMUP; i++) {
      const q = question();
      await q.audience.admit(q.evidence);
    }
    const ms: number[] = [];
    let privateCount = 0;
    for (let i = 0; i < QUESTIONS; i++) {
      const q = question();
      t = performance.now();
      await q.audience.admit(q.evidence);
      ms.push(performance.now() - t);
      decided(q.audience);
      if (q.audience.isPrivate) privateCount++;
    }
    lines.push(
      `audience check per knowledge question, ${MEMBERS.toLocaleString('en')}-member channel, member list and group memberships cached, ${EVIDENCE} evidence chunks: p50 ${fmt(percentile(ms, 50))}, p95 ${fmt(percentile(ms, 95))} (n=${ms.length}; ${privateCount} went private)`,
    );
  } finally {
    await driver
      .executeQuery(
        `MATCH (n) WHERE (n:Chunk AND n.chunk_id STARTS WITH $p) OR (n:Document AND n.source_uri STARTS WITH $u)
           OR (n:Principal AND n.principal_id STARTS WITH $m) OR (n:Group AND n.name ENDS WITH $g)
         DETACH DELETE n`,
        {
          p: `bench-aud-${tag}-`,
          u: `bench-aud-${tag}://`,
          m: `slack:UB${tag.toUpperCase()}`,
          g: `-${tag}`,
        },
      )
      .catch(() => undefined);
    await slack.close();
    await driver.close();
    await server.stop();
  }
  return lines;
}
