import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.js';
import { useQuery } from '../../api/query.js';
import { t } from '../../i18n/index.js';
import { QueryState } from '../../ui/feedback.js';
import { TextField } from '../../ui/forms.js';

const PICKER_SIZE = 8;

/**
 * Finds the account's links by name and offers each one not chosen yet: what a room or a
 * portal is given. `filesOnly` leaves data rooms out (a room cannot hold a room); `pdfsOnly`
 * offers PDF files only (an agreement's document).
 */
export function LinkPicker({
  chosen,
  filesOnly,
  pdfsOnly,
  busy,
  onPick,
}: {
  chosen: ReadonlySet<string>;
  filesOnly?: boolean;
  pdfsOnly?: boolean;
  busy?: boolean;
  onPick: (link: { id: string; name: string }) => void;
}) {
  const [search, setSearch] = useState('');
  const q = search.trim();
  const found = useQuery(`links:picker:${q}`, () =>
    ok(api.GET('/api/links', { params: { query: { page: 1, limit: 50, tab: 'active', sort: q ? 'name' : 'created', ...(q ? { q } : {}) } } })),
  );
  return (
    <div class="collection-picker">
      <TextField
        type="search"
        label={t('collections.find')}
        hint={t('collections.findHint')}
        value={search}
        onValue={setSearch}
        placeholder={t('collections.findPlaceholder')}
      />
      <QueryState query={found} rows={2}>
        {({ links }) => {
          const offered = links
            .filter((link) => !chosen.has(link.id) && !(filesOnly && link.kind === 'room') && !(pdfsOnly && link.mime !== 'application/pdf'))
            .slice(0, PICKER_SIZE);
          if (offered.length === 0) {
            const none = q ? t('collections.noMatch', { search: q }) : pdfsOnly ? t('collections.noPdf') : t('collections.nothingLeft');
            return <p class="muted">{none}</p>;
          }
          return (
            <ul class="collection-list" aria-label={t('collections.found')}>
              {offered.map((link) => (
                <li key={link.id} class="collection-item">
                  <span class="collection-name">{link.name}</span>
                  <button
                    type="button"
                    class="button secondary small"
                    disabled={busy}
                    aria-label={t('collections.addLabel', { name: link.name })}
                    onClick={() => onPick(link)}
                  >
                    {t('collections.add')}
                  </button>
                </li>
              ))}
            </ul>
          );
        }}
      </QueryState>
    </div>
  );
}
