// Fails any test process that opens a connection to an address off loopback (ARCHITECTURE.md,
// "Invariants" 5: nothing leaves the cluster).
// Libraries swallow their own network errors (LangChain's tiktoken download falls back quietly),
// so a refused connection alone would go unnoticed: violations are also recorded and turn the
// test process's exit code red.
import net from 'node:net';

const violations: string[] = [];

function isLoopback(host: string | undefined): boolean {
  if (host === undefined || host === '' || host === 'localhost') return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  if (/^127\./.test(bare) || /^::ffff:127\./.test(bare)) return true;
  return false;
}

function targetOf(args: unknown[]): { host: string | undefined; path: string | undefined } {
  const [first, second] = args;
  if (Array.isArray(first)) return targetOf(first);
  if (typeof first === 'object' && first !== null) {
    const o = first as { host?: string; path?: string };
    return { host: o.host, path: o.path };
  }
  if (typeof first === 'number')
    return { host: typeof second === 'string' ? second : undefined, path: undefined };
  if (typeof first === 'string') return { host: undefined, path: first };
  return { host: undefined, path: undefined };
}

export function installNetGuard(): void {
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const { host, path } = targetOf(args);
    if (path === undefined && !isLoopback(host)) {
      const message = `network guard: blocked a connection to ${String(host)} (tests may only reach loopback)`;
      violations.push(`${message}\n${new Error().stack ?? ''}`);
      process.exitCode = 1;
      const err = Object.assign(new Error(message), { code: 'ENETUNREACH' });
      process.nextTick(() => this.destroy(err));
      return this;
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;

  process.on('exit', () => {
    if (violations.length > 0) {
      process.stderr.write(
        `\n${violations.length} network guard violation(s):\n${violations.join('\n')}\n`,
      );
      process.exitCode = 1;
    }
  });
}

/** Returns and forgets the violations so far: for a test that provokes one on purpose. */
export function takeNetworkViolations(): string[] {
  const taken = violations.splice(0);
  if (taken.length > 0) process.exitCode = 0;
  return taken;
}
