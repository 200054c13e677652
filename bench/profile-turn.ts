// `npm run bench:profile [-- --turns 200 --concurrency 1 --chunk-delay 5 --slots 64 --interval 250
//   --platform slack|web]`:
// runs the bot under `node --cpu-prof` (emulators in a child process, not profiled), streams N
// turns of a 20-token answer through Slack (or the web chat), and prints where the bot's main thread spent its
// time: self time by function and by module (npm package, project file or node internal),
// counted only inside the measured turns' window and divided by the turns run in it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, REPLY, startBot, startEmulators } from './slack-rig.ts';

interface Options {
  turns: number;
  concurrency: number;
  chunkDelayMs: number;
  slots: number | undefined;
  /** Sampling interval of the profiler, µs: finer is more precise and costs the bot more. */
  intervalUs: number;
  dir: string;
  platform: 'slack' | 'web';
}

function options(argv: string[]): Options {
  const get = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const slots = get('slots');
  return {
    turns: Number(get('turns') ?? 200),
    concurrency: Number(get('concurrency') ?? 1),
    chunkDelayMs: Number(get('chunk-delay') ?? 5),
    slots: slots === undefined ? undefined : Number(slots),
    intervalUs: Number(get('interval') ?? 250),
    dir: get('dir') ?? '',
    platform: get('platform') === 'web' ? 'web' : 'slack',
  };
}

/** Where the measured turns start and end, on the profile's clock (monotonic µs). */
interface Markers {
  fromUs: number;
  toUs: number;
  turns: number;
  cpuMsPerTurn: number;
  /** Slack Web API calls by method and model requests, per turn. */
  perTurn: Record<string, number>;
}

interface Calls {
  counts: Record<string, number>;
  total: number;
  modelRequests: number;
}

const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

async function runTurns(o: Options): Promise<void> {
  const emu = await startEmulators();
  const bot = await startBot(emu, o.slots, o.platform);
  const loop =
    o.platform === 'web'
      ? { op: 'webLoop' as const, base: `http://127.0.0.1:${bot.app.port}` }
      : { op: 'loop' as const };
  try {
    await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: 5 });
    await measure(bot, emu, { concurrency: 10, measured: 50, staggerMs: 0 }, loop);
    await emu.call({ op: 'setReply', content: REPLY, chunkDelayMs: o.chunkDelayMs });
    const before = await emu.call<Calls>({ op: 'callCounts', since: 0 });
    const fromUs = monotonicUs();
    const m = await measure(
      bot,
      emu,
      {
        concurrency: o.concurrency,
        measured: o.turns,
        staggerMs: (23 * o.chunkDelayMs) / o.concurrency,
      },
      loop,
    );
    const toUs = monotonicUs();
    const after = await emu.call<Calls>({ op: 'callCounts', since: before.total });
    const perTurn: Record<string, number> = {};
    for (const [method, n] of Object.entries(after.counts)) perTurn[method] = n / m.turns;
    perTurn['model requests'] = (after.modelRequests - before.modelRequests) / m.turns;
    const markers: Markers = {
      fromUs,
      toUs,
      turns: m.turns,
      cpuMsPerTurn: m.cpuMsPerTurn,
      perTurn,
    };
    writeFileSync(path.join(o.dir, 'markers.json'), JSON.stringify(markers));
  } finally {
    await bot.stop();
    await emu.close();
  }
}

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** npm package, project file, node internal group, or V8's own bucket ("(garbage collector)"). */
function moduleOf(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return frame.functionName || '(native)';
  if (url.startsWith('node:')) return url.split('/').slice(0, 2).join('/');
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = file.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = file.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? file);
  }
  return path.relative(ROOT, file);
}

function functionOf(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (frame.url === '') return name;
  const where = moduleOf(frame);
  const file = frame.url.split('/').at(-1) ?? '';
  const place = where.endsWith(file) ? where : `${where} ${file}`;
  return `${name} (${place}:${frame.lineNumber + 1})`;
}

/** A frame of an npm package or a project file (not node's own code, a builtin or wasm). */
const isCode = (f: CallFrame) =>
  f.url !== '' && !f.url.startsWith('node:') && !f.url.includes('wasm');

