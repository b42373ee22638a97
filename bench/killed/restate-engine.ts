import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, startChild, startWorker } from './child.js';
import type { Engine, JobEnd } from './engine.js';
import { type JobResult, type RestateWorkerConfig, workerVariable } from './protocol.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * The Restate server from its npm package (the binary itself: the package's launcher would
 * leave it running when killed), on free ports, its data in a temporary folder removed at
 * the end. One service process at a time on one port, registered once.
 */
export async function setupRestate(resultTimeoutMs: number): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'recourse-killbench-restate-'));
  const ingress = await freePort();
  const admin = await freePort();
  const node = await freePort();
  const service = await freePort();
  const launcher = createRequire(import.meta.url).resolve(
    '@restatedev/restate-server/package.json',
  );
  const binary = createRequire(launcher).resolve(
    `@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
  );
  const server = startChild(
    binary,
    ['--base-dir', join(dir, 'restate-data'), '--no-logo', '--listen-mode', 'tcp'],
    {
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}`,
    },
    false,
  );
  const teardown = async () => {
    await server.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${admin}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline) throw new Error(`Restate server not up: ${server.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await teardown();
    throw error;
  }
  let registered = false;
  const startService = async (first: boolean, downstreamUrl: string): Promise<Child> => {
    const config: RestateWorkerConfig = {
      port: service,
      ledgerPath: join(dir, 'ledger.sqlite'),
      downstreamUrl,
      first,
    };
    const worker = startWorker('./restate-worker.ts', config, workerVariable);
    await worker.until((messages) => messages.some((m) => m.type === 'ready'), 60_000);
    if (!registered) {
      const response = await fetch(`http://127.0.0.1:${admin}/deployments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ uri: `http://127.0.0.1:${service}` }),
      });
      if (!response.ok) throw new Error(`registration answered ${response.status}`);
      registered = true;
    }
    return worker;
  };
  return {
    name: 'Restate',
    async startJobs(specs, downstreamUrl) {
      const worker = await startService(true, downstreamUrl);
      for (const spec of specs) {
        const sent = await fetch(
          `http://127.0.0.1:${ingress}/killbenchJob/${spec.jobId}/run/send`,
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(spec),
          },
        );
        if (!sent.ok) throw new Error(`invocation answered ${sent.status}`);
      }
      return worker;
    },
    async resume(specs, downstreamUrl) {
      const worker = await startService(false, downstreamUrl);
      const ends = new Map<string, JobEnd>();
      const signal = AbortSignal.timeout(resultTimeoutMs);
      await Promise.all(
        specs.map(async (spec) => {
          try {
            const response = await fetch(
              `http://127.0.0.1:${ingress}/restate/workflow/killbenchJob/${spec.jobId}/attach`,
              { signal },
            );
            const body = await response.text();
            ends.set(
              spec.jobId,
              response.ok
                ? { kind: 'result', result: JSON.parse(body) as JobResult }
                : { kind: 'failed', error: body.slice(0, 500) },
            );
          } catch {
            ends.set(spec.jobId, { kind: 'unfinished' });
          }
        }),
      );
      await worker.kill();
      return ends;
    },
    teardown,
  };
}
