import type {
  JSONRPCErrorResponse,
  JSONRPCMessage,
  JSONRPCNotification,
  JSONRPCRequest,
  JSONRPCResultResponse,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';

// Shape checks on messages the transports already validated: which kind of message, no
// schema parse (the proxy forwards each message as it came, every field kept).

export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

export function isNotification(message: JSONRPCMessage): message is JSONRPCNotification {
  return 'method' in message && !('id' in message);
}

export function isResult(message: JSONRPCMessage): message is JSONRPCResultResponse {
  return 'result' in message;
}

export function isErrorResponse(message: JSONRPCMessage): message is JSONRPCErrorResponse {
  return 'error' in message;
}

export function errorResponse(id: RequestId, code: number, message: string): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

export function resultResponse(
  id: RequestId,
  result: Record<string, unknown>,
): JSONRPCResultResponse {
  return { jsonrpc: '2.0', id, result } as JSONRPCResultResponse;
}

/** MCP's "connection closed" JSON-RPC error code. */
export const connectionClosedCode = -32000;
