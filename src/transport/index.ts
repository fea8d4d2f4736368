export { MemoryTransport } from './memoryTransport.js';
export { isRetryableTransportError } from './transportErrors.js';
export type { TransportErrorCode } from './transportErrors.js';
export type { Transport, OutgoingRecord, AppendAck, StoredRecord, ReadPage } from './transport.js';
export { MemoryRpc, invokeRpcHandler } from './rpc.js';
export type { RpcHandler, RpcContext, RpcRegistry } from './rpc.js';
export { MemorySessionState } from './sessionState.js';
export type { SessionStateStore, PushNotifier, PushEvent, StateObject } from './sessionState.js';
