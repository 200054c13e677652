// Audience property test on a real Neo4j: 600 randomised questions (seeded, so a failure
// reproduces) asked in randomised channels whose members belong to different groups. The
// knowledge tool hands its evidence to the turn's AnswerAudience, as in a real turn; an answer that
// stays in the channel must cite only documents every member may read (0 violations), and an
// answer sent privately must have had a reason (some member could not read some source).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AnswerAudience, type EvidenceAccess } from '../../src/core/audience.ts';
import { knowledgeSearchTool } from '../../src/knowledge/knowledge-tool.ts';
import type { RetrievalMode } from '../../src/knowledge/types.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { Audience, Destination } from '../../src/model/platform-port.ts';
import { ownersOf, type ThreadRef } from '../../src/model/thread-ref.ts';
import { runInScope } from '../../src/scope/scope.ts';
import { MockPort } from '../support/mock-port.ts';
import { mulberry32 } from '../support/prng.ts';
import { type KgHarness, startKg } from './kg-harness.ts';

const QUESTIONS = 600;
const CONCURRENCY = 6;

let kg: KgHarness;
before(async () => {
  kg = await startKg();
});
after(async () => {
  await kg?.close();
});

test(`${QUESTIONS} questions in randomised channels: a channel answer never cites what a member may not read`, async (t) => {
  const rand = mulberry32(20261201);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const { corpus } = kg;
  const people = [...Object.keys(corpus.principals), `mallory-${corpus.tag}`];
  const provider = kg.provider({ settings: { ...kg.settings, phaseTimeoutMs: 20_000 } });
  const access: EvidenceAccess = {
    unreadable: (_ref, ids, evidence) =>
      provider.unreadableBy(
        ids,
        evidence.map((e) => e.chunk_id),
      ),
  };
  // Ground truth, independent of the code under test: groups, then partitions (eng may search ops).
  const mayRead = (person: string, uri: string) => {
    const groups = corpus.principals[person] ?? [];
    const partitions = new Set(groups);
    if (partitions.has(corpus.groups.eng)) partitions.add(corpus.groups.ops);
    return (
      (corpus.acl[uri] ?? []).some((g) => groups.includes(g)) &&
      (corpus.partitions[uri] ?? []).some((p) => partitions.has(p))
    );
  };
  const modes: RetrievalMode[] = ['fulltext', 'graph'];
  const uriPattern = new RegExp(
    `${corpus.uriPrefix.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}[^\\s)]+`,
    'g',
  );

  let violations = 0;
  let publicWithEvidence = 0;
  let privateAnswers = 0;
  let needlessPrivate = 0;
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < QUESTIONS) {
      const i = next++;
      const size = 1 + Math.floor(rand() * 5);
      const members = [...new Set(Array.from({ length: size }, () => pick(people)))];
      const asker = pick(members);
      const words = Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
        pick(corpus.vocabulary),
      );
      const mode = pick(modes);
      const ref: ThreadRef = {
        platform: 'slack',
        projectId: 'T1',
        channelId: `C${i}`,
        sessionId: `${i}.000`,
      };
      const to: Destination = { ref, context: {} };
      const port = new MockPort();
      const audienceOf = async (): Promise<Audience> => ({ kind: 'channel', members });
      Object.assign(port, { audience: audienceOf });
      const audience = new AnswerAudience({
        port,
        to,
        asker,
        mode: 'audience',
        access,
        log: silentLogger(),
      });
      const tool = knowledgeSearchTool({
        provider,
        settings: { ...kg.settings, defaultMode: mode, maxTokens: 1500, timeoutMs: 20_000 },
        log: silentLogger(),
        principalOf: (s) => s.principal,
      });
      const rendered = String(
        await runInScope(
          {
            ref,
            principal: asker,
            owners: ownersOf(ref),
            images: [],
            traceId: `aud-${i}`,
            onEvidence: (e) => audience.admit(e),
          },
          () => tool.invoke({ query: words.join(' ') }),
        ),
      );
      if (/search failed|timed out|could not be reached/.test(rendered))
        failures.push(`${i}: ${rendered.slice(0, 200)}`);
      const cited = [...new Set(rendered.match(uriPattern) ?? [])];
      const unreadable = cited.filter((uri) => members.some((m) => !mayRead(m, uri)));
      if (audience.isPrivate) {
        privateAnswers++;
        if (unreadable.length === 0) needlessPrivate++;
      } else {
        if (cited.length > 0) publicWithEvidence++;
        if (unreadable.length > 0) {
          violations++;
          failures.push(`${i}: ${members.join(',')} asked by ${asker} → ${unreadable.join(', ')}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  assert.deepEqual(failures, []);
  assert.equal(violations, 0);
  assert.equal(needlessPrivate, 0, 'an answer went private though every member could read it');
  // Not vacuous: both outcomes happened many times.
  assert.ok(
    publicWithEvidence > QUESTIONS / 10,
    `only ${publicWithEvidence} public answers with evidence`,
  );
  assert.ok(privateAnswers > QUESTIONS / 10, `only ${privateAnswers} private answers`);
  t.diagnostic(
    `${QUESTIONS} questions: ${publicWithEvidence} answered in the channel with evidence, ${privateAnswers} sent privately, 0 violations`,
  );
});
