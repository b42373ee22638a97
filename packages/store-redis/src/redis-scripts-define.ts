import type { Redis } from 'ioredis';
import {
  addFactScript,
  addRepairScript,
  claimScript,
  completeScript,
  markUncertainScript,
  releaseScript,
  renewScript,
} from './redis-scripts.js';

type ScriptCall = (...args: string[]) => Promise<unknown>;

export interface LedgerScripts {
  claim: ScriptCall;
  complete: ScriptCall;
  release: ScriptCall;
  renew: ScriptCall;
  markUncertain: ScriptCall;
  addRepair: ScriptCall;
  addFact: ScriptCall;
}

const definitions = {
  claim: { name: 'recourseLedgerClaim', numberOfKeys: 1, lua: claimScript },
  complete: { name: 'recourseLedgerComplete', numberOfKeys: 1, lua: completeScript },
  release: { name: 'recourseLedgerRelease', numberOfKeys: 1, lua: releaseScript },
  renew: { name: 'recourseLedgerRenew', numberOfKeys: 1, lua: renewScript },
  markUncertain: { name: 'recourseLedgerMarkUncertain', numberOfKeys: 1, lua: markUncertainScript },
  addRepair: { name: 'recourseLedgerAddRepair', numberOfKeys: 1, lua: addRepairScript },
  addFact: { name: 'recourseLedgerAddFact', numberOfKeys: 2, lua: addFactScript },
} as const;

/**
 * Registers the ledger's scripts on the client (EVALSHA, falling back to EVAL once per
 * connection when the server has not cached a script yet). The command names are
 * namespaced so that they do not clash with the user's own commands on a shared client.
 */
export function defineScripts(client: Redis): LedgerScripts {
  const commands = client as unknown as Record<string, ScriptCall | undefined>;
  const bind = (definition: (typeof definitions)[keyof typeof definitions]): ScriptCall => {
    if (!commands[definition.name]) {
      client.defineCommand(definition.name, {
        numberOfKeys: definition.numberOfKeys,
        lua: definition.lua,
      });
    }
    const command = commands[definition.name];
    if (!command) throw new Error(`ioredis did not define ${definition.name}`);
    return (...args) => command.apply(client, args);
  };
  return {
    claim: bind(definitions.claim),
    complete: bind(definitions.complete),
    release: bind(definitions.release),
    renew: bind(definitions.renew),
    markUncertain: bind(definitions.markUncertain),
    addRepair: bind(definitions.addRepair),
    addFact: bind(definitions.addFact),
  };
}
