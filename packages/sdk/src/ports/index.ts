/**
 * `happy-session/ports`: what a program implements or plugs in under the writer and the reader,
 * and the in-memory implementations to test with: the transport's records, the RPC and session
 * state ports, retries, the record feed, and the plug-in interfaces the permission gate and the
 * media pipeline install. The root has `Transport` and `MemoryTransport`. Each group's reason:
 * docs/api.md, "happy-session/ports".
 */
// Records: what a transport stores and returns.
export type { OutgoingRecord, AppendAck, AppendOptions, StoredRecord, ReadPage } from './transport.js';

// Retries: which transport failures the writer and the reader retry, and how, for a transport of
// a program's own. The record feed that polls a transport's tail is the SDK's own.
export { isRetryableTransportError, RetryPolicy } from './retryPolicy.js';
export type { RetryPolicyOptions, RetryNotice } from './retryPolicy.js';

// What an `events()` / `records()` iteration takes (an abort signal, a buffer bound).
export type { IterateOptions } from './asyncIterable.js';

// RPC and session state: the ports of `connect()`'s session, with in-memory implementations to test with.
export { MemoryRpc } from './rpc.js';
export type { RpcHandler, RpcContext, RpcRegistry, RpcOutcome, SessionRpcCaller } from './rpc.js';
export { MemorySessionState } from './sessionState.js';
export type { SessionStateStore, PushNotifier, PushEvent, StateObject } from './sessionState.js';

// The writer's plug-ins: what `PermissionGate`, `QuestionDesk` and `MediaPipeline` install, for a program's own.
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
