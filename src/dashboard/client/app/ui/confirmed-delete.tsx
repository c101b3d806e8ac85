import type { ComponentChildren } from 'preact';
import { invalidate } from '../api/query.js';
import { t } from '../i18n/index.js';
import { useConfirm } from './dialog.js';
import { toast } from './toast.js';

interface Deletion {
  /** what is deleted, as the confirmation and the toast name it */
  name: string;
  /** what deleting it does, in the confirmation */
  text: string;
  /** the toast once it is gone */
  done: string;
  remove: () => Promise<unknown>;
  /** the cached queries that showed it */
  affects: string[];
  /** where to go next (a screen of the deleted thing leaves it) */
  then?: () => void;
}

/** Asks, deletes, refreshes what showed it and says so; an API refusal becomes an error toast. */
export function useConfirmedDelete(): [(deletion: Deletion) => Promise<void>, ComponentChildren] {
  const [confirm, confirmDialog] = useConfirm();
  const run = async (deletion: Deletion) => {
    if (!(await confirm({ title: t('confirm.deleteTitle', { name: deletion.name }), text: deletion.text }))) return;
    try {
      await deletion.remove();
      await invalidate(...deletion.affects);
      toast(deletion.done);
      deletion.then?.();
    } catch (caught) {
      toast((caught as Error).message, 'error');
    }
  };
  return [run, confirmDialog];
}
