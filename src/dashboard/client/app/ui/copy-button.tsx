import { useState } from 'preact/hooks';
import { t } from '../i18n/index.js';
import { toast } from './toast.js';

/**
 * Copies `text` to the clipboard and says so; the label stays what it is for ("Copy link").
 * "Copied" belongs to the text that was copied, so a button reused for another link (the next
 * page of a list patches the same rows) never shows it for a link that was not copied.
 */
export function CopyButton({
  text,
  label = t('action.copyLink'),
  class: className = 'button secondary small',
}: {
  text: string;
  label?: string;
  class?: string;
}) {
  const [copiedText, setCopiedText] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard permission (an insecure origin), select-and-copy through a hidden field.
      const field = document.createElement('textarea');
      field.value = text;
      field.setAttribute('readonly', '');
      field.className = 'visually-hidden';
      document.body.append(field);
      field.select();
      document.execCommand('copy');
      field.remove();
    }
    setCopiedText(text);
    toast(t('action.copied'));
    setTimeout(() => setCopiedText((current) => (current === text ? null : current)), 2000);
  };
  return (
    <button type="button" class={className} onClick={() => void copy()} data-copied={copiedText === text ? 'true' : undefined}>
      {label}
    </button>
  );
}
