// Where the configuration makes threadmind connect. This reads the configuration and resolves the
// hosts; it cannot watch the process's sockets or the network (a proxy, DNS, a library that ignores
// the configuration), so it is a statement of intent to compare with the firewall, not a proof.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config/schema.ts';
import type { CheckContext, CheckGroup, CheckResult } from '../model/check-result.ts';
import { withDeadline } from '../util/deadline.ts';

interface Target {
  host: string;
  what: string;
  /** Public suffixes this target is expected under; undefined: one of the operator's own servers. */
  platform?: readonly string[];
}

const SLACK_HOSTS = ['slack.com', 'slack-edge.com', 'slack-files.com', 'slackb.com'];
const DISCORD_HOSTS = ['discord.com', 'discord.gg', 'discordapp.com', 'discordapp.net'];

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '') || undefined;
  } catch {
    return undefined;
  }
}

/** The hosts this configuration makes the bot contact, with why. */
export function configuredTargets(config: Config): Target[] {
  const out: Target[] = [];
  const add = (url: string, what: string, platform?: readonly string[]) => {
    const host = hostOf(url);
    if (host) out.push({ host, what, ...(platform ? { platform } : {}) });
  };
  if (config.slackTransport) {
    add(config.slack.apiUrl, 'Slack Web API', SLACK_HOSTS);
    for (const h of config.attachments.slackFileHosts)
      add(`https://${h}`, 'Slack files', SLACK_HOSTS);
  }
  if (config.discordApplicationId) {
    add(config.discord.apiUrl, 'Discord REST', DISCORD_HOSTS);
    for (const h of config.discord.fileHosts) add(`https://${h}`, 'Discord files', DISCORD_HOSTS);
  }
  add(config.llm.text.baseUrl, 'text model');
  add(config.llm.vision.baseUrl, 'vision model');
  if (/^rediss?:/.test(config.storeUrl)) add(config.storeUrl, 'Redis store');
  if (config.neo4j) add(config.neo4j.uri, 'Neo4j');
  if (config.webTools.searxngUrl) add(config.webTools.searxngUrl, 'SearXNG (web_search)');
  for (const s of config.mcpServers) if (s.url) add(s.url, `MCP server ${s.name}`);
  return out;
}

/** Loopback, private (RFC 1918, CGNAT, unique local) or link-local: inside the operator's network. */
export function isInternalAddress(address: string): boolean {
  if (isIP(address) === 4) {
    const [a = 0, b = 0] = address.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  const v6 = address.toLowerCase();
  if (v6.startsWith('::ffff:')) return isInternalAddress(v6.slice(7));
  return v6 === '::1' || /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6);
}

function underAny(host: string, suffixes: readonly string[]): boolean {
  return suffixes.some((s) => host === s || host.endsWith(`.${s}`));
}

async function addressesOf(host: string, ctx: CheckContext): Promise<string[] | undefined> {
  if (isIP(host)) return [host];
  try {
    const found = await withDeadline(
      lookup(host, { all: true }),
      ctx.stepTimeoutMs,
      () => new Error('DNS timeout'),
    );
    return found.map((a) => a.address);
  } catch {
    return undefined;
  }
}

/** host:port of a proxy URL, never its credentials. */
function proxyHost(url: string): string {
  try {
    const u = new URL(url);
    return u.port ? `${u.hostname}:${u.port}` : u.hostname;
  } catch {
    return '(unparseable URL)';
  }
}

export function egressCheckGroup(config: Config): CheckGroup {
  return {
    names: ['egress'],
    async run(ctx, report) {
      const targets = configuredTargets(config);
      const warnings: string[] = [];
      const own = targets.filter((t) => !t.platform);
      const resolved = await Promise.all(own.map((t) => addressesOf(t.host, ctx)));
      own.forEach((t, i) => {
        const addrs = resolved[i];
        if (addrs && addrs.length > 0 && !addrs.every(isInternalAddress)) {
          warnings.push(
            `the ${t.what} (${t.host}) resolves to a public address: what it is sent leaves your network`,
          );
        }
      });
      for (const t of targets.filter((x) => x.platform)) {
        if (isIP(t.host) && isInternalAddress(t.host)) continue;
        if (!underAny(t.host, t.platform ?? []))
          warnings.push(
            `${t.what} points at ${t.host}, which is not one of the platform's own hosts`,
          );
      }
      const { proxy } = config;
      const proxies = [proxy.httpProxy, proxy.httpsProxy].filter((p): p is string => Boolean(p));
      if (proxies.length > 0) {
        const where = [...new Set(proxies.map(proxyHost))].join(', ');
        warnings.push(
          proxy.nodeUsesEnvProxy
            ? `HTTP(S) requests go through the proxy ${where}${proxy.noProxy ? ` (except NO_PROXY=${proxy.noProxy})` : ''}; Redis and Neo4j connect directly`
            : `HTTP(S)_PROXY is set (${where}) but Node ignores it without NODE_USE_ENV_PROXY=1: threadmind connects directly`,
        );
      }
      const uses = new Map<string, Set<string>>();
      for (const t of targets) uses.set(t.host, (uses.get(t.host) ?? new Set()).add(t.what));
      const hosts = [...uses].map(([host, what]) => `${host} (${[...what].join(', ')})`);
      const platformNote = [
        config.slackTransport === 'socket' ? 'Socket Mode WebSocket host named by Slack' : '',
        config.discordApplicationId ? 'gateway host named by Discord' : '',
      ].filter(Boolean);
      const list = [...hosts, ...platformNote].join(', ');
      const caveat =
        'This reads the configuration; it cannot see the network, so enforce egress with a firewall or NetworkPolicy.';
      const result: CheckResult =
        warnings.length === 0
          ? {
              name: 'egress',
              status: 'ok',
              summary: `configured to connect only to: ${list} (read from the configuration; only a firewall enforces it)`,
            }
          : {
              name: 'egress',
              status: 'warn',
              summary: `${warnings.join('; ')}. Configured: ${list}`,
              fix: `Point the model, store and graph addresses at servers inside your network and check the proxy settings. ${caveat}`,
            };
      report(result);
    },
  };
}
