// The tray menu: what it offers in each state of the server. A plain template (no Electron import
// but types), built into a menu by src-main/index.ts whenever the server starts or stops.
import type { MenuItemConstructorOptions } from 'electron';

export interface TrayActions {
  openConsole(): void;
  copyLanUrl(): void;
  showQr(): void;
  pause(): void;
  resume(): void;
  quit(): void;
}

/** The console's route of the dashboard's large QR code of the LAN URL. */
export const QR_ROUTE = '#/?qr=1';

/** `lanUrl`: the address devices use while the server runs; null while it is paused. */
export function trayMenu(lanUrl: string | null, actions: TrayActions): MenuItemConstructorOptions[] {
  const running = lanUrl !== null;
  return [
    { label: running ? `Serving on ${lanUrl}` : 'Server paused', enabled: false },
    { type: 'separator' },
    { label: 'Open Hangar', click: () => actions.openConsole() },
    { label: 'Copy LAN URL', enabled: running, click: () => actions.copyLanUrl() },
    { label: 'Show QR Code', enabled: running, click: () => actions.showQr() },
    { type: 'separator' },
    running ? { label: 'Pause Server', click: () => actions.pause() } : { label: 'Resume Server', click: () => actions.resume() },
    { type: 'separator' },
    { label: 'Quit Hangar', click: () => actions.quit() },
  ];
}
