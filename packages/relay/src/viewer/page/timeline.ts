import type { FoldedAgentGroup, FoldedCall, FoldedNode, FoldedSession, FoldedTurn } from 'happy-session';
import type { FoldedMessage } from 'happy-session';
import { h } from './dom.js';
import { renderInlineMarkdown } from './markdown.js';
import { MessageView } from './messageView.js';
import { PermissionView } from './permissionView.js';
import type { NodeView, RenderContext } from './renderContext.js';

const CALL_STATUS_LABEL: Readonly<Record<FoldedCall['status'], string>> = {
  running: 'running',
  'awaiting-permission': 'awaiting permission',
  done: 'done',
  denied: 'denied',
  failed: 'failed',
  cancelled: 'cancelled',
};

const TURN_STATUS_LABEL: Readonly<Record<FoldedTurn['status'], string>> = {
  open: 'working…',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/**
 * The children of one node. The fold only ever appends children, so new ones are appended to the
 * DOM as they come and existing elements (an opened `details`, a loaded photo) are kept.
 */
class ChildList {
  private rendered = 0;

  constructor(
    readonly element: HTMLElement,
    private readonly timeline: TimelineView,
  ) {}

  sync(nodes: ReadonlyArray<FoldedNode | FoldedTurn>): void {
    for (; this.rendered < nodes.length; this.rendered++) {
      this.element.append(this.timeline.viewOf(nodes[this.rendered]!).element);
    }
    for (const node of nodes) this.timeline.viewOf(node).update();
  }
}

class TurnView implements NodeView {
  readonly element: HTMLElement;
  private readonly status = h('span', { class: 'turn-status' });
  private readonly children: ChildList;

  constructor(
    private readonly turn: FoldedTurn,
    timeline: TimelineView,
  ) {
    const body = h('div', { class: 'children' });
    this.element = h(
      'section',
      { class: 'turn', 'data-turn': turn.turn },
      h('header', { class: 'turn-header' }, 'Turn ', this.status),
      body,
    );
    this.children = new ChildList(body, timeline);
  }

  update(): void {
    this.element.dataset.status = this.turn.status;
    this.status.textContent = TURN_STATUS_LABEL[this.turn.status];
    this.children.sync(this.turn.children);
  }
}

class AgentGroupView {
  readonly element: HTMLElement;
  private readonly children: ChildList;

  constructor(
    private readonly group: FoldedAgentGroup,
    timeline: TimelineView,
  ) {
    const body = h('div', { class: 'children' });
    this.element = h(
      'section',
      { class: 'agent-group', 'data-agent-id': group.agentId },
      h('header', { class: 'agent-title' }, group.title ?? `Subagent ${group.agentId}`),
      body,
    );
    this.children = new ChildList(body, timeline);
  }

  update(): void {
    this.children.sync(this.group.children);
  }
}

class CallView implements NodeView {
  readonly element: HTMLElement;
  private readonly status = h('span', { class: 'call-status' });
  private readonly error = h('div', { class: 'call-error' });
  private readonly permissionSlot = h('div', { class: 'permission-slot' });
  private readonly children: ChildList;
  private readonly agentsBox = h('div', { class: 'agents' });
  private readonly agents: AgentGroupView[] = [];
  private permission: PermissionView | undefined;

  constructor(
    private readonly call: FoldedCall,
    private readonly timeline: TimelineView,
    private readonly context: RenderContext,
  ) {
    const { start } = call;
    const body = h('div', { class: 'children' });
    const args = JSON.stringify(start.args, null, 2);
    this.element = h(
      'div',
      { class: 'call', 'data-call-id': call.callId, 'data-tool': start.toolName },
      h(
        'div',
        { class: 'call-header' },
        this.status,
        h('span', { class: 'call-title' }, renderInlineMarkdown(start.title || start.toolName)),
        h('code', { class: 'call-tool' }, start.toolName),
      ),
      start.description || args !== '{}'
        ? h(
            'details',
            { class: 'call-details' },
            h('summary', {}, 'details'),
            start.description ? h('div', {}, renderInlineMarkdown(start.description)) : null,
            args !== '{}' ? h('pre', {}, args) : null,
          )
        : null,
      this.error,
      this.permissionSlot,
      body,
      this.agentsBox,
    );
    this.children = new ChildList(body, timeline);
  }

  update(): void {
    const { call } = this;
    this.element.dataset.status = call.status;
    this.status.textContent = CALL_STATUS_LABEL[call.status];
    this.error.textContent =
      call.status === 'failed' || call.status === 'denied' ? (call.end?.error ?? '') : '';
    if (call.permission) {
      this.permission ??= this.mountPermission(call.permission.request);
      this.permission.update(this.context.permissionState(call.permission.request));
    }
    this.children.sync(call.children);
    for (let i = this.agents.length; i < call.agents.length; i++) {
      const view = new AgentGroupView(call.agents[i]!, this.timeline);
      this.agents.push(view);
      this.agentsBox.append(view.element);
    }
    for (const agent of this.agents) agent.update();
  }

  private mountPermission(request: NonNullable<FoldedCall['permission']>['request']): PermissionView {
    const view = new PermissionView(request, this.context.responder);
    this.permissionSlot.append(view.element);
    return view;
  }
}

/**
 * Renders a folded session (`SessionFold` from the SDK) as nested DOM: turns, tool calls with
 * their state, children under their parent call by `parentId`, subagents grouped by `agentId`
 * under their `agentTitle`. Call {@link TimelineView.render} after each batch of messages; it only
 * adds and updates, never rebuilds.
 */
export class TimelineView {
  readonly element = h('div', { class: 'timeline' });
  private readonly views = new Map<object, NodeView>();
  private readonly top: ChildList;

  constructor(private readonly context: RenderContext) {
    this.top = new ChildList(this.element, this);
  }

  render(session: FoldedSession): void {
    this.top.sync(session.timeline);
  }

  /** The view of a node, made on first use. */
  viewOf(node: FoldedNode | FoldedTurn): NodeView {
    let view = this.views.get(node);
    if (!view) {
      view = this.make(node);
      this.views.set(node, view);
    }
    return view;
  }

  private make(node: FoldedNode | FoldedTurn): NodeView {
    switch (node.kind) {
      case 'turn':
        return new TurnView(node, this);
      case 'call':
        return new CallView(node, this, this.context);
      default:
        return new MessageView((node as FoldedMessage).message, this.context);
    }
  }
}
