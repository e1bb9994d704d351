import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

marked.use({
  // The page has its own h1; a user's headings start one level below it.
  walkTokens(token) {
    if (token.type === 'heading') token.depth = Math.min(6, token.depth + 1);
  },
  // HTML written inside the markdown is shown as the text it is. Only markdown makes markup, so
  // the sanitiser never even parses a user's event handlers (Chromium reports each one it parses
  // as a content security policy violation, though nothing runs).
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
});

// Links written by agent owners open outside the app and tell the target nothing about it.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('rel', 'noopener noreferrer nofollow');
    node.setAttribute('target', '_blank');
  }
});

/**
 * Markdown written by users, parsed by marked and then sanitised by DOMPurify: scripts, event
 * handlers, styles, forms and javascript: or data: links never reach the page. Images are dropped
 * too (the page's content security policy would block other sites' images anyway). DOMPurify stays
 * the guard even though raw HTML is escaped first: markdown links and autolinks still make hrefs.
 */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'img', 'video', 'audio', 'iframe', 'svg', 'math'],
    FORBID_ATTR: ['style', 'class', 'id'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
  });
}

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
