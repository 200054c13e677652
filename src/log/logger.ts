import { pino } from 'pino';
import pinoPretty from 'pino-pretty';

export type Logger = pino.Logger;

export type LogFormat = 'auto' | 'json' | 'pretty';

const OPTIONS: pino.LoggerOptions = {
  base: { service: 'threadmind' },
  redact: {
    paths: ['*.token', '*.authorization', '*.headers.authorization', 'secrets'],
    censor: '[redacted]',
  },
};

/** One levelled logger for the process; children carry trace_id, platform and session. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ ...OPTIONS, level }, destination ?? pino.destination(1));
}

/** Where the process logs: stdout, or a test's stream standing in for it. */
export interface LogOutput {
  isTTY?: boolean | undefined;
  /** A file descriptor (1 for stdout) or a stream. */
  to: number | NodeJS.WritableStream;
}

/** Whether a person reads the lines: `auto` asks whether the output is a terminal. */
export function isPretty(format: LogFormat, out: Pick<LogOutput, 'isTTY'>): boolean {
  return format === 'pretty' || (format === 'auto' && out.isTTY === true);
}

/** Fields a person does not need on a terminal (they stay in the JSON lines). */
const NOISE = 'pid,hostname,service,check,status,fix,component,running';

/**
 * The process's logger: JSON lines for a collector, or pino-pretty's short lines for a person at
 * a terminal (time, level, message, the fields that matter on the same line, a check's fix under
 * it).
 */
export function createProcessLogger(
  o: { level: string; format: LogFormat },
  out: LogOutput = { isTTY: process.stdout.isTTY, to: 1 },
): Logger {
  if (!isPretty(o.format, out))
    return createLogger(
      o.level,
      typeof out.to === 'number' ? pino.destination(out.to) : (out.to as pino.DestinationStream),
    );
  const pretty = pinoPretty({
    colorize: out.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: NOISE,
    singleLine: true,
    sync: true,
    destination: out.to,
    messageFormat: (line, key) => {
      const where = typeof line.component === 'string' ? `${line.component}: ` : '';
      const fix = typeof line.fix === 'string' ? `\n    fix: ${line.fix}` : '';
      return `${where}${String(line[key] ?? '')}${fix}`;
    },
  });
  return pino({ ...OPTIONS, level: o.level }, pretty);
}

/** A logger that drops everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
