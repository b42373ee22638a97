import { describe, expect, it } from 'vitest';
import { classesOf } from './classes-of.test-harness.js';

function smtpError(code: string, command: string, responseCode?: number, response?: string) {
  return Object.assign(new Error(response ?? code), { code, command, responseCode, response });
}

describe('SMTP replies from nodemailer (shape)', () => {
  it.each([
    [
      'EAUTH',
      'AUTH PLAIN',
      535,
      '535 5.7.8 Authentication credentials invalid',
      'AUTHORIZATION',
      'AUTHORIZATION',
      'NOT_AUTHORIZED',
    ],
    [
      'EAUTH',
      'AUTH PLAIN',
      454,
      '454 4.7.0 Temporary authentication failure',
      'TRANSIENT',
      'TRANSIENT',
      'TEMPORARY_FAILURE',
    ],
    [
      'EENVELOPE',
      'RCPT TO',
      452,
      '452 4.2.2 Mailbox full',
      'TRANSIENT',
      'TRANSIENT',
      'TEMPORARY_FAILURE',
    ],
    [
      'EENVELOPE',
      'RCPT TO',
      550,
      '550 5.1.1 No such user',
      'PERMANENT',
      'PERMANENT',
      'MAILBOX_UNAVAILABLE',
    ],
    [
      'EENVELOPE',
      'RCPT TO',
      554,
      '554 5.7.1 Relay access denied',
      'AUTHORIZATION',
      'AUTHORIZATION',
      'FORBIDDEN',
    ],
    [
      'EMESSAGE',
      'DATA',
      451,
      '451 4.3.0 Try again later',
      'TRANSIENT',
      'TRANSIENT',
      'TEMPORARY_FAILURE',
    ],
    [
      'EMESSAGE',
      'DATA',
      552,
      '552 5.3.4 Message size exceeds fixed limit',
      'VALIDATION',
      'VALIDATION',
      'INVALID_INPUT',
    ],
    ['EMESSAGE', 'DATA', 554, '554 Transaction failed', 'PERMANENT', 'PERMANENT', 'REJECTED'],
    [
      'EPROTOCOL',
      'CONN',
      421,
      '421 Service not available',
      'TRANSIENT',
      'TRANSIENT',
      'SERVICE_UNAVAILABLE',
    ],
    [
      'EENVELOPE',
      'MAIL FROM',
      501,
      '501 Syntax error in parameters',
      'VALIDATION',
      'VALIDATION',
      'INVALID_INPUT',
    ],
  ])('%s %s %i', (code, command, responseCode, response, noHint, withHint, expected) => {
    expect(classesOf(smtpError(code, command, responseCode, response))).toEqual([
      noHint,
      withHint,
      expected,
    ]);
  });

  it('a timeout while connecting or greeting sent nothing; a socket failure may follow DATA', () => {
    const timeout = (timeoutType: string) =>
      Object.assign(smtpError('ETIMEDOUT', 'CONN'), { timeoutType });
    expect(classesOf(timeout('GREETING_TIMEOUT'))).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
    expect(classesOf(timeout('CONNECT_TIMEOUT'))).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
    expect(classesOf(timeout('SOCKET_TIMEOUT'))).toEqual([
      'TRANSIENT',
      'UNKNOWN_OUTCOME',
      'TIMEOUT',
    ]);
    // nodemailer tags a connection lost at any stage, even after DATA, with command CONN.
    expect(classesOf(smtpError('ECONNECTION', 'CONN'))).toEqual([
      'TRANSIENT',
      'UNKNOWN_OUTCOME',
      'CONNECTION_RESET',
    ]);
    // Its own check on a closed connection, before anything was written.
    expect(classesOf(smtpError('ECONNECTION', 'API'))).toEqual([
      'TRANSIENT',
      'TRANSIENT',
      'CONNECTION_RESET',
    ]);
    expect(classesOf(smtpError('EDNS', 'CONN'))).toEqual(['TRANSIENT', 'TRANSIENT', 'DNS_FAILURE']);
  });

  it('missing credentials and an empty envelope are not transport failures', () => {
    expect(classesOf(smtpError('EAUTH', 'API'))[0]).toBe('AUTHORIZATION');
    expect(classesOf(smtpError('EENVELOPE', 'API'))[0]).toBe('VALIDATION');
  });
});

describe('5.7.x read with its text: the client refused, or the message', () => {
  const refusal = (response: string, responseCode = 550) =>
    smtpError('EENVELOPE', 'RCPT TO', responseCode, response);

  it.each([
    // the message: another one may go through
    [
      '554 5.7.1 message rejected: content violates the site policy',
      'PERMANENT',
      'MESSAGE_REJECTED',
    ],
    [
      '550 5.7.1 Our system has detected that this message is likely unsolicited mail',
      'PERMANENT',
      'MESSAGE_REJECTED',
    ],
    ['554 5.7.1 Message rejected as spam', 'PERMANENT', 'MESSAGE_REJECTED'],
    ['550 5.7.1 Virus detected: Eicar-Test-Signature', 'PERMANENT', 'MESSAGE_REJECTED'],
    [
      "550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy",
      'PERMANENT',
      'MESSAGE_REJECTED',
    ],
    [
      '550 5.7.23 The message was rejected because of Sender Policy Framework violation (SPF)',
      'PERMANENT',
      'MESSAGE_REJECTED',
    ],
    // the client: it will be refused again
    ['554 5.7.1 Relay access denied', 'AUTHORIZATION', 'FORBIDDEN'],
    ['550 5.7.1 Unable to relay for ops@example.com', 'AUTHORIZATION', 'FORBIDDEN'],
    [
      '550 5.7.54 SMTP; Unable to relay recipient in non-accepted domain',
      'AUTHORIZATION',
      'FORBIDDEN',
    ],
    [
      '554 5.7.1 Service unavailable; Client host [203.0.113.7] blocked using zen.spamhaus.org',
      'AUTHORIZATION',
      'FORBIDDEN',
    ],
    [
      '550 5.7.1 Sender address rejected: not owned by user agent@example.com',
      'AUTHORIZATION',
      'FORBIDDEN',
    ],
    ['550 5.7.606 Access denied, banned sending IP [203.0.113.7]', 'AUTHORIZATION', 'FORBIDDEN'],
    ['550 5.7.1 Relaying denied by policy', 'AUTHORIZATION', 'FORBIDDEN'],
    ['550 5.7.57 Client not authenticated to send mail', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['554 5.7.8 Error: authentication failed', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    ['550 5.7.13 User account disabled', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
    // a bare 5.7.1: "delivery not authorized" refuses the sender
    ['550 5.7.1 Delivery not authorized, message refused', 'AUTHORIZATION', 'FORBIDDEN'],
  ])('%s', (response, failureClass, code) => {
    expect(classesOf(refusal(response))).toEqual([failureClass, failureClass, code]);
  });
});
