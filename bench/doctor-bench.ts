// Wall time of `npm run doctor` (node bin/run.mjs src/cli/doctor.ts, process start to exit) against
// a healthy emulator set-up: Slack (Socket Mode), Discord, text and vision vLLM emulators, SQLite.
// Every check runs, the tool-call and image probes included; the emulators answer at once, so this
// is the doctor's own cost (Node start-up, module loading, the checks' round trips).
import { doctorProcess, startSetup } from '../test/doctor/setup.ts';
import { fmt, summary } from './stats.ts';

const RUNS = 10;

export async function benchDoctor(): Promise<string[]> {
  const s = await startSetup();
  try {
    const walls: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const run = await doctorProcess(s.env);
      if (run.code !== 0) throw new Error(`doctor exited ${run.code}:\n${run.stdout}${run.stderr}`);
      walls.push(run.ms);
    }
    const w = summary(walls);
    return [
      `npm run doctor, healthy emulator set-up, 15 checks, wall time process start to exit (n=${w.n}): p50 ${fmt(w.p50)}, max ${fmt(w.max)}`,
    ];
  } finally {
    await s.close();
  }
}