/**
 * Self time goes to the sampled frame: builtins such as JSON.parse count as their caller's.
 * "Inclusive" counts a sample once for every module on its stack; "by caller" gives node's own
 * code (streams, undici, timers) to the nearest package or project file calling it.
 */
function summarise(profile: CpuProfile, markers: Markers, top: number): string[] {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byCaller = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  let busy = 0;
  let idle = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const span = profile.timeDeltas[i + 1] ?? 0;
    if (t < markers.fromUs || t > markers.toUs) continue;
    const frame = nodes.get(profile.samples[i] ?? -1)?.callFrame;
    if (!frame) continue;
    if (frame.functionName === '(idle)') {
      idle += span;
      continue;
    }
    busy += span;
    const f = functionOf(frame);
    byFunction.set(f, (byFunction.get(f) ?? 0) + span);
    const m = moduleOf(frame);
    add(byModule, m, span);
    const onStack = new Set<string>();
    // V8's own buckets ("(garbage collector)", "(program)") have no caller to give them to.
    const own = isCode(frame) || frame.functionName.startsWith('(');
    let caller: string | undefined = own ? m : undefined;
    for (let id = profile.samples[i]; id !== undefined; id = parent.get(id)) {
      const up = nodes.get(id)?.callFrame;
      if (!up || up.functionName === '(root)') break;
      onStack.add(moduleOf(up));
      if (caller === undefined && isCode(up)) caller = moduleOf(up);
    }
    for (const k of onStack) add(inclusive, k, span);
    add(byCaller, caller ?? m, span);
  }
  const perTurn = (us: number) => `${(us / 1000 / markers.turns).toFixed(3)} ms`;
  const table = (title: string, rows: Map<string, number>): string[] => [
    title,
    ...[...rows.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, us]) =>
          `  ${perTurn(us).padStart(10)}  ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${name}`,
      ),
  ];
  const calls = Object.entries(markers.perTurn)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(', ');
  return [
    `profiled window: ${((markers.toUs - markers.fromUs) / 1000).toFixed(0)} ms, ${markers.turns} turns; main thread busy ${perTurn(busy)}/turn, idle ${perTurn(idle)}/turn (profile samples); process.cpuUsage ${markers.cpuMsPerTurn.toFixed(3)} ms/turn (all threads, GC and I/O helpers, and the profiler's own sampling included)`,
    `per turn: ${calls}`,
    ...table(`top ${top} by function, self time per turn and share of busy time:`, byFunction),
    ...table(`top ${top} by module, self time per turn and share of busy time:`, byModule),
    ...table(`top ${top} by module, inclusive time per turn (modules overlap):`, inclusive),
    ...table(`top ${top} by calling module (node's own code to its caller), per turn:`, byCaller),
  ];
}

async function profile(o: Options): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'tm-profile-'));
  const self = fileURLToPath(import.meta.url);
  const args = [
    '--cpu-prof',
    `--cpu-prof-dir=${dir}`,
    `--cpu-prof-interval=${o.intervalUs}`,
    self,
    '--run',
    '--dir',
    dir,
    '--turns',
    String(o.turns),
    '--concurrency',
    String(o.concurrency),
    '--chunk-delay',
    String(o.chunkDelayMs),
    ...(o.slots === undefined ? [] : ['--slots', String(o.slots)]),
    '--platform',
    o.platform,
  ];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`profiled run exited with ${code}`);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  const markers = JSON.parse(readFileSync(path.join(dir, 'markers.json'), 'utf8')) as Markers;
  const prof = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  if (markers.fromUs < prof.startTime || markers.toUs > prof.endTime) {
    throw new Error('the measured window is outside the profile: the clocks disagree');
  }
  console.log(
    `profile of ${o.turns} measured ${o.platform === 'web' ? 'web chat' : 'Slack'} turns (20-token streamed answer, ${o.chunkDelayMs} ms between chunks, ${o.concurrency} in flight${o.slots === undefined ? '' : `, core.maxConcurrentTurns=${o.slots}`}; sampled every ${o.intervalUs} µs): ${path.join(dir, file)}`,
  );
  for (const line of summarise(prof, markers, 15)) console.log(line);
}

const o = options(process.argv.slice(2));
if (process.argv.includes('--run')) await runTurns(o);
else await profile(o);
