/// <reference types="vite/client" />
import type { HangarApi } from '../../src-main/hangar-api.ts';

declare global {
  interface Window {
    /** Exposed by src-main/preload.ts through contextBridge. */
    readonly hangar: HangarApi;
  }
}
