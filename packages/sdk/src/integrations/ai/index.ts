/**
 * The Vercel AI SDK adapter (`happy-session/ai`, docs/integrations.md): the framework's stream
 * mirrored into the session, its tool approvals answered by the session's permission gate. `ai`
 * is an optional peer of the SDK: importing this entry without it throws
 * `integration.framework_missing`.
 */
import { requireFramework } from '../frameworkPeer.js';

requireFramework('ai', 'happy-session/ai');

export { AiSdkBridge, aiSdkBridge } from './bridge.js';
export type {
  AiSdkBridgeOptions,
  AiSdkCall,
  AiSdkStart,
  AiSdkStream,
  AiSdkTurnOptions,
  AiSdkTurnResult,
  AiSdkApprovalOptions,
  AiSdkTurnSource,
} from './bridge.js';
