import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../src/log/logger.ts';

/**
 * Bolt and its clients log through the bot's pino logger. The Web API client logs several debug
 * lines per request; with debug off they are dropped before their arguments are joined.
 */
export function boltLogger(log: Logger): BoltLogger {
  let level = LogLevel.INFO;
  let name = 'bolt';
  const fmt = (msg: unknown[]) =>
    msg.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join(' ');
  const at = (pinoLevel: 'debug' | 'warn' | 'error') => (msg: unknown[]) => {
    if (log.isLevelEnabled(pinoLevel)) log[pinoLevel]({ component: name }, fmt(msg));
  };
  const debug = at('debug');
  const warn = at('warn');
  const error = at('error');
  return {
    debug: (...msg) => debug(msg),
    info: (...msg) => debug(msg),
    warn: (...msg) => warn(msg),
    error: (...msg) => error(msg),
    setLevel: (l) => {
      level = l;
    },
    getLevel: () => level,
    setName: (n) => {
      name = n;
    },
  };
}
