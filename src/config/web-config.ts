// The local web chat's settings and when it is served: on by itself with no other platform, and
// behind WEB_AUTH_TOKEN when it listens beyond loopback.
import { z } from 'zod';
import { isRecord } from './layers.ts';
import type { Secrets } from './secrets.ts';

const positiveInt = z.number().int().positive();

export const webSettingsSchema = z
  .object({
    enabled: z.union([z.boolean(), z.literal('auto')]),
    host: z.string().min(1),
    updateIntervalMs: positiveInt,
    /** A page that reads slowly: see src/util/event-stream.ts. */
    stream: z
      .object({
        holdBytes: positiveInt,
        dropBytes: positiveInt,
        dropAfterMs: z.number().int().min(0),
      })
      .strict(),
  })
  .strict();

export type WebChat = { host: string; exposed: boolean } | null;

/** Names of this machine's loopback interface: the web chat is private there. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Shortest WEB_AUTH_TOKEN accepted: it is the only lock on an exposed chat. */
const WEB_TOKEN_MIN = 16;

export function checkWeb(
  web: unknown,
  platformConfigured: boolean,
  s: Secrets,
  problems: string[],
): WebChat {
  if (!isRecord(web) || typeof web.host !== 'string') return null;
  const on = web.enabled === true || (web.enabled === 'auto' && !platformConfigured);
  if (!on) return null;
  const exposed = !isLoopbackHost(web.host);
  if (exposed && !s.webAuthToken)
    problems.push(
      `WEB_AUTH_TOKEN is required when the web chat listens beyond loopback (WEB_HOST=${web.host}); set a long random value, e.g. from \`openssl rand -hex 24\`, or leave WEB_HOST at 127.0.0.1`,
    );
  if (s.webAuthToken && s.webAuthToken.length < WEB_TOKEN_MIN)
    problems.push(`WEB_AUTH_TOKEN must be at least ${WEB_TOKEN_MIN} characters long`);
  return { host: web.host, exposed };
}
