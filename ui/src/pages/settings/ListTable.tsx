// The table of a settings list: a caption for screen readers, the column headings, and the rows given.
import type { ReactNode } from 'react';

export function ListTable({ caption, columns, className, children }: { caption: string; columns: (string | false)[]; className?: string; children: ReactNode }) {
  return (
    <table className={className}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.filter((c): c is string => c !== false).map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
