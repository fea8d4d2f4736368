export { MemoryTransport } from './memoryTransport.js';
export { isRetryableTransportError } from './transportErrors.js';
export type { TransportErrorCode } from './transportErrors.js';
export type { Transport, OutgoingRecord, AppendAck, StoredRecord, ReadPage } from './transport.js';
