/**
 * A QR code (a release's page, the address for devices) as large as the screen allows, dark on
 * white, for phones scanning from across the room. It asks the browser (or the desktop window) for
 * full screen too; Escape leaves both.
 */
import { useEffect, useRef } from 'react';
import { useI18n } from '../i18n/i18n.tsx';
import { useModal } from './Dialog.tsx';
import { QrCode } from './QrCode.tsx';

export function FullScreenQr({ url, title, onClose }: { url: string; title: string; onClose(): void }) {
  const { t } = useI18n();
  const ref = useModal(onClose);
  const stage = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    let shown = true;
    // Leaving full screen (the browser takes that Escape itself) leaves the QR code too.
    const left = () => {
      if (!document.fullscreenElement) closeRef.current();
    };
    // What the dialog shows goes full screen (a <dialog> itself may not); the modal dialog keeps the
    // page behind it inert either way.
    stage.current!.requestFullscreen().then(
      () => shown && document.addEventListener('fullscreenchange', left),
      () => {}, // refused (no user gesture, or not allowed): the dialog fills the window instead
    );
    return () => {
      shown = false;
      document.removeEventListener('fullscreenchange', left);
      if (document.fullscreenElement) void document.exitFullscreen().catch(() => {});
    };
  }, []);

  return (
    <dialog ref={ref} className="qr-fullscreen" aria-label={t('qr.of', { url })}>
      <div ref={stage} className="qr-stage">
        <QrCode value={url} label={t('qr.of', { url })} className="qr-huge" />
        <p className="qr-caption">
          <strong>{title}</strong> <span>{url}</span>
        </p>
        <button type="button" className="qr-close" onClick={onClose}>
          {t('qr.leave')}
        </button>
      </div>
    </dialog>
  );
}
