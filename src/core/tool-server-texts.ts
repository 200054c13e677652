// What the admin who switches team tool servers on for a channel is told, privately, with the
// "Saved" notice: each server's tools, their descriptions and arguments (the server's own words in
// code spans, so they can neither format nor ping), and which calls wait for an approval.
import type { ServerOverview } from '../agent/mcp/mcp-overview.ts';
import { approvalTexts } from './tool-approval-texts.ts';

/** Room left in one private notice (Discord's 2,000 characters, the "Saved" line before it). */
const MAX_CHARS = 1500;
const { code } = approvalTexts;

function toolLine(t: ServerOverview['tools'][number]): string {
  const ask = t.needsApproval ? '**needs approval**' : 'runs without asking (read-only)';
  const args = t.args ? ` · arguments ${code(t.args)}` : ' · no arguments';
  const left = t.leftOut ? ' · _not offered: its schema is over the size cap_' : '';
  return `• ${code(t.name)} — ${ask}${left}: ${code(t.description || '(no description)')}${args}`;
}

function serverHead(s: ServerOverview): string {
  const state = s.connected
    ? `${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`
    : 'not reachable now (retried; its tools are offered when it comes up)';
  const priv = s.private ? '; answers that use its results go to the asker alone' : '';
  return `**${s.name}**: ${state}${priv}`;
}

/** The listing for the servers switched on; `undefined` entries are names config does not declare. */
export function serversSwitchedOn(servers: readonly (ServerOverview | string)[]): string {
  const lines = ['Team tools now on in this channel; the model may call them here:'];
  let size = lines[0]?.length ?? 0;
  let hidden = 0;
  for (const s of servers) {
    if (typeof s === 'string') {
      lines.push(`**${s}**: not a server in the configuration (mcp.servers), so it has no tools`);
      continue;
    }
    lines.push(serverHead(s));
    for (const t of s.tools) {
      const line = toolLine(t);
      if (size + line.length > MAX_CHARS) {
        hidden++;
        continue;
      }
      size += line.length;
      lines.push(line);
    }
  }
  if (hidden > 0)
    lines.push(`_…and ${hidden} more tool${hidden === 1 ? '' : 's'} not listed here._`);
  lines.push(
    'Calls that need approval post a card in the thread; "Always in this channel" grants are listed in these settings.',
  );
  return lines.join('\n');
}
