/** A child for {@link h}: a node, text (set as text, never parsed as HTML), or nothing. */
export type Child = Node | string | null | undefined | false;

/**
 * Creates an element with attributes and children. Strings become text nodes, so data from the
 * stream can never inject markup; only the markdown renderer (which sanitises) sets HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, string | undefined>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Local wall-clock time of a unix-ms timestamp, e.g. `14:03:22`. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour12: false });
}

/** When a session last changed, for the list: the time today, else the date and time. */
export function listTime(ms: number, now: number = Date.now()): string {
  const date = new Date(ms);
  if (date.toDateString() === new Date(now).toDateString()) {
    return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hour12: false });
  }
  return date.toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  });
}

/** A byte count for people, in the CLI's units: `812 B`, `4.2 KiB`, `3.1 MiB`. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}
