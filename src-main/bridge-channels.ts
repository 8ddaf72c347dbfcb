// The IPC channels of the preload bridge (src-main/preload.ts → src-main/bridge.ts), one per
// HangarApi call, plus the one the main process sends navigation requests on.
export const CHANNELS = {
  server: 'hangar:server',
  settingsGet: 'hangar:settings-get',
  settingsSet: 'hangar:settings-set',
  pickFolder: 'hangar:pick-folder',
  openFolder: 'hangar:open-folder',
  restartServer: 'hangar:restart-server',
  /** main → renderer: a hash route to show */
  navigate: 'hangar:navigate',
} as const;

export type InvokeChannel = Exclude<(typeof CHANNELS)[keyof typeof CHANNELS], typeof CHANNELS.navigate>;
