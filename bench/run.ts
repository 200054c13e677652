// `npm run bench`: prints the figures the issues ask for. Everything runs on loopback.
// `npm run bench -- slack` (or attachments, search, embedded, …) runs one group.
import { applyLangChainEnvironment } from '../src/config/runtime-env.ts';

applyLangChainEnvironment();

const groups: Record<string, () => Promise<string[]>> = {
  slack: async () => (await import('./slack-bench.ts')).benchSlack(),
  discord: async () => (await import('./discord-bench.ts')).benchDiscord(),
  web: async () => (await import('./web-bench.ts')).benchWeb(),
  attachments: async () => (await import('./attachments-bench.ts')).benchAttachments(),
  'ingest-words': async () => (await import('./ingest-words-bench.ts')).benchIngestWords(),
  'ingest-embed': async () => (await import('./ingest-embed-ab-bench.ts')).benchIngestEmbedAB(),
  search: async () => [
    ...(await (await import('./search-bench.ts')).benchSearch()),
    ...(await (await import('./hybrid-search-bench.ts')).benchHybridSearch()),
  ],
  relevance: async () => (await import('./relevance-bench.ts')).benchRelevance(),
  memory: async () => (await import('./memory-bench.ts')).benchMemory(),
  knowledge: async () => (await import('./knowledge-bench.ts')).benchKnowledge(),
  audience: async () => (await import('./audience-bench.ts')).benchAudience(),
  groups: async () => (await import('./group-sync-bench.ts')).benchGroupSync(),
  tokens: async () => (await import('./token-bench.ts')).benchTokens(),
  doctor: async () => (await import('./doctor-bench.ts')).benchDoctor(),
  thread: async () => (await import('./thread-bench.ts')).benchThread(),
  embedded: async () => (await import('./embedded-bench.ts')).benchEmbedded(),
  embeddings: async () => (await import('./embeddings-bench.ts')).benchEmbeddings(),
  'embed-levers': async () => (await import('./embed-levers-bench.ts')).benchEmbedLevers(),
  oauth: async () => (await import('./oauth-bench.ts')).benchOAuth(),
  scale: async () => (await import('./scale-bench.ts')).benchScale(),
  handover: async () => (await import('./handover-bench.ts')).benchHandover(),
  burst: async () => (await import('./burst-bench.ts')).benchBurst(),
  feedback: async () => (await import('./feedback-bench.ts')).benchFeedback(),
  erase: async () => (await import('./erase-bench.ts')).benchErase(),
  fencing: async () => (await import('./fencing-bench.ts')).benchFencing(),
  'fair-share': async () => (await import('./fair-share-bench.ts')).benchFairShare(),
  mcp: async () => (await import('./mcp-bench.ts')).benchMcp(),
  'turn-cost': async () => (await import('./turn-cost-bench.ts')).benchTurnCost(),
};

// Group names come before the first flag: `turn-cost --platform web` runs turn-cost only, though
// `web` is also a group's name.
const args = process.argv.slice(2);
const firstFlag = args.findIndex((a) => a.startsWith('--'));
const wanted = (firstFlag < 0 ? args : args.slice(0, firstFlag)).filter((a) => a in groups);
const started = Date.now();
console.log(`threadmind benchmarks (node ${process.version}, ${new Date().toISOString()})`);
for (const name of wanted.length ? wanted : Object.keys(groups)) {
  const run = groups[name];
  if (!run) continue;
  console.log(`[${name}]`);
  for (const line of await run()) console.log(`  ${line}`);
}
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
