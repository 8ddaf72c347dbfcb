/**
 * The header row of the console's tables: one column header per label, and, when the rows carry
 * buttons, a last column whose header only screen readers hear ("Actions").
 */
import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n.tsx';

export function TableHead({ columns, actions = false }: { columns: ReactNode[]; actions?: boolean }) {
  const { t } = useI18n();
  return (
    <thead>
      <tr>
        {columns.map((label, index) => (
          <th scope="col" key={index}>
            {label}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span className="visually-hidden">{t('common.actions')}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}
