// TypeScript code: snippets in the styles a thread pastes (services, types, tests, React, config),
// joined into files of varied length. Written for this benchmark.
import { lengthPlan, rng } from './prng.ts';

const SNIPPETS = [
  `import { readFile } from 'node:fs/promises';
import path from 'node:path';

export async function loadConfig(dir: string): Promise<Record<string, unknown>> {
  const file = path.join(dir, 'config.json');
  const text = await readFile(file, 'utf8');
  return JSON.parse(text) as Record<string, unknown>;
}`,
  `export interface User {
  id: string;
  email: string;
  displayName?: string;
  roles: ('admin' | 'member' | 'guest')[];
  createdAt: Date;
}`,
  `function debounce<T extends (...args: never[]) => void>(fn: T, waitMs: number): T {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return ((...args: Parameters<T>) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => fn(...args), waitMs);
  }) as T;
}`,
  `export class RateLimiter {
  private tokens: number;
  private last = Date.now();

  constructor(private readonly capacity: number, private readonly refillPerSec: number) {
    this.tokens = capacity;
  }

  tryTake(): boolean {
    const now = Date.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) / 1000) * this.refillPerSec);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}`,
  `test('splits long messages on paragraph boundaries', () => {
  const parts = splitMessage('a'.repeat(5000) + '\\n\\n' + 'b'.repeat(100), 3000);
  assert.equal(parts.length, 3);
  assert.ok(parts.every((p) => p.length <= 3000));
});`,
  `const app = express();
app.use(express.json({ limit: '1mb' }));

app.get('/healthz', (_req, res) => {
  res.status(200).send('ok');
});

app.post('/api/messages', async (req, res, next) => {
  try {
    const message = await store.save(req.body);
    res.status(201).json(message);
  } catch (err) {
    next(err);
  }
});`,
  `type Result<T, E = Error> = { ok: true; value: T } | { ok: false; error: E };

export function tryParse(text: string): Result<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err : new Error(String(err)) };
  }
}`,
  `export function Avatar({ user, size = 32 }: { user: User; size?: number }) {
  const initials = user.displayName?.split(' ').map((w) => w[0]).join('') ?? '?';
  return (
    <div className="avatar" style={{ width: size, height: size }}>
      {user.avatarUrl ? <img src={user.avatarUrl} alt={user.displayName} /> : <span>{initials}</span>}
    </div>
  );
}`,
  `for (const [key, value] of Object.entries(headers)) {
  if (value === undefined) continue;
  request.setHeader(key.toLowerCase(), Array.isArray(value) ? value.join(', ') : value);
}`,
  `export const schema = z.object({
  port: z.number().int().min(1).max(65535).default(3000),
  logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  redisUrl: z.string().url().optional(),
  maxReplyTokens: z.number().int().positive().default(1024),
});

export type Config = z.infer<typeof schema>;`,
  `async function withRetry<T>(fn: () => Promise<T>, attempts = 3, baseMs = 200): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, baseMs * 2 ** i));
    }
  }
  throw lastError;
}`,
  `// Keep the newest entries; the map preserves insertion order, so the first key is the oldest.
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) {
      const oldest = this.map.keys().next().value as K;
      this.map.delete(oldest);
    }
  }
}`,
  `const totals = orders
  .filter((o) => o.status === 'paid' && o.currency === 'KRW')
  .reduce<Record<string, number>>((acc, o) => {
    acc[o.customerId] = (acc[o.customerId] ?? 0) + o.amount;
    return acc;
  }, {});`,
  `export enum Priority {
  Low = 0,
  Normal = 1,
  High = 2,
  Urgent = 3,
}

export const PRIORITY_LABELS: Record<Priority, string> = {
  [Priority.Low]: 'low',
  [Priority.Normal]: 'normal',
  [Priority.High]: 'high',
  [Priority.Urgent]: 'urgent',
};`,
  `describe('TokenBucket', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  it('refills over time', () => {
    const bucket = new TokenBucket(2, 1);
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
    vi.advanceTimersByTime(1000);
    expect(bucket.take()).toBe(true);
  });
});`,
  `export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return \`\${value.toFixed(unit === 0 ? 0 : 1)} \${units[unit]}\`;
}`,
  `const server = http.createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', \`http://\${req.headers.host}\`);
  if (req.method === 'GET' && url.pathname === '/metrics') {
    res.writeHead(200, { 'content-type': register.contentType });
    res.end(await register.metrics());
    return;
  }
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 9090), '0.0.0.0');`,
  `export abstract class Repository<T extends { id: string }> {
  protected abstract table: string;

  async findById(id: string): Promise<T | null> {
    const rows = await this.db.query<T>(\`SELECT * FROM \${this.table} WHERE id = $1\`, [id]);
    return rows[0] ?? null;
  }

  async deleteById(id: string): Promise<boolean> {
    const result = await this.db.execute(\`DELETE FROM \${this.table} WHERE id = $1\`, [id]);
    return result.rowCount > 0;
  }
}`,
  `import type { Message } from './types.ts';

/** The last n messages, oldest first, without the system prompt. */
export function recent(messages: readonly Message[], n: number): Message[] {
  const rest = messages.filter((m) => m.role !== 'system');
  return rest.slice(Math.max(0, rest.length - n));
}`,
  `switch (event.type) {
  case 'message':
    await handleMessage(event);
    break;
  case 'reaction_added':
    await handleReaction(event.reaction, event.item);
    break;
  case 'app_mention':
    await handleMention(event);
    break;
  default:
    log.debug({ type: event.type }, 'ignored event');
}`,
  `const useDebouncedValue = <T,>(value: T, delay = 300): T => {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const id = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(id);
  }, [value, delay]);
  return debounced;
};`,
  `export function chunk<T>(items: readonly T[], size: number): T[][] {
  if (size <= 0) throw new RangeError('size must be positive');
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}`,
  `process.on('SIGTERM', async () => {
  logger.info('shutting down');
  await Promise.allSettled([server.close(), queue.drain(), redis.quit()]);
  process.exit(0);
});`,
  `export const handler: Handler<APIGatewayProxyEvent, APIGatewayProxyResult> = async (event) => {
  const body = event.body ? JSON.parse(event.body) : {};
  if (typeof body.name !== 'string' || body.name.length === 0) {
    return { statusCode: 400, body: JSON.stringify({ error: 'name is required' }) };
  }
  await table.put({ pk: \`USER#\${body.name}\`, sk: 'PROFILE', createdAt: Date.now() });
  return { statusCode: 201, body: JSON.stringify({ ok: true }) };
};`,
  `let count = 0;
const matrix: number[][] = Array.from({ length: 16 }, (_, i) =>
  Array.from({ length: 16 }, (_, j) => (i * 31 + j * 17) % 255),
);
for (const row of matrix) for (const cell of row) if (cell > 128) count++;
console.log(\`cells over 128: \${count}\`);`,
];

function sample(seed: number, snippets: number): string {
  const r = rng(seed);
  const parts: string[] = [];
  for (let i = 0; i < snippets; i++) parts.push(r.pick(SNIPPETS));
  return parts.join('\n\n');
}

export function typescriptCode(draw = 0): string[] {
  return lengthPlan(rng(303 + draw * 7919), 60, 14).map((n, i) =>
    sample(3000 + draw * 100_000 + i, n),
  );
}
