// The errors the proxy raises for what the upstream did. They carry the facts the core's
// classifier reads (an errno-style `code`, the server's own text); the proxy decides
// nothing from them itself.

/** JSON-RPC error codes of MCP, by meaning (the SDK's `ErrorCode`). */
const jsonRpcCodes = {
  connectionClosed: -32000,
  requestTimeout: -32001,
  invalidParams: -32602,
  methodNotFound: -32601,
  internalError: -32603,
} as const;

// What each protocol-level code means to the classifier. Anything else is left to the
// server's text (a 403, "rate limit", "503 Service Unavailable" written in it).
const factsByCode = new Map<number, string>([
  [jsonRpcCodes.connectionClosed, 'ECONNRESET'],
  [jsonRpcCodes.requestTimeout, 'REQUEST_TIMEOUT'],
  [jsonRpcCodes.invalidParams, 'INVALID_ARGUMENT'],
  [jsonRpcCodes.methodNotFound, 'NOT_SUPPORTED'],
  [jsonRpcCodes.internalError, 'INTERNAL_ERROR'],
]);

/** The upstream answered a request with a JSON-RPC error. */
export class UpstreamJsonRpcError extends Error {
  /** The classifier's word for the JSON-RPC code, when it has one. */
  readonly code: string | undefined;
  readonly jsonRpcCode: number;
  readonly data: unknown;

  constructor(error: { code: number; message: string; data?: unknown }) {
    super(error.message);
    this.name = 'UpstreamJsonRpcError';
    this.jsonRpcCode = error.code;
    this.code = factsByCode.get(error.code);
    this.data = error.data;
  }
}

/**
 * The upstream is gone. `sent: false`: the request never left (the process is down and not
 * yet started again), `ECONNREFUSED`; `sent: true`: it died or the stream broke with the
 * request in flight, `ECONNRESET` (it may have acted).
 */
export class UpstreamClosedError extends Error {
  readonly code: 'ECONNREFUSED' | 'ECONNRESET';

  constructor(sent: boolean, message: string) {
    super(message);
    this.name = 'UpstreamClosedError';
    this.code = sent ? 'ECONNRESET' : 'ECONNREFUSED';
  }
}
