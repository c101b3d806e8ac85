import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { Block, MailContent } from './content.js';
import type { SafeBrand } from './safe-values.js';

// layout.eta uses tables and inline styles only, because many mail clients drop <style> and
// ignore modern layout. autoEscape makes every <%= %> safe; the brand reaching it is a SafeBrand.
const eta = new Eta({
  views: path.dirname(fileURLToPath(import.meta.url)),
  autoEscape: true,
  cache: true,
});

export interface LayoutParts {
  lang: string;
  footer: string;
  linkFallback: string;
  colon: string;
}

export function renderHtml(content: MailContent, brand: SafeBrand, parts: LayoutParts): string {
  return eta.render('./layout', { ...content, ...parts, brand });
}

/** The plain-text part, written to be read as it is rather than derived from the HTML. */
export function renderText(content: MailContent, parts: LayoutParts): string {
  const body = content.blocks.map((block) => blockText(block, parts.colon));
  return [content.heading, ...body, `-- \n${parts.footer}`].join('\n\n') + '\n';
}

function blockText(block: Block, colon: string): string {
  switch (block.kind) {
    case 'paragraph':
    case 'note':
      return block.text;
    case 'code':
      return `    ${block.code}`;
    case 'button':
      return `${block.label}${colon}\n${block.url}`;
    case 'quote':
      return `${block.title}\n\n${block.lines.map((line) => (line ? `> ${line}` : '>')).join('\n')}`;
    case 'facts':
      return block.rows.map(([label, value]) => `${label}${colon} ${value}`).join('\n');
    case 'command':
      return block.lines.map((line) => `    ${line}`).join('\n');
  }
}
