// The Virtual Token Counters of fair admission in Redis, shared by every worker (fair-counters.ts).
// One Lua script per admission step: corrections, the pick and its charge happen atomically, so
// two workers never both see a channel as the least served. Counters are relative: a counter at or
// below its level's floor (the one served last) means the same as a missing one, so such fields
// are pruned now and then, and every key expires after `forgetIdleMs` without an admission.
import { Redis } from 'ioredis';
import type {
  FairCandidate,
  FairCorrection,
  FairStep,
  SharedFairCounters,
} from './fair-counters.ts';

// Keys: P:c (channel → counter), P:cs (channel → served at), P:f (floors: '' for channels, a
// channel for its people), P:p:<ch> and P:ps:<ch> (a channel's people), P:seq.
const STEP = `
local P, est, idle = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local C, CS, F = P .. ':c', P .. ':cs', P .. ':f'
local function floor(f) return tonumber(redis.call('HGET', F, f) or '0') end
local function get(h, f, fl) return tonumber(redis.call('HGET', h, f) or fl) end
local function touch(...) for _, k in ipairs({...}) do redis.call('PEXPIRE', k, idle) end end
local i = 4
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  local ch, pe = ARGV[i], ARGV[i + 1]
  local ct, pt = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]); i = i + 4
  local PH = P .. ':p:' .. ch
  redis.call('HSET', C, ch, tostring(get(C, ch, floor('')) + ct))
  redis.call('HSET', PH, pe, tostring(get(PH, pe, floor(ch)) + pt))
  touch(PH)
end
local m = tonumber(ARGV[i]); i = i + 1
local chans, peeps = {}, {}
local best, bestC, bestAt, bestW, bestPeople = nil, nil, nil, 1, nil
for _ = 1, m do
  local ch, w, k = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]); i = i + 3
  local people = {}
  for j = 1, k do people[j] = ARGV[i + j - 1] end
  i = i + k
  -- A channel that waits again is lifted to the floor, so idle time is not banked.
  local c = math.max(get(C, ch, '0'), floor(''))
  local at = tonumber(redis.call('HGET', CS, ch) or '-1')
  table.insert(chans, ch); table.insert(chans, tostring(c))
  if best == nil or c < bestC or (c == bestC and at < bestAt) then
    best, bestC, bestAt, bestW, bestPeople = ch, c, at, w, people
  end
end
local pick = {}
if best ~= nil then
  local PH, PS = P .. ':p:' .. best, P .. ':ps:' .. best
  local pf = floor(best)
  local who, whoC, whoAt = nil, nil, nil
  for _, pe in ipairs(bestPeople) do
    local c = math.max(get(PH, pe, '0'), pf)
    local at = tonumber(redis.call('HGET', PS, pe) or '-1')
    table.insert(peeps, best); table.insert(peeps, pe); table.insert(peeps, tostring(c))
    if who == nil or c < whoC or (c == whoC and at < whoAt) then who, whoC, whoAt = pe, c, at end
  end
  local seq = redis.call('INCR', P .. ':seq')
  redis.call('HSET', F, '', tostring(bestC), best, tostring(whoC))
  redis.call('HSET', CS, best, seq)
  redis.call('HSET', PS, who, seq)
  redis.call('HSET', C, best, tostring(bestC + est / math.max(1, bestW)))
  redis.call('HSET', PH, who, tostring(whoC + est))
  touch(PH, PS, P .. ':seq')
  pick = {best, who}
  -- Now and then, forget what a missing field would mean as well (at or below the floor).
  if seq % 64 == 0 then
    for _, pair in ipairs({{C, CS, ''}, {PH, PS, best}}) do
      local fl = floor(pair[3])
      local all = redis.call('HGETALL', pair[1])
      for j = 1, #all, 2 do
        if tonumber(all[j + 1]) <= fl then redis.call('HDEL', pair[1], all[j]); redis.call('HDEL', pair[2], all[j]) end
      end
    end
  end
end
touch(C, CS, F)
return {pick, chans, peeps}
`;

type StepCommand = (...args: (string | number)[]) => Promise<[string[], string[], string[]]>;

export class RedisFairCounters implements SharedFairCounters {
  private readonly redis: Redis;
  private readonly prefix: string;
  private readonly idleMs: number;
  private readonly run: StepCommand;

  /** `prefix` names the keys (one per deployment: every worker of it must use the same). */
  constructor(url: string, o: { prefix: string; forgetIdleMs: number }) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 1 });
    this.prefix = o.prefix;
    this.idleMs = o.forgetIdleMs;
    this.redis.defineCommand('fairStep', { numberOfKeys: 0, lua: STEP });
    const r = this.redis as unknown as { fairStep: StepCommand };
    this.run = (...args) => r.fairStep(...args);
  }

  async step(
    corrections: readonly FairCorrection[],
    candidates: readonly FairCandidate[],
    estimate: number,
  ): Promise<FairStep> {
    const args: (string | number)[] = [this.prefix, estimate, this.idleMs, corrections.length];
    for (const c of corrections) args.push(c.channel, c.person, c.channelTokens, c.personTokens);
    args.push(candidates.length);
    for (const c of candidates) args.push(c.channel, c.weight, c.people.length, ...c.people);
    const [pick, chans, peeps] = await this.run(...args);
    const channels = new Map<string, number>();
    for (let i = 0; i + 1 < chans.length; i += 2) {
      channels.set(chans[i] as string, Number(chans[i + 1]));
    }
    const people = new Map<string, Map<string, number>>();
    for (let i = 0; i + 2 < peeps.length; i += 3) {
      const ch = peeps[i] as string;
      const level = people.get(ch) ?? new Map<string, number>();
      level.set(peeps[i + 1] as string, Number(peeps[i + 2]));
      people.set(ch, level);
    }
    const [channel, person] = pick;
    return {
      pick: channel !== undefined && person !== undefined ? { channel, person } : undefined,
      channels,
      people,
    };
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
