import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/index.js';

/**
 * A modal on the native <dialog>: the browser traps focus, closes on Escape and hands focus
 * back to what opened it.
 */
export function Dialog({
  title,
  open,
  onClose,
  children,
  wide,
}: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // A dialog taken off the page while open is closed first: only close() hands focus back to its opener.
  useEffect(
    () => () => {
      if (ref.current?.open) ref.current.close();
    },
    [],
  );
  return (
    <dialog ref={ref} class={`dialog${wide ? ' dialog-wide' : ''}`} aria-labelledby={titleId} onClose={onClose}>
      <header class="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="icon-button" aria-label={t('action.close')} onClick={onClose}>
          ×
        </button>
      </header>
      {open && children}
    </dialog>
  );
}

interface ConfirmRequest {
  title: string;
  text: string;
  action: string;
  resolve: (confirmed: boolean) => void;
}

/** Asks before anything is deleted: `const [confirm, confirmDialog] = useConfirm()`; `if (await confirm({...}))`. */
export function useConfirm(): [(question: { title: string; text?: string; action?: string }) => Promise<boolean>, ComponentChildren] {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const confirm = useCallback(
    (question: { title: string; text?: string; action?: string }) =>
      new Promise<boolean>((resolve) =>
        setRequest({
          title: question.title,
          text: question.text ?? t('confirm.irreversible'),
          action: question.action ?? t('action.delete'),
          resolve,
        }),
      ),
    [],
  );
  const answer = (confirmed: boolean) => {
    request?.resolve(confirmed);
    setRequest(null);
  };
  const dialog = (
    <Dialog title={request?.title ?? ''} open={request !== null} onClose={() => answer(false)}>
      <p>{request?.text}</p>
      <div class="dialog-actions">
        <button type="button" class="button secondary" onClick={() => answer(false)}>
          {t('action.cancel')}
        </button>
        <button type="button" class="button danger" onClick={() => answer(true)}>
          {request?.action}
        </button>
      </div>
    </Dialog>
  );
  return [confirm, dialog];
}
