import type { ComponentChildren } from 'preact';
import { api, ok } from '../../api/client.js';
import { useMutation } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { changedFields, useDraft } from '../../ui/draft.js';
import { FormError } from '../../ui/forms.js';
import { Section } from '../../ui/page.js';
import { toast } from '../../ui/toast.js';
import { fieldOfError, linkKey, type LinkDetail, type SettingsChange } from './link-data.js';

export type FieldName = keyof SettingsChange;

/**
 * One section's form: a draft of its values, the change it sends with Save (the fields changed),
 * and the API's error placed beside the field it names (the draft follows `useDraft`'s rule;
 * `clearedWhenSaved`: it starts again from the link once saved, as a password field should).
 */
export function useSettingsForm<D>(
  link: LinkDetail,
  fields: readonly FieldName[],
  draftOf: (link: LinkDetail) => D,
  changeOf: (draft: D) => SettingsChange,
  options: { clearedWhenSaved?: boolean } = {},
) {
  const { draft, set, setDraft, saved } = useDraft(draftOf(link));
  const mutation = useMutation(
    async (change: SettingsChange) => {
      const answer = await ok(api.PATCH('/api/links/{id}', { params: { path: { id: link.id } }, body: change }));
      saved(draftOf(answer));
      if (options.clearedWhenSaved) setDraft(draftOf(answer));
      return answer;
    },
    [linkKey(link.id), 'links'],
  );
  const save = async (change: SettingsChange = changedFields(changeOf(draft), changeOf(draftOf(link)))) => {
    if (Object.keys(change).length === 0) {
      toast(t('link.settings.unchanged'));
      return;
    }
    if (await mutation.run(change)) toast(t('link.settings.saved'));
  };
  const message = mutation.error?.message;
  const errorField = message ? fieldOfError(message, fields) : undefined;
  return {
    draft,
    set,
    save,
    busy: mutation.busy,
    errorFor: (field: FieldName) => (field === errorField ? message : undefined),
    formError: errorField ? undefined : message,
  };
}

/** A section of settings with its own Save button. */
export function SettingsSection({
  title,
  description,
  form,
  children,
}: {
  title: string;
  description?: string;
  form: { save: () => Promise<void>; busy: boolean; formError: string | undefined };
  children: ComponentChildren;
}) {
  return (
    <Section title={title} description={description}>
      <form
        class="link-settings-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void form.save();
        }}
      >
        <FormError message={form.formError} />
        {children}
        <div class="form-actions">
          <button type="submit" class="button" disabled={form.busy}>
            {form.busy ? t('state.saving') : t('link.settings.save', { section: title.toLowerCase() })}
          </button>
        </div>
      </form>
    </Section>
  );
}

/** "2027-01-31T18:00" in the browser's time zone, as a datetime-local field shows it. */
export function localDateTime(iso: string): string {
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A whole number typed in a field, or null when empty; the API judges its range. */
export function numberOrNull(text: string): number | null {
  return text.trim() === '' ? null : Number(text);
}
