// `npm run bench`: prints the figures the issues ask for. Everything runs on loopback.
import { applyLangChainEnvironment } from '../src/config/runtime-env.ts';

applyLangChainEnvironment();
const { benchSlack } = await import('./slack-bench.ts');

const started = Date.now();
const lines = await benchSlack();
console.log(`threadmind benchmarks (node ${process.version}, ${new Date().toISOString()})`);
for (const line of lines) console.log(`  ${line}`);
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
