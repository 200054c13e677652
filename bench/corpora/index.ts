// The token benchmark's corpora: deterministic, written for it, each at least 50 samples.
import { englishProse } from './english-prose.ts';
import { jsonDocs } from './json-docs.ts';
import { koreanProse } from './korean-prose.ts';
import { mixed } from './mixed.ts';
import { typescriptCode } from './typescript-code.ts';

export interface Corpus {
  name: string;
  samples: string[];
}

/**
 * Draw 0 is what the shipped weights were fitted on; any other draw is fresh samples from the same
 * generators (other seeds), so a test can check the weights on data they never saw.
 */
export function corpora(draw = 0): Corpus[] {
  return [
    { name: 'English prose', samples: englishProse(draw) },
    { name: 'Korean prose', samples: koreanProse(draw) },
    { name: 'TypeScript code', samples: typescriptCode(draw) },
    { name: 'JSON', samples: jsonDocs(draw) },
    { name: 'mixed', samples: mixed(draw) },
  ];
}

/** Samples the shipped weights were not fitted on. */
export const HELD_OUT_DRAW = 1;
