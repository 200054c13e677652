// Discord's settings and the check of its token and application id.
import { z } from 'zod';
import { type Env, nonEmpty } from './layers.ts';
import type { Secrets } from './secrets.ts';

const url = z.string().url();
const positiveInt = z.number().int().positive();

export const discordSettingsSchema = z
  .object({
    apiUrl: url,
    /** Discord user ids who may change any channel's settings, besides members with Manage Channels. */
    admins: z.array(z.string().regex(/^\d{5,25}$/)),
    updateIntervalMs: positiveInt,
    threadAutoArchiveMinutes: z.union([
      z.literal(60),
      z.literal(1440),
      z.literal(4320),
      z.literal(10080),
    ]),
    fileHosts: z.array(z.string().min(1)),
  })
  .strict();

export function checkDiscord(env: Env, s: Secrets, problems: string[]): string | null {
  const appId = nonEmpty(env.DISCORD_APPLICATION_ID);
  if (!s.discordToken) {
    if (appId)
      problems.push(
        'DISCORD_TOKEN is required when DISCORD_APPLICATION_ID is set (Developer Portal → your app → Bot → Reset Token)',
      );
    return null;
  }
  if (!appId) {
    problems.push(
      'DISCORD_APPLICATION_ID is required when DISCORD_TOKEN is set (Developer Portal → your app → General Information → Application ID)',
    );
    return null;
  }
  if (!/^\d{17,20}$/.test(appId))
    problems.push(`DISCORD_APPLICATION_ID must be a numeric snowflake id, got "${appId}"`);
  return appId;
}
