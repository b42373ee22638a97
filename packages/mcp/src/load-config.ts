import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { InvalidOptionsError, type RecoveryOptions, validateRecoveryOptions } from '@recourse/core';

/** What a `--config` file gives: `createRecovery`'s options for the proxy's runs. */
export type ProxyConfig = Partial<
  Pick<
    RecoveryOptions,
    | 'policies'
    | 'defaultPolicy'
    | 'scope'
    | 'retry'
    | 'runId'
    | 'repairBudget'
    | 'inFlightWaitMs'
    | 'ledgerTimeoutMs'
    | 'recognisers'
    | 'nextPossibleAction'
  >
>;

const allowed = new Set([
  'policies',
  'defaultPolicy',
  'scope',
  'retry',
  'runId',
  'repairBudget',
  'inFlightWaitMs',
  'ledgerTimeoutMs',
  'recognisers',
  'nextPossibleAction',
]);

/**
 * `.mjs` (its default export; functions allowed: `resource`, `reconcile`, `check`,
 * `fallback`, `key`) or `.json`. Checked like `createRecovery`'s options: a bad field
 * throws `InvalidOptionsError` naming it, with the key that was meant when one is close.
 */
export async function loadConfig(file: string, cwd: string): Promise<ProxyConfig> {
  const full = path.resolve(cwd, file);
  let config: unknown;
  if (/\.json$/i.test(full)) {
    config = JSON.parse(await readFile(full, 'utf8'));
  } else if (/\.m?js$/i.test(full)) {
    config = ((await import(pathToFileURL(full).href)) as { default?: unknown }).default;
  } else {
    throw new InvalidOptionsError('config', `must be a .mjs or .json file, got ${file}`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new InvalidOptionsError('config', `${file} must export an object (export default { … })`);
  }
  const record = config as Record<string, unknown>;
  // The core's check names every unknown key with "did you mean"; keys the core knows but
  // a proxy config does not take (a ledger, onDenial, …) are named here.
  validateRecoveryOptions({ runId: 'config', ...record });
  for (const key of Object.keys(record)) {
    if (!allowed.has(key)) {
      throw new InvalidOptionsError(
        key,
        `is not read from a proxy config (it takes ${[...allowed].join(', ')})`,
      );
    }
  }
  return record as ProxyConfig;
}
