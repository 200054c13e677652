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

export function corpora(): Corpus[] {
  return [
    { name: 'English prose', samples: englishProse() },
    { name: 'Korean prose', samples: koreanProse() },
    { name: 'TypeScript code', samples: typescriptCode() },
    { name: 'JSON', samples: jsonDocs() },
    { name: 'mixed', samples: mixed() },
  ];
}
