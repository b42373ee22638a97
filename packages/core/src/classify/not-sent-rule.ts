import { classifyCode } from './code-rule.js';
import type { FailureEvidence } from './failure-evidence.js';
import { readString } from './safe-read.js';
import type { Verdict } from './verdict.js';

// What a client proves when it could not open a connection: nothing reached the server.
const unsentCodes = new Set(['CONNECTION_REFUSED', 'DNS_FAILURE', 'TIMEOUT']);

// Where errno codes sit: `code`, a string `errno` (older clients), and nodemailer's
// `originalCode` under its own `ESOCKET`.
const codeKeys = ['code', 'errno', 'originalCode'] as const;

function unsentVerdict(node: object): Verdict | undefined {
  const syscall = readString(node, 'syscall');
  for (const key of codeKeys) {
    const code = readString(node, key);
    if (code === undefined || code.length > 100) continue;
    const result = classifyCode(code, syscall === undefined ? [] : [syscall]);
    if (result && !result.ambiguous && unsentCodes.has(result.code)) return result;
  }
  return undefined;
}

/**
 * Facts before rules: a refused connection, a failed DNS lookup or a connect timeout
 * anywhere on the cause chain means the request never left, whatever status a wrapper
 * put on the outside (Octokit reports a refused connection as a 500). Payload nodes do
 * not count: a server's body saying it could not reach its own database proves nothing
 * about this request, and neither does one earlier attempt in a retry's list.
 */
export function recogniseUnsent(evidence: FailureEvidence): Verdict | undefined {
  for (const node of evidence.nodes) {
    if (node.payload) continue;
    const result = unsentVerdict(node.value);
    if (result) return result;
  }
  return undefined;
}
