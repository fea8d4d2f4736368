/**
 * The OpenAI Agents JS adapter (`happy-session/openai-agents`, docs/integrations.md): a streamed
 * run mirrored into the session, its interruptions answered by the session's permission gate and
 * resumed, handoffs and agents used as tools nested. `@openai/agents` is an optional peer of the
 * SDK: importing this entry without it throws `integration.framework_missing`.
 */
import { requireFramework } from '../frameworkPeer.js';

requireFramework('@openai/agents', 'happy-session/openai-agents');

export { OpenAiAgentsBridge, openAiAgentsBridge } from './bridge.js';
export type {
  AgentToolStreamEvent,
  AgentsApprovalOptions,
  AgentsCall,
  AgentsInput,
  AgentsRunState,
  AgentsStart,
  AgentsStream,
  AgentsTurnOptions,
  AgentsTurnResult,
  AgentsTurnSource,
  OpenAiAgentsBridgeOptions,
} from './bridge.js';
export { DEFAULT_TOOL_ERROR } from './eventMirror.js';
