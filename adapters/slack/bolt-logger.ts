import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../src/log/logger.ts';

/** Bolt and its clients log through the bot's pino logger. */
export function boltLogger(log: Logger): BoltLogger {
  let level = LogLevel.INFO;
  let name = 'bolt';
  const fmt = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  return {
    debug: (...msg) => log.debug({ component: name }, fmt(msg)),
    info: (...msg) => log.debug({ component: name }, fmt(msg)),
    warn: (...msg) => log.warn({ component: name }, fmt(msg)),
    error: (...msg) => log.error({ component: name }, fmt(msg)),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: (n) => {
      name = n;
    },
  };
}
