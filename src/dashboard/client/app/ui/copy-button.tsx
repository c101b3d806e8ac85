import { useState } from 'preact/hooks';
import { t } from '../i18n/index.js';
import { toast } from './toast.js';

/** Copies `text` to the clipboard and says so; the label stays what it is for ("Copy link"). */
export function CopyButton({
  text,
  label = t('action.copyLink'),
  class: className = 'button secondary small',
}: {
  text: string;
  label?: string;
  class?: string;
}) {
  const [copied, setCopied] = useState(false);
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
    setCopied(true);
    toast(t('action.copied'));
    setTimeout(() => setCopied(false), 2000);
  };
  return (
    <button type="button" class={className} onClick={() => void copy()} data-copied={copied ? 'true' : undefined}>
      {label}
    </button>
  );
}
