import { useId } from 'preact/hooks';
import { longHex } from '../../layout/brand.js';

/** A colour picker and its hex code side by side, either one editing the same value. */
export function ColourField({
  label,
  value,
  onValue,
  hexLabel,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  hexLabel: string;
}) {
  const id = useId();
  return (
    <div class="field settings-colour">
      <label for={id}>{label}</label>
      <div class="settings-colour-controls">
        <input id={id} type="color" class="settings-swatch" value={longHex(value) ?? value} onInput={(event) => onValue(event.currentTarget.value)} />
        <input
          class="input"
          aria-label={hexLabel}
          value={value}
          maxLength={7}
          spellcheck={false}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      </div>
    </div>
  );
}
