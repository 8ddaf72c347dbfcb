/**
 * A select over a fixed list of values (roles, locales, platforms...), each shown by its label. Named
 * by a <Field> (id) or an aria-label.
 */
import type { ReactNode } from 'react';
import { ROLES, type Role } from '../api/types.ts';
import { useI18n } from '../i18n/i18n.tsx';

interface EnumSelectProps<T extends string> {
  values: readonly T[];
  value: T;
  onChange(value: NoInfer<T>): void;
  labelOf(value: NoInfer<T>): ReactNode;
  disabled?: boolean;
  id?: string;
  'aria-label'?: string;
  'aria-describedby'?: string;
}

export function EnumSelect<T extends string>({ values, value, onChange, labelOf, ...control }: EnumSelectProps<T>) {
  return (
    <select {...control} value={value} onChange={(event) => onChange(event.target.value as T)}>
      {values.map((v) => (
        <option key={v} value={v}>
          {labelOf(v)}
        </option>
      ))}
    </select>
  );
}

type RoleSelectProps = Omit<EnumSelectProps<Role>, 'values' | 'labelOf'>;

export function RoleSelect(props: RoleSelectProps) {
  const { t } = useI18n();
  return <EnumSelect {...props} values={ROLES} labelOf={(role) => t(`role.${role}`)} />;
}
