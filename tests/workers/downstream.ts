import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the downstream returns for a write, and what a duplicate must get back. */
export interface TransferReceipt {
  transferId: string;
  executedBy: number;
}

export interface DownstreamLine {
  key: string;
  worker: number;
}

export interface FileDownstream {
  /** Applies a write sent with `key`. With `dedupe`, a key seen before returns its first receipt. */
  write(key: string, worker: number): TransferReceipt;
  /** The receipt of the write applied under `key`, if any (a reconcile read). */
  find(key: string): TransferReceipt | undefined;
  /** Every request that reached the downstream, applied or deduplicated. */
  requests(): DownstreamLine[];
  /** Every write that changed the downstream. */
  writes(): DownstreamLine[];
}

/**
 * A downstream shared by processes and durable across a SIGKILL: lines appended with
 * O_APPEND (one small write each, so lines from many processes never interleave), and for
 * deduplication one marker file per key created with O_EXCL (`wx`), which only one
 * process can win.
 */
export function openFileDownstream(dir: string, options: { dedupe: boolean }): FileDownstream {
  const keys = join(dir, 'keys');
  mkdirSync(keys, { recursive: true });
  const requestsLog = join(dir, 'requests.log');
  const writesLog = join(dir, 'writes.log');
  const markerOf = (key: string) => join(keys, createHash('sha256').update(key).digest('hex'));
  const readLines = (path: string): DownstreamLine[] => {
    try {
      return readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as DownstreamLine);
    } catch {
      return [];
    }
  };
  const find = (key: string): TransferReceipt | undefined => {
    try {
      return JSON.parse(readFileSync(markerOf(key), 'utf8')) as TransferReceipt;
    } catch {
      return undefined;
    }
  };

  return {
    write(key, worker) {
      appendFileSync(requestsLog, `${JSON.stringify({ key, worker })}\n`);
      const receipt: TransferReceipt = {
        transferId: `t-${markerOf(key).slice(-8)}-${worker}`,
        executedBy: worker,
      };
      try {
        writeFileSync(markerOf(key), JSON.stringify(receipt), {
          flag: options.dedupe ? 'wx' : 'w',
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const first = find(key);
        if (first) return first;
        throw error;
      }
      appendFileSync(writesLog, `${JSON.stringify({ key, worker })}\n`);
      return receipt;
    },
    find,
    requests: () => readLines(requestsLog),
    writes: () => readLines(writesLog),
  };
}
