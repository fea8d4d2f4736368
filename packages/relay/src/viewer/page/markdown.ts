import DOMPurify from 'dompurify';
import { marked } from 'marked';

// Links from agent text open outside the viewer and never learn where they came from.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

function sanitize(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
    RETURN_DOM_FRAGMENT: true,
  });
}

/**
 * Agent text as markdown (GitHub flavour), sanitised: raw HTML in the text is cleaned by DOMPurify,
 * so a message can format but never run script or restyle the page. The page's CSP also blocks any
 * image that is not from the relay or decrypted locally.
 */
export function renderMarkdown(text: string): DocumentFragment {
  return sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }));
}

/** Inline markdown (tool call titles and descriptions: `code`, bold, italic, links), sanitised. */
export function renderInlineMarkdown(text: string): DocumentFragment {
  return sanitize(marked.parseInline(text, { async: false, gfm: true }));
}
