/**
 * Modal dialogs on the native <dialog> element: shown with showModal(), the rest of the page is inert
 * (focus cannot leave the dialog for it), Escape closes it, and focus returns to what opened it.
 * FormDialog and ConfirmDialog add the usual form: a submit that shows its error and keeps the
 * dialog open when the server refuses.
 */
import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';
import { useAction } from '../hooks/useAction.ts';
import { useI18n } from '../i18n/i18n.tsx';
import { ErrorNotice } from './ErrorNotice.tsx';

const FIRST_FOCUS = ['input', 'select', 'textarea', 'button']
  .map((tag) => `.dialog-body ${tag}:not([disabled]):not([type="hidden"])`)
  .concat('.dialog-actions button')
  .join(', ');

interface DialogProps {
  title: string;
  onClose(): void;
  children: ReactNode;
}

/**
 * Shows the <dialog> the returned ref is attached to as a modal while the component is mounted;
 * Escape (the dialog's native 'close') calls `onClose`, and focus goes back to what had it before.
 */
export function useModal(onClose: () => void) {
  const ref = useRef<HTMLDialogElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    // The first field of the form, else the first action (Cancel, for a confirmation): never the
    // close button the browser would pick.
    dialog.querySelector<HTMLElement>(FIRST_FOCUS)?.focus();
    // Escape closes the dialog natively; the 'close' event tells the owner, who unmounts it.
    const closed = () => closeRef.current();
    dialog.addEventListener('close', closed);
    return () => {
      dialog.removeEventListener('close', closed);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return ref;
}

export function Dialog({ title, onClose, children }: DialogProps) {
  const { t } = useI18n();
  const ref = useModal(onClose);
  const titleId = useId();

  return (
    <dialog ref={ref} aria-labelledby={titleId} className="dialog">
      <header className="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon-button" aria-label={t('common.close')} onClick={onClose}>
          ×
        </button>
      </header>
      {children}
    </dialog>
  );
}

interface FormDialogProps {
  title: string;
  submitLabel: string;
  /** the work; the dialog closes when it succeeds and shows its error when it fails */
  onSubmit(): Promise<unknown>;
  onClose(): void;
  children?: ReactNode;
  danger?: boolean;
}

export function FormDialog({ title, submitLabel, onSubmit, onClose, children, danger }: FormDialogProps) {
  const { t } = useI18n();
  const action = useAction();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (await action.run(onSubmit)) onClose();
  };
  return (
    <Dialog title={title} onClose={onClose}>
      <form onSubmit={submit} className="dialog-form">
        <div className="dialog-body">
          {children}
          <ErrorNotice error={action.error} />
        </div>
        <footer className="dialog-actions">
          <button type="button" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className={danger ? 'danger' : 'primary'} disabled={action.busy} aria-busy={action.busy}>
            {submitLabel}
          </button>
        </footer>
      </form>
    </Dialog>
  );
}

interface ConfirmDialogProps {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm(): Promise<unknown>;
  onClose(): void;
}

/** "Delete X?" — a destructive action asked once more, with what it takes with it. */
export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onClose }: ConfirmDialogProps) {
  return (
    <FormDialog title={title} submitLabel={confirmLabel} onSubmit={onConfirm} onClose={onClose} danger>
      <p>{message}</p>
    </FormDialog>
  );
}
