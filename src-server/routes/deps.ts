/** What every route module is given. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { BuildInfo } from '../config/build-info.ts';
import type { ServerConfig } from '../config/config.ts';
import type { Domain } from '../domain/index.ts';
import type { UserDefaults } from '../domain/user-settings.ts';
import type { LanAddress } from '../network/addresses.ts';
import type { Urls } from '../network/urls.ts';
import type { CertificateAuthority } from '../tls/authority.ts';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface RouteDeps {
  domain: Domain;
  config: ServerConfig;
  buildInfo: BuildInfo;
  userDefaults: UserDefaults;
  /** absolute URLs from the public base URL (R11); may change with the LAN address */
  urls: () => Urls;
  /** a version of the data that every write moves (response caches key on it) */
  dataVersion: () => number;
  /** the installation's certificate authority: what devices install to trust Hangar's HTTPS */
  authority: CertificateAuthority;
  /** where the server runs now (server.ts): LAN addresses, HTTPS, discovery */
  host: () => HostStatus;
}

export interface HostStatus {
  addresses: LanAddress[];
  /** the address absolute URLs use */
  primary: string;
  /** null: HTTPS is off */
  httpsPort: number | null;
  /** advertising on the LAN (mDNS) right now */
  mdns: boolean;
}

export const OK = { mesage: 'OK' } as const;
