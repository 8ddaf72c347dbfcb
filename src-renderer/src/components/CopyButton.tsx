/**
 * Copies a value (a URL, a channel key, a token) to the clipboard. The Clipboard API needs a secure
 * context, which a console opened over plain HTTP on the LAN is not: there the text is copied
 * through a selected, off-screen text area instead.
 */
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n/i18n.tsx';

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('copy refused');
}

/** `label` names what is copied ("Copy the channel key"); the button reads "Copy", then "Copied". */
export function CopyButton({ value, label }: { value: string; label?: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => copyText(value).then(() => setState('copied'), () => setState('failed'));
  return (
    <button type="button" className="copy-button" onClick={copy} aria-label={state === 'idle' ? label : undefined}>
      <span aria-live="polite">{state === 'copied' ? t('common.copied') : state === 'failed' ? t('common.copyFailed') : t('common.copy')}</span>
    </button>
  );
}

/** A value shown as code, with its copy button. */
export function CopyValue({ value, label }: { value: string; label?: string }) {
  return (
    <span className="copy-value">
      <code>{value}</code>
      <CopyButton value={value} label={label} />
    </span>
  );
}
