import { Type } from 'typebox';
import { parseSettingsForm } from '../links/link-settings.js';
import { formFlag, formSettingProperties } from '../links/link-settings-schema.js';
import { templateIdOf } from '../templates/templates.service.js';

/**
 * The upload form, described once: OpenAPI's multipart schema of `POST /api/upload`, the field
 * checks run as each field arrives (`checkUploadField`), and the README's field table (a test
 * holds the table to this list). Fields may come before or after the file.
 */
export const UploadForm = Type.Object({
  file: Type.String({ format: 'binary', description: 'the file, at most 100 MB; executables and blocked extensions are refused (422)' }),
  addPassword: Type.Optional(formFlag('1 protects the link with `password`')),
  templateId: Type.Optional(
    Type.String({ pattern: '^\\d+$', description: 'a template of the account whose settings apply; fields sent here override them' }),
  ),
  password: Type.Optional(Type.String({ maxLength: 256, description: 'the visitor password (stored as a scrypt hash)' })),
  ...formSettingProperties,
});

/** Checks that only need the other half of a pair wait for the whole form (addPassword needs its password). */
const CHECKED_WITH_THE_WHOLE_FORM = new Set(['addPassword']);

/**
 * Checks one field on its own, as it arrives: its type, enum or range (400 naming it). Rules
 * between fields wait for the whole form; unknown fields are ignored, as they always were.
 */
export function checkUploadField(name: string, value: string): void {
  if (!Object.hasOwn(UploadForm.properties, name) || CHECKED_WITH_THE_WHOLE_FORM.has(name)) return;
  if (name === 'templateId') templateIdOf(value);
  else parseSettingsForm({ [name]: value });
}
