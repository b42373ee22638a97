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
  /** The tool that sent the write, when the downstream serves more than one. */
  tool?: string | undefined;
}

/** One request to undo a write: sent under the undo's own key, naming the write it undoes. */
export interface UndoLine {
  key: string;
  tool: string;
  worker: number;
  /** The idempotency key of the write being undone. */
  writeKey: string;
  /** The receipt of that write, as the compensation was handed it. */
  of: string | undefined;
}

export interface FileDownstreamOptions {
  dedupe: boolean;
  /** Applies an undo key once: a repeat of it changes nothing (an idempotent DELETE). */
  dedupeUndos?: boolean | undefined;
  /** Refuses the first undo request of each key, as a 503 would, applying nothing. */
  refuseFirstUndo?: boolean | undefined;
}

export interface FileDownstream {
  /** Applies a write sent with `key`. With `dedupe`, a key seen before returns its first receipt. */
  write(key: string, worker: number, tool?: string): TransferReceipt;
  /** Applies an undo; `unavailable` when refused (nothing applied, the caller may retry). */
  undo(line: UndoLine): 'applied' | 'unavailable';
  /** The receipt of the write applied under `key`, if any (a reconcile read). */
  find(key: string): TransferReceipt | undefined;
  /** Every request that reached the downstream, applied or deduplicated. */
  requests(): DownstreamLine[];
  /** Every write that changed the downstream. */
  writes(): DownstreamLine[];
  /** Every undo request that reached the downstream, refused or applied. */
  undoRequests(): UndoLine[];
  /** Every undo that changed the downstream, in the order applied. */
  undos(): UndoLine[];
}

/**
 * A downstream shared by processes and durable across a SIGKILL: lines appended with
 * O_APPEND (one small write each, so lines from many processes never interleave), and for
 * deduplication one marker file per key created with O_EXCL (`wx`), which only one
 * process can win.
 */
export function openFileDownstream(dir: string, options: FileDownstreamOptions): FileDownstream {
  const keys = join(dir, 'keys');
  const refusals = join(dir, 'refused');
  mkdirSync(keys, { recursive: true });
  mkdirSync(refusals, { recursive: true });
  const requestsLog = join(dir, 'requests.log');
  const writesLog = join(dir, 'writes.log');
  const undoRequestsLog = join(dir, 'undo-requests.log');
  const undosLog = join(dir, 'undos.log');
  const hashOf = (key: string) => createHash('sha256').update(key).digest('hex');
  const markerOf = (key: string) => join(keys, hashOf(key));
  const readLines = <T = DownstreamLine>(path: string): T[] => {
    try {
      return readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T);
    } catch {
      return [];
    }
  };
  /** True for the first caller of `key` only, in any process: O_EXCL decides. */
  const firstTime = (key: string): boolean => {
    try {
      writeFileSync(join(refusals, hashOf(key)), '', { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
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
    write(key, worker, tool) {
      appendFileSync(requestsLog, `${JSON.stringify({ key, worker, tool })}\n`);
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
      appendFileSync(writesLog, `${JSON.stringify({ key, worker, tool })}\n`);
      return receipt;
    },
    undo(line) {
      appendFileSync(undoRequestsLog, `${JSON.stringify(line)}\n`);
      if (options.refuseFirstUndo && firstTime(line.key)) return 'unavailable';
      if (options.dedupeUndos && !firstTime(`applied:${line.key}`)) return 'applied';
      appendFileSync(undosLog, `${JSON.stringify(line)}\n`);
      return 'applied';
    },
    find,
    requests: () => readLines(requestsLog),
    writes: () => readLines(writesLog),
    undoRequests: () => readLines<UndoLine>(undoRequestsLog),
    undos: () => readLines<UndoLine>(undosLog),
  };
}
