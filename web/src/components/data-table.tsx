import type { ReactNode } from "react";

export interface Column {
  label: string;
  /** Read by screen readers only (an actions column). */
  hidden?: boolean;
  numeric?: boolean;
}

/** The console's tables: one wrapper, one header row; narrow screens turn rows into cards (CSS). */
export function DataTable({
  className,
  columns,
  children,
}: {
  className: string;
  columns: (string | Column)[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={`table ${className}`}>
        <thead>
          <tr>
            {columns.map((column) => {
              const col = typeof column === "string" ? { label: column } : column;
              return (
                <th key={col.label} scope="col" className={col.numeric ? "numeric" : undefined}>
                  {col.hidden ? <span className="visually-hidden">{col.label}</span> : col.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
