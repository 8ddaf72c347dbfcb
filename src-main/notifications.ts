// "A new build is available": what the desktop app announces with a native notification when the
// server emits `build.available` (an upload to a scheme with new_build_callout on, see
// src-server/domain/uploads.ts), and where clicking it leads. No Electron here: index.ts shows it.
import type { Domain } from '../src-server/domain/index.ts';
import type { HangarEvent } from '../src-server/domain/events.ts';

export interface BuildNotice {
  /** app name and version, e.g. "Demo 2.1 (210)" */
  title: string;
  body: string;
  /** the console's hash route of the release */
  route: string;
}

type BuildAvailable = Extract<HangarEvent, { type: 'build.available' }>;

export function releaseRoute(releaseId: number): string {
  return `#/releases/${releaseId}`;
}

export function buildNotice(domain: Domain, event: BuildAvailable): BuildNotice {
  const release = domain.releases.find(event.releaseId);
  const channel = domain.channels.find(event.channelId);
  const scheme = domain.schemes.find(event.schemeId);
  return {
    title: `${release.appName} ${release.releaseVersion} (${release.buildVersion})`,
    body: `New build in ${scheme.name} · ${channel.name}`,
    route: releaseRoute(release.id),
  };
}

/** Calls `notify` for every new build the server announces; returns the function that stops it. */
export function watchNewBuilds(domain: Domain, notify: (notice: BuildNotice) => void): () => void {
  return domain.ctx.events.subscribe((event) => {
    if (event.type === 'build.available') notify(buildNotice(domain, event));
  });
}
