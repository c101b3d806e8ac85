import type { ComponentChildren } from 'preact';

/**
 * A list as a table that a narrow screen shows as one card per row: each cell carries its column's name
 * as `data-label`. `actions` names the trailing column of row buttons, for screen readers only.
 */
export function CardTable({
  caption,
  columns,
  actions,
  inCard = true,
  class: extraClass,
  children,
}: {
  caption: string;
  columns: readonly string[];
  actions?: string;
  inCard?: boolean;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class={inCard ? 'card table-wrap' : 'table-wrap'}>
      <table class={extraClass ? `table table-cards ${extraClass}` : 'table table-cards'}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span class="visually-hidden">{actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
