// The bare Bolt floor (bare-bolt.ts) in a child process: its options in argv, its URL over IPC.
import { startBareBolt } from './bare-bolt.ts';

const bare = await startBareBolt(JSON.parse(process.argv[2] ?? '{}'));
process.send?.({ eventsUrl: bare.eventsUrl });
