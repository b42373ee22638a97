// What a maintainer runs before publishing: every published package built from a clean
// dist/, packed as `pnpm publish` would pack it, and checked (contents, manifest, publint,
// attw --profile esm-only). Usage: pnpm release:dry [folder]  (default: a new temp folder)
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkTarball } from './check-tarball.js';
import { packPackages } from './pack-packages.js';
import { repositoryRoot } from './workspace-packages.js';

const outDir = path.resolve(
  process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), 'recourse-release-')),
);
const started = performance.now();
const packed = packPackages(repositoryRoot, outDir);
const reports = packed.map((pkg) => checkTarball(repositoryRoot, pkg));

for (const report of reports) {
  const size = `${(report.bytes / 1024).toFixed(1)} kB`;
  const verdict = report.problems.length === 0 ? 'ok (publint, attw, contents)' : 'FAILED';
  console.log(
    `${report.name.padEnd(26)} ${String(report.files).padStart(4)} files ${size.padStart(9)}  ${verdict}`,
  );
  for (const problem of report.problems) console.log(`  - ${problem.replaceAll('\n', '\n    ')}`);
}
const failed = reports.filter((report) => report.problems.length > 0);
console.log(
  `${reports.length} tarballs in ${outDir} (${((performance.now() - started) / 1000).toFixed(1)} s)${failed.length > 0 ? `; ${failed.length} with problems` : ''}`,
);
if (failed.length > 0) process.exitCode = 1;
