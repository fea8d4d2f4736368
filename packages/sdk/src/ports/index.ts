/**
 * `happy-session/ports`: what a program implements or plugs in under the writer and the reader,
 * and the in-memory implementations to test with: the transport's records, the RPC and session
 * state ports, retries, the record feed, and the plug-in interfaces the permission gate and the
 * media pipeline install. The root has `Transport` and `MemoryTransport`. Each group's reason:
 * docs/api.md, "happy-session/ports".
 */
// Records: what a transport stores and returns.
export type { OutgoingRecord, AppendAck, AppendOptions, StoredRecord, ReadPage } from './transport.js';

// Retries and the record feed: what the writer and the reader use on a transport, for a program's own.
export { isRetryableTransportError, retryAfterOf, RetryPolicy, retrying } from './retryPolicy.js';
export type { RetryPolicyOptions, RetryingOptions, RetryNotice } from './retryPolicy.js';
export { recordFeed, DEFAULT_TAIL_CHECK_MS, DEFAULT_MAX_TAIL_CHECK_MS } from './recordFeed.js';
export type { RecordFeedOptions } from './recordFeed.js';
export { TailCheckPacer, DEFAULT_IDLE_TAIL_CHECKS_PER_SECOND } from './tailCheckPacer.js';

// Async iteration of an Observable, as every `xxx$` / `xxx()` pair of the SDK has it.
export { asyncIterableOf } from './asyncIterable.js';
export type { IterateOptions } from './asyncIterable.js';

// RPC and session state: the ports of `connect()`'s session, with in-memory implementations to test with.
export { MemoryRpc } from './rpc.js';
export type { RpcHandler, RpcContext, RpcRegistry, RpcOutcome, SessionRpcCaller } from './rpc.js';
export { callSessionRpc } from '../transport/sessionRpc.js';
export { MemorySessionState } from './sessionState.js';
export type { SessionStateStore, PushNotifier, PushEvent, StateObject } from './sessionState.js';

// The writer's plug-ins: what `PermissionGate` and `useMedia` install, for a program's own.
export type {
  PermissionRuntime,
  MediaRuntime,
  AttachTarget,
  MediaContent,
  UploadedMedia,
  WriterPlugin,
  WriterPlugins,
} from '../stream/plugins.js';
export type { StreamLifecycleEvent } from '../stream/types.js';
