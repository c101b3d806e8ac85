import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  hint?: string;
  /** the API's sentence about this field, shown beside it */
  error?: string | undefined;
  children: (control: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }) => ComponentChildren;
}

/** A label, its control, a hint and the error beside it, tied together for screen readers. */
export function Field({ label, hint, error, children }: FieldProps) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, ...(described ? { 'aria-describedby': described } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

interface InputProps {
  label: string;
  hint?: string;
  error?: string | undefined;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'url' | 'number' | 'search' | 'date' | 'datetime-local' | 'tel';
  name?: string;
  placeholder?: string;
  autoComplete?: string;
  required?: boolean;
  disabled?: boolean;
  min?: number | string;
  max?: number | string;
  minLength?: number;
  maxLength?: number;
  inputMode?: 'numeric' | 'text' | 'email' | 'url';
}

export function TextField({ label, hint, error, value, onValue, type = 'text', ...input }: InputProps) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => <input class="input" type={type} {...input} {...control} value={value} onInput={(event) => onValue(event.currentTarget.value)} />}
    </Field>
  );
}

export function SelectField<V extends string>({
  label,
  hint,
  error,
  value,
  options,
  onValue,
}: {
  label: string;
  hint?: string;
  error?: string | undefined;
  value: V;
  options: Array<{ value: V; label: string }>;
  onValue: (value: V) => void;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => (
        <select class="input" {...control} value={value} onChange={(event) => onValue(event.currentTarget.value as V)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A checkbox with its label after it and an optional hint below. */
export function Toggle({
  label,
  hint,
  checked,
  onChange,
  disabled,
}: {
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div class="toggle">
      <input
        type="checkbox"
        id={id}
        checked={checked}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <label for={id}>{label}</label>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** A list of addresses or domains, one per line (commas also separate). */
export function ListField({
  label,
  hint,
  error,
  value,
  onValue,
}: {
  label: string;
  hint?: string;
  error?: string | undefined;
  value: string;
  onValue: (value: string) => void;
}) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(control) => <textarea class="input list-input" rows={3} {...control} value={value} onInput={(event) => onValue(event.currentTarget.value)} />}
    </Field>
  );
}

export const listText = (items: readonly string[]) => items.join('\n');
export const listItems = (text: string) =>
  text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);

/** The form's own error (one not about a single field), announced when it appears. */
export function FormError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="form-error" role="alert">
      {message}
    </p>
  );
}
