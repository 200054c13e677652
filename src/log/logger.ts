import { pino } from 'pino';

export type Logger = pino.Logger;

/** One levelled logger for the process; children carry trace_id, platform and session. */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'threadmind' },
      redact: {
        paths: ['*.token', '*.authorization', '*.headers.authorization', 'secrets'],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination(1),
  );
}

/** A logger that drops everything, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
