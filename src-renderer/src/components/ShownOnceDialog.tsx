/**
 * A secret the server shows only in its answer to the creation (a token's value, a webhook's
 * signing secret): shown once, with a copy button, and what to do with it.
 */
import { CopyValue } from './CopyButton.tsx';
import { Dialog } from './Dialog.tsx';
import { useI18n } from '../i18n/i18n.tsx';

interface ShownOnceDialogProps {
  title: string;
  /** why to keep it now */
  message: string;
  value: string;
  copyLabel?: string;
  onClose(): void;
}

export function ShownOnceDialog({ title, message, value, copyLabel, onClose }: ShownOnceDialogProps) {
  const { t } = useI18n();
  return (
    <Dialog title={title} onClose={onClose}>
      <div className="dialog-body">
        <p>{message}</p>
        <CopyValue value={value} label={copyLabel} />
      </div>
      <footer className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          {t('common.done')}
        </button>
      </footer>
    </Dialog>
  );
}
