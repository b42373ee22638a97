import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import nodemailer from 'nodemailer';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { classesOf, closedPort, rejection } from './support.js';

const servers: SMTPServer[] = [];
afterEach(async () => {
  await Promise.all(
    servers
      .splice(0)
      .map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

/** A local smtp-server; returns its port. */
async function smtpServer(options: SMTPServerOptions): Promise<number> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    ...options,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return (server.server.address() as { port: number }).port;
}

function reject(message: string, responseCode: number) {
  return Object.assign(new Error(message), { responseCode });
}

function send(port: number, options: Record<string, unknown> = {}) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    ...options,
  });
  return rejection(() =>
    transport.sendMail({ from: 'agent@example.com', to: 'ops@example.com', text: 'deployed' }),
  );
}

describe('nodemailer SMTP failures against a local smtp-server', () => {
  it('535 authentication failed is AUTHORIZATION', async () => {
    const port = await smtpServer({
      authOptional: false,
      onAuth: (_auth, _session, callback) => callback(new Error('Invalid username or password')),
    });
    const error = await send(port, { auth: { user: 'agent', pass: 'wrong' } });
    expect(error).toMatchObject({ code: 'EAUTH', responseCode: 535 });
    expect(classesOf(error)).toEqual(['AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED']);
  });

  it.each([
    [452, '4.2.2 Mailbox full', 'TRANSIENT', 'TRANSIENT', 'TEMPORARY_FAILURE'],
    [550, '5.1.1 No such user here', 'PERMANENT', 'PERMANENT', 'MAILBOX_UNAVAILABLE'],
    [554, '5.7.1 Relay access denied', 'AUTHORIZATION', 'AUTHORIZATION', 'FORBIDDEN'],
    [
      550,
      '5.7.1 Sender address rejected: not owned by user agent',
      'AUTHORIZATION',
      'AUTHORIZATION',
      'FORBIDDEN',
    ],
    [530, '5.7.0 Authentication required', 'AUTHORIZATION', 'AUTHORIZATION', 'NOT_AUTHORIZED'],
  ])('RCPT TO answered %i %s', async (code, text, noHint, withHint, expected) => {
    const port = await smtpServer({
      onRcptTo: (_address, _session, callback) => callback(reject(text, code)),
    });
    const error = await send(port);
    expect(error).toMatchObject({ code: 'EENVELOPE', responseCode: code, command: 'RCPT TO' });
    expect(classesOf(error)).toEqual([noHint, withHint, expected]);
  });

  it.each([
    [
      451,
      '4.3.0 Temporary local problem, try later',
      'TRANSIENT',
      'TRANSIENT',
      'TEMPORARY_FAILURE',
    ],
    [552, '5.3.4 Message size exceeds fixed limit', 'VALIDATION', 'VALIDATION', 'INVALID_INPUT'],
    [554, '5.6.0 Message rejected', 'PERMANENT', 'PERMANENT', 'REJECTED'],
    // 5.7.1 refusing the message, not the sender: another message may go through
    [
      554,
      '5.7.1 message rejected: content violates the site policy',
      'PERMANENT',
      'PERMANENT',
      'MESSAGE_REJECTED',
    ],
    [550, '5.7.1 Message rejected as spam', 'PERMANENT', 'PERMANENT', 'MESSAGE_REJECTED'],
  ])(
    'the end of DATA answered %i %s: the message was not accepted',
    async (code, text, noHint, withHint, expected) => {
      const port = await smtpServer({
        onData: (stream, _session, callback) => {
          stream.resume();
          stream.on('end', () => callback(reject(text, code)));
        },
      });
      const error = await send(port);
      expect(error).toMatchObject({ responseCode: code });
      expect(classesOf(error)).toEqual([noHint, withHint, expected]);
    },
  );

  it('a refused connection is TRANSIENT', async () => {
    const error = await send(await closedPort());
    expect(error).toMatchObject({ code: 'ESOCKET', command: 'CONN' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'CONNECTION_REFUSED']);
  });

  it('a server that never greets times out before anything was sent', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const error = await send((silent.address() as { port: number }).port, { greetingTimeout: 50 });
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    expect(error).toMatchObject({
      code: 'ETIMEDOUT',
      command: 'CONN',
      timeoutType: 'GREETING_TIMEOUT',
    });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'TRANSIENT', 'TIMEOUT']);
  });

  it('a connection lost after the message body was sent may have delivered it', async () => {
    // A minimal SMTP peer that accepts everything, then closes instead of answering the
    // end of DATA: the message arrived, its fate is unknown.
    const sockets: Socket[] = [];
    const peer = createServer((socket) => {
      sockets.push(socket);
      let inData = false;
      socket.write('220 peer ESMTP\r\n');
      socket.on('data', (chunk) => {
        const text = String(chunk);
        if (inData) {
          if (text.includes('\r\n.\r\n')) socket.destroy();
          return;
        }
        if (/^EHLO/i.test(text)) socket.write('250-peer\r\n250 8BITMIME\r\n');
        else if (/^DATA/i.test(text)) {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else socket.write('250 ok\r\n');
      });
    });
    peer.listen(0, '127.0.0.1');
    await once(peer, 'listening');
    const error = await send((peer.address() as { port: number }).port);
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => peer.close(resolve));
    // nodemailer reports it as command CONN, the tag of every socket failure.
    expect(error).toMatchObject({ code: 'ECONNECTION', command: 'CONN' });
    expect(classesOf(error)).toEqual(['TRANSIENT', 'UNKNOWN_OUTCOME', 'CONNECTION_RESET']);
  });
});
