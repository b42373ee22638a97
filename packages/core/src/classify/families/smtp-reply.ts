import type { FailureEvidence } from '../failure-evidence.js';
import { readNumber, readString } from '../safe-read.js';
import { transient, type Verdict, verdict } from '../verdict.js';

const unauthenticated = verdict('AUTHORIZATION', 'NOT_AUTHORIZED');

// X.7.Y (security or policy) refuses either the sender or the message, and the code alone
// rarely says which: 5.7.1 is "relay access denied" on one server and "message rejected as
// spam" on the next. Enhanced codes that are about the client's credentials (RFC 4954,
// RFC 5248: 5.7.8, 5.7.9, 5.7.11 to 5.7.14) and text that refuses the client (relaying,
// authentication, the sender or its host) are AUTHORIZATION: that sender will be refused
// again. Text that refuses this message (content, spam, a virus, the sending domain's
// SPF / DKIM / DMARC, a policy) is PERMANENT: another message may go through.
const credentialCodes = /\b5\.7\.(?:8|9|11|12|13|14)\b/;
const refusesClient =
  /\brelay(?:ing)?\b|\bauthenticat(?:e|ion)\s+(?:is\s+)?(?:required|failed|unsuccessful)|\bnot\s+authenticated\b|\bmust\s+(?:first\s+)?(?:authenticate|log\s*in)|\bcredentials?\b|\bsender\s+(?:address\s+)?(?:rejected|denied|not\s+(?:allowed|authori[sz]ed|permitted))|\bnot\s+(?:allowed|authori[sz]ed|permitted)\s+to\s+send\b|\bclient\s+host\b.{0,120}\b(?:blocked|rejected)|\baccess\s+denied\b|\bsending\s+ip\b|\bdelivery\s+not\s+authori[sz]ed\b/i;
const refusesMessage =
  /\bspam\b|\bunsolicited\b|\bbulk\b|\bcontent\b|\bvirus\b|\bmalware\b|\bphish|\bspf\b|\bdkim\b|\bdmarc\b|\bpolicy\b|\bpolicies\b|\bmessage\s+(?:rejected|refused|blocked)\b/i;

function classifyPolicyRefusal(response: string): Verdict {
  // Whose fault: the sending domain's SPF / DKIM / DMARC and the message's content come
  // first ("Unauthenticated email ... DMARC policy" refuses the message, not the login).
  if (/\b(?:spf|dkim|dmarc)\b/i.test(response)) return verdict('PERMANENT', 'MESSAGE_REJECTED');
  if (refusesClient.test(response)) {
    return /authenticat|credential|log\s*in/i.test(response)
      ? unauthenticated
      : verdict('AUTHORIZATION', 'FORBIDDEN');
  }
  if (credentialCodes.test(response) && !refusesMessage.test(response)) return unauthenticated;
  if (refusesMessage.test(response)) return verdict('PERMANENT', 'MESSAGE_REJECTED');
  // 5.7.1 with nothing more: "delivery not authorized" (RFC 3463) refuses the sender.
  return verdict('AUTHORIZATION', 'FORBIDDEN');
}

// An SMTP reply is a definite answer: a 4yz or 5yz to any command, the end of DATA
// included, means the message was not accepted. 4yz is temporary, 5yz permanent.
function classifyReply(code: number, response: string): Verdict {
  if (code === 530 || code === 534 || code === 535 || code === 538) return unauthenticated;
  if (/\b5\.7\.\d{1,3}\b/.test(response)) return classifyPolicyRefusal(response);
  if (/\b5\.3\.4\b/.test(response)) return verdict('VALIDATION', 'INVALID_INPUT'); // too big
  if (code === 421) return transient('SERVICE_UNAVAILABLE');
  if (code >= 400 && code < 500) return transient('TEMPORARY_FAILURE');
  if (code === 500 || code === 501 || code === 555) return verdict('VALIDATION', 'INVALID_INPUT');
  if (code === 502 || code === 504) return verdict('PERMANENT', 'NOT_SUPPORTED');
  if (code === 550 || code === 551 || code === 553)
    return verdict('PERMANENT', 'MAILBOX_UNAVAILABLE');
  return verdict('PERMANENT', 'REJECTED');
}

// nodemailer tags socket failures `command: 'CONN'` at any stage, so the command does not
// say whether the message went out. What does: a check of its own before anything was
// written (`command: 'API'`), and the phase of a timeout (`timeoutType`).
const setupTimeouts = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT']);

function classifyTransport(node: object, code: string, command: string): Verdict | undefined {
  if (code === 'EAUTH') return unauthenticated; // e.g. missing credentials, no reply
  if (code === 'EENVELOPE' || code === 'EMESSAGE') return verdict('VALIDATION', 'INVALID_INPUT');
  if (code === 'EDNS') return transient('DNS_FAILURE');
  if (code === 'ETIMEDOUT') {
    return transient('TIMEOUT', !setupTimeouts.has(readString(node, 'timeoutType') ?? ''));
  }
  if (code === 'ESOCKET' || code === 'ECONNECTION' || code === 'EPROTOCOL') {
    return transient('CONNECTION_RESET', command !== 'API');
  }
  return undefined;
}

/** SMTP failures from nodemailer (`responseCode`, `response`, `command`, `code`). */
export function recogniseSmtpReply(evidence: FailureEvidence): Verdict | undefined {
  for (const { value, payload } of evidence.nodes) {
    if (payload) continue;
    const command = readString(value, 'command');
    if (command === undefined) continue;
    const responseCode = readNumber(value, 'responseCode');
    if (responseCode !== undefined && responseCode >= 400 && responseCode < 600) {
      return classifyReply(responseCode, readString(value, 'response') ?? '');
    }
    const code = readString(value, 'code');
    const result = code === undefined ? undefined : classifyTransport(value, code, command);
    if (result) return result;
  }
  return undefined;
}
