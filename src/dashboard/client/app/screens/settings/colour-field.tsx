import { useId } from 'preact/hooks';

/** #rgb as #rrggbb: <input type="color"> takes only the long form. */
const longHex = (colour: string) => (/^#[0-9a-f]{3}$/i.test(colour) ? `#${[...colour.slice(1)].map((digit) => digit + digit).join('')}` : colour);

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
        <input id={id} type="color" class="settings-swatch" value={longHex(value)} onInput={(event) => onValue(event.currentTarget.value)} />
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
