// The object the preload script exposes to the renderer as `window.hangar`.
// Types only: shared by src-main/preload.ts and src-renderer/src/env.d.ts, erased at build time.
export interface HangarApi {
  readonly platform: string;
  readonly versions: {
    readonly electron: string;
    readonly chrome: string;
    readonly node: string;
  };
}
