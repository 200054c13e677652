// A logger whose warnings the knowledge tests can count.
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log/logger.ts';

export function capturedLog() {
  const lines: Array<{ msg: string; what?: string }> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { log: createLogger('warn', sink), lines };
}
