import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Snippet {
  /** Where the consumer project compiles it, e.g. `readme-ai-sdk.ts`. */
  file: string;
  code: string;
  /** The README it comes from, for error messages. */
  source: string;
}

// A README code block the consumer test compiles is announced by a comment on the line
// above its fence: <!-- consumer-test: readme-ai-sdk.ts -->
const marker = /<!-- consumer-test: (readme-[a-z0-9-]+\.ts) -->\s*\n```ts\n([\s\S]*?)\n```/g;

/** The marked snippets of the root README and of every package README. */
export function extractSnippets(root: string): Snippet[] {
  const readmes = [
    path.join(root, 'README.md'),
    ...readdirSync(path.join(root, 'packages')).map((dir) =>
      path.join(root, 'packages', dir, 'README.md'),
    ),
  ].filter((file) => existsSync(file));
  const snippets: Snippet[] = [];
  for (const readme of readmes) {
    for (const match of readFileSync(readme, 'utf8').matchAll(marker)) {
      snippets.push({ file: match[1]!, code: `${match[2]!}\n`, source: readme });
    }
  }
  const names = snippets.map((snippet) => snippet.file);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate) throw new Error(`two README snippets are both named ${duplicate}`);
  return snippets;
}
