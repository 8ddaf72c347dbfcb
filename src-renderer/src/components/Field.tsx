/**
 * A labelled form control: the label names the control (for screen readers and for clicking), and a
 * hint under it is tied to it with aria-describedby. The control is rendered by the caller with the
 * props given, so any input, select or textarea fits.
 */
import { useId, type ReactNode } from 'react';

export interface ControlProps {
  id: string;
  'aria-describedby'?: string;
}

interface FieldProps {
  label: string;
  hint?: ReactNode;
  children(props: ControlProps): ReactNode;
}

export function Field({ label, hint, children }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(hint ? { 'aria-describedby': hintId } : {}) })}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}

interface ChoiceProps {
  label: string;
  checked: boolean;
  onChange(checked: boolean): void;
  hint?: string;
  disabled?: boolean;
}

/** A checkbox or radio button with its label beside it and its hint under the label. */
function Choice({ label, checked, onChange, hint, disabled, type, name }: ChoiceProps & { type: 'checkbox' | 'radio'; name?: string }) {
  const id = useId();
  return (
    <div className="field choice">
      <input
        type={type}
        name={name}
        id={id}
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.target.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

export function Checkbox(props: ChoiceProps) {
  return <Choice {...props} type="checkbox" />;
}

/** One radio button of the group `name`. */
export function Radio(props: ChoiceProps & { name: string }) {
  return <Choice {...props} type="radio" />;
}
