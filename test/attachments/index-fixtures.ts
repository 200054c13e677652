// What the attachment-index tests share: a text file's metadata, and a logger whose warnings the
// test can read.
import type { DestinationStream } from 'pino';
import { createLogger } from '../../src/log/logger.ts';

/** A 100-byte text file named `<id>.txt`. */
export const textFile = (id: string) => ({
  fileId: id,
  filename: `${id}.txt`,
  kind: 'text' as const,
  mime: 'text/plain',
  bytes: 100,
});

/** A logger at level warn whose lines are kept, parsed, in `lines`. */
export function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = { write: (s: string) => lines.push(JSON.parse(s)) } as DestinationStream;
  return { log: createLogger('warn', destination), lines };
}
