import { collectNode, collectText, emptyFacts, type FailureFacts } from './failure-facts.js';
import { readProperty } from './safe-read.js';

/** One object of a thrown value's graph, as the walk met it. */
export interface FailureNode {
  readonly value: object;
  /**
   * Reached through a response payload (`error`, `data`, `body`) or an attempt list
   * (`errors`), not through a cause link: what it says about the transport belongs to
   * someone else (a server's own connection error in its body, an earlier attempt).
   */
  readonly payload: boolean;
}

/** The facts, plus the nodes they came from, for recognisers that need a node's shape. */
export interface FailureEvidence {
  readonly facts: FailureFacts;
  /** Breadth-first, outermost first, at most `maxNodes`. */
  readonly nodes: readonly FailureNode[];
}

const maxDepth = 8;
const maxNodes = 64;
const maxChildrenPerList = 16;

// Where a wrapped error keeps the one it wraps: the standard `cause`, the AI SDK
// RetryError's `lastError`; and, objects only (pg's `detail` is row text), Stripe's
// `detail`, @slack/web-api's `original` and the OpenAI Agents SDK's `originalError` (the
// schema error inside its InvalidToolInputError).
const causeKeys = ['cause', 'lastError'] as const;
const objectCauseKeys = ['detail', 'original', 'originalError'] as const;
// Error bodies (`error`, `data`, `body`) carry codes; AggregateError's and RetryError's
// `errors` list every attempt.
const payloadKeys = ['error', 'data', 'body'] as const;

function readList(value: unknown): unknown[] {
  try {
    if (!Array.isArray(value)) return [];
    return value.slice(0, maxChildrenPerList);
  } catch {
    return [];
  }
}

interface Pending {
  value: unknown;
  payload: boolean;
}

function childrenOf(node: object, payload: boolean): Pending[] {
  const children: Pending[] = causeKeys.map((key) => ({ value: readProperty(node, key), payload }));
  for (const key of objectCauseKeys) {
    const value = readProperty(node, key);
    if (typeof value === 'object' && value !== null) children.push({ value, payload });
  }
  for (const value of readList(readProperty(node, 'errors')))
    children.push({ value, payload: true });
  for (const key of payloadKeys) {
    const value = readProperty(node, key);
    if (typeof value === 'object' && value !== null) children.push({ value, payload: true });
  }
  return children;
}

/**
 * Walks a thrown value and its cause chain, breadth-first and bounded. Duck-typed and
 * defensive: hostile getters, proxies and cycles never make it throw.
 */
export function readFailureEvidence(error: unknown): FailureEvidence {
  const facts = emptyFacts();
  const nodes: FailureNode[] = [];
  const seen = new Set<object>();
  let queue: Pending[] = [{ value: error, payload: false }];
  for (let depth = 0; depth <= maxDepth && queue.length > 0; depth++) {
    const next: Pending[] = [];
    for (const { value, payload } of queue) {
      if (typeof value === 'string') {
        collectText(value, facts);
        continue;
      }
      if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue;
      if (seen.has(value) || seen.size >= maxNodes) continue;
      seen.add(value);
      try {
        nodes.push({ value, payload });
        collectNode(value, facts);
        next.push(...childrenOf(value, payload));
      } catch {
        // A node that defeats even the guarded reads contributes nothing.
      }
    }
    queue = next;
  }
  return { facts, nodes };
}

/** Reads everything classification needs from a thrown value and its cause chain. */
export function readFailureFacts(error: unknown): FailureFacts {
  return readFailureEvidence(error).facts;
}
