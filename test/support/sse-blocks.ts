// Reads server-sent events out of a growing text buffer, for the test and bench clients of the
// web chat: each complete block gives its event type and its joined data lines; the unfinished
// tail is handed back to be continued.
export interface SseEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The complete events in `buffer`, and what is left of it after them. */
export function takeSseEvents(buffer: string): { events: SseEvent[]; rest: string } {
  const events: SseEvent[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    let type = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) type = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (data) events.push({ type, data: JSON.parse(data) as Record<string, unknown> });
  }
  return { events, rest };
}
