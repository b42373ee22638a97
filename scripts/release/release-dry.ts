// What a maintainer runs before publishing: every published package built from a clean
// dist/, packed as `pnpm publish` would pack it, and checked (contents, manifest, publint,
// attw --profile esm-only). Usage: pnpm release:dry [folder]  (default: a new temp folder)
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkTarball } from './check-tarball.js';
import { formatInstallLines, installLines } from './install-lines.js';
import { packPackages } from './pack-packages.js';
import { listPublishedPackages, repositoryRoot } from './workspace-packages.js';

const outDir = path.resolve(
  process.argv[2] ?? mkdtempSync(path.join(os.tmpdir(), 'recourse-release-')),
);
const started = performance.now();
// Progress on stderr as each step starts, results and the install lines on stdout.
const progress = (line: string) => console.error(`pack: ${line}`);
progress(`building, packing and checking every package into ${outDir}`);
const packed = packPackages(repositoryRoot, outDir, progress);
const reports = packed.map((pkg, index) => {
  progress(`check ${index + 1}/${packed.length} ${pkg.name} (contents, publint, attw) …`);
  const report = checkTarball(repositoryRoot, pkg);
  const size = `${(report.bytes / 1024).toFixed(1)} kB`;
  const verdict = report.problems.length === 0 ? 'ok (publint, attw, contents)' : 'FAILED';
  console.log(
    `${report.name.padEnd(26)} ${String(report.files).padStart(4)} files ${size.padStart(9)}  ${verdict}`,
  );
  for (const problem of report.problems) console.log(`  - ${problem.replaceAll('\n', '\n    ')}`);
  return report;
});
const failed = reports.filter((report) => report.problems.length > 0);
console.log(
  `${reports.length} tarballs in ${outDir} (${((performance.now() - started) / 1000).toFixed(1)} s)${failed.length > 0 ? `; ${failed.length} with problems` : ''}`,
);
if (failed.length > 0) process.exitCode = 1;
else {
  console.log('\nInstall them into your project with npm, the line for your agent:\n');
  console.log(formatInstallLines(installLines(listPublishedPackages(repositoryRoot), outDir)));
}
