import { createHash } from 'node:crypto';
import type { Context } from '@restatedev/restate-sdk';

const maxRunIdLength = 128;

/**
 * The run a handler's calls belong to, stable across Restate's retries and suspensions of
 * the invocation: `<workflow>/<key>` in a workflow's handlers (one run per workflow key),
 * the invocation id anywhere else. A virtual object's key alone would outlive one run, so
 * an object's handlers use the invocation id too.
 */
export function runIdOf(ctx: Context): string {
  const request = ctx.request();
  const { service, key } = request.target;
  if (key !== undefined && isWorkflowContext(ctx)) {
    const id = `${service}/${key}`;
    if (id.length <= maxRunIdLength) return id;
    const digest = createHash('sha256').update(key).digest('hex').slice(0, 48);
    return `${service.slice(0, maxRunIdLength - digest.length - 1)}/${digest}`;
  }
  return String(request.id);
}

/** Workflow contexts (the run and the shared handlers) are the ones with durable promises. */
function isWorkflowContext(ctx: Context): boolean {
  return typeof (ctx as unknown as { promise?: unknown }).promise === 'function';
}
