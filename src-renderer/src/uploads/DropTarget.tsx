/**
 * Drag and drop of builds onto the console. Files dropped on an element marked
 * `data-drop-channel="<id>"` (a channel's page or card) go straight to that channel; dropped anywhere
 * else, the upload dialog asks where they go. While files are dragged over the window an overlay
 * says so; it lets the drop through to what is under it, and the channel under the pointer is
 * highlighted (class `drop-over`).
 */
import { useEffect, useState } from 'react';
import { useI18n } from '../i18n/i18n.tsx';
import { useUploads } from './uploads.tsx';

function carriesFiles(event: DragEvent): boolean {
  return event.dataTransfer?.types.includes('Files') ?? false;
}

function channelZone(event: DragEvent): HTMLElement | null {
  return event.target instanceof Element ? event.target.closest<HTMLElement>('[data-drop-channel]') : null;
}

export function WindowDropTarget() {
  const { t } = useI18n();
  const { add, choose } = useUploads();
  const [dragging, setDragging] = useState(false);

  useEffect(() => {
    let depth = 0; // dragenter/dragleave pairs of nested elements
    let highlighted: HTMLElement | null = null;
    const highlight = (zone: HTMLElement | null) => {
      if (zone === highlighted) return;
      highlighted?.classList.remove('drop-over');
      zone?.classList.add('drop-over');
      highlighted = zone;
    };
    const reset = () => {
      depth = 0;
      setDragging(false);
      highlight(null);
    };

    const enter = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth += 1;
      setDragging(true);
    };
    const over = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault(); // allows the drop
      event.dataTransfer!.dropEffect = 'copy';
      highlight(channelZone(event));
    };
    const leave = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth -= 1;
      if (depth <= 0) reset();
    };
    const drop = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault(); // the browser would open the file instead
      const zone = channelZone(event);
      reset();
      const files = Array.from(event.dataTransfer!.files);
      if (files.length === 0) return;
      if (zone) add(files, { kind: 'channel', channelId: Number(zone.dataset.dropChannel), label: zone.dataset.dropLabel ?? '' });
      else choose(files);
    };

    const listeners = { dragenter: enter, dragover: over, dragleave: leave, drop } as const;
    for (const [type, listener] of Object.entries(listeners)) window.addEventListener(type, listener as EventListener);
    return () => {
      for (const [type, listener] of Object.entries(listeners)) window.removeEventListener(type, listener as EventListener);
    };
  }, [add, choose]);

  if (!dragging) return null;
  return (
    <div className="drop-overlay" aria-hidden="true">
      <p>{t('upload.dropHint')}</p>
    </div>
  );
}
