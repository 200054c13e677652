// Discord snowflakes: milliseconds since the Discord epoch in the top 42 bits, then worker,
// process and a per-process increment. @discordjs/rest only recognises 17–19 digit ids as
// major parameters, so fake short ids would silently change its rate-limit bucketing.
const DISCORD_EPOCH = 1_420_070_400_000n;
const WORKER_ID = 1n;
const PROCESS_ID = 7n;

let increment = 0n;
let lastStamp = 0n;

/** A fresh snowflake for `at` (default now); unique and increasing within this process. */
export function snowflake(at: number = Date.now()): string {
  let stamp = BigInt(at) - DISCORD_EPOCH;
  // Keep ids increasing even if the clock stalls: ordering by id is ordering by time.
  if (stamp < lastStamp) stamp = lastStamp;
  if (stamp === lastStamp) increment = (increment + 1n) & 0xfffn;
  else increment = 0n;
  if (increment === 0n && stamp === lastStamp) stamp += 1n;
  lastStamp = stamp;
  return ((stamp << 22n) | (WORKER_ID << 17n) | (PROCESS_ID << 12n) | increment).toString();
}

/** The creation time encoded in a snowflake, in ms since the Unix epoch. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}

export function isSnowflake(id: string): boolean {
  return /^\d{17,20}$/.test(id);
}
