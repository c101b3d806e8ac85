import { t } from '../../i18n/index.js';
import { ListField, TextField } from '../../ui/forms.js';

const FIELDS = ['name', 'slug', 'allowedEmails'] as const;

/** The field an API sentence is about, if it names one ("slug is taken", "body/allowedEmails/0 …"). */
export const portalFieldOf = (message: string | undefined) => FIELDS.find((field) => message && new RegExp(`\\b${field}\\b`, 'i').test(message));

export interface PortalDraft {
  name: string;
  slug: string;
  allowedEmails: string;
}

/** A portal's name, address and the clients who may sign in: the same fields when made and when edited. */
export function PortalFields({
  draft,
  onDraft,
  error,
  onSlugEdited,
}: {
  draft: PortalDraft;
  onDraft: (draft: PortalDraft) => void;
  /** the API's sentence, shown beside the field it names */
  error?: string | undefined;
  onSlugEdited?: () => void;
}) {
  const about = (field: (typeof FIELDS)[number]) => (portalFieldOf(error) === field ? error : undefined);
  return (
    <>
      <TextField
        label={t('portals.field.name')}
        required
        maxLength={200}
        value={draft.name}
        onValue={(name) => onDraft({ ...draft, name })}
        error={about('name')}
      />
      <TextField
        label={t('portals.field.slug')}
        hint={t('portals.field.slugHint')}
        required
        minLength={3}
        maxLength={63}
        value={draft.slug}
        onValue={(slug) => {
          onSlugEdited?.();
          onDraft({ ...draft, slug });
        }}
        error={about('slug')}
      />
      <ListField
        label={t('portals.field.emails')}
        hint={t('portals.field.emailsHint')}
        value={draft.allowedEmails}
        onValue={(allowedEmails) => onDraft({ ...draft, allowedEmails })}
        error={about('allowedEmails')}
      />
    </>
  );
}
