import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatInstallLines,
  installLines,
  readmeTarballFolder,
} from '../../scripts/release/install-lines.js';
import { listPublishedPackages, repositoryRoot } from '../../scripts/release/workspace-packages.js';

const readme = readFileSync(path.join(repositoryRoot, 'README.md'), 'utf8');
const block = /<!-- install-lines:[^\n]*-->\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1];

describe("the README's install lines", () => {
  const lines = installLines(listPublishedPackages(repositoryRoot), readmeTarballFolder);

  it('are the lines `./run.sh pack` prints and the consumer test runs', () => {
    // On a mismatch, paste the expected block into the README.
    expect(block).toBe(formatInstallLines(lines));
  });

  it('name every tarball a package needs: the core with each adapter, peers from the registry', () => {
    const aiSdk = lines.find((line) => line.name === '@recourse/ai-sdk');
    expect(aiSdk?.command).toBe(
      'npm i /tmp/recourse-packages/recourse-core-0.1.0.tgz /tmp/recourse-packages/recourse-ai-sdk-0.1.0.tgz ai',
    );
    for (const line of lines) {
      const tarballs = line.command.split(' ').filter((word) => word.endsWith('.tgz'));
      expect(tarballs.at(-1), line.name).toContain(line.name.replace('@recourse/', 'recourse-'));
    }
  });
});
