/**
 * The domain layer: every rule of Hangar's resources, independent of HTTP. Routes call these
 * services; the services use the storage layer.
 */
import { eq } from 'drizzle-orm';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MIN_ADMIN_TOKEN_LENGTH } from '../config/config.ts';
import { users as usersTable } from '../storage/schema.ts';
import { createAppService } from './apps.ts';
import { createChannelService } from './channels.ts';
import { createCollaboratorService } from './collaborators.ts';
import type { DomainContext } from './context.ts';
import { createDebugFileService } from './debug-files.ts';
import { createDeviceService } from './devices.ts';
import { createReleaseService } from './releases.ts';
import { createSchemeService } from './schemes.ts';
import { createSessionService } from './sessions.ts';
import { newTokenValue } from './secrets.ts';
import { createTokenService } from './tokens.ts';
import { createUploadService } from './uploads.ts';
import { createUsageService } from './usage.ts';
import { createUserService } from './users.ts';
import { createVisitService } from './visits.ts';
import { createWebhookService } from './webhooks.ts';

export function createDomain(ctx: DomainContext) {
  const users = createUserService(ctx);
  const tokens = createTokenService(ctx);
  const sessions = createSessionService(ctx);
  const apps = createAppService(ctx);
  const schemes = createSchemeService(ctx, apps);
  const channels = createChannelService(ctx, apps, schemes);
  const collaborators = createCollaboratorService(ctx, apps, users);
  const devices = createDeviceService(ctx);
  const releases = createReleaseService(ctx, { apps, channels });
  const uploads = createUploadService(ctx, { apps, schemes, channels, releases });
  const visits = createVisitService(ctx.secret, ctx.now);
  const webhooks = createWebhookService(ctx, { apps, channels });
  const debugFiles = createDebugFileService(ctx, { apps, channels });
  const usage = createUsageService(ctx);
  return { ctx, users, tokens, sessions, usage, apps, schemes, channels, collaborators, devices, releases, uploads, visits, webhooks, debugFiles };
}

export type Domain = ReturnType<typeof createDomain>;

export const INITIAL_ADMIN_TOKEN_FILE = 'initial-admin-token';

export interface FirstStart {
  username: string;
  /** where the random token was written; null when it came from HANGAR_ADMIN_TOKEN */
  tokenFile: string | null;
}

/**
 * R17: a data directory without users gets an `admin` user and a first token: the given one
 * (HANGAR_ADMIN_TOKEN) or a random one written to `<data>/initial-admin-token`, readable by the
 * owner only. Returns null when there were users already.
 */
export async function ensureFirstAdmin(domain: Domain, dataDir: string, givenToken: string | null): Promise<FirstStart | null> {
  if (domain.users.count() > 0) return null;
  if (givenToken !== null && givenToken.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(`HANGAR_ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  // The token file is written before any row, so that a failure leaves an empty database (retried at
  // the next start) rather than an admin nobody has a token for.
  const value = givenToken ?? newTokenValue();
  let tokenFile: string | null = null;
  if (givenToken === null) {
    tokenFile = join(dataDir, INITIAL_ADMIN_TOKEN_FILE);
    await writeFile(tokenFile, value + '\n', { mode: 0o600 });
    await chmod(tokenFile, 0o600); // in case the file already existed with wider rights
  }
  const admin = await domain.users.create({ username: 'admin', email: 'admin@localhost', role: 'admin' });
  try {
    domain.tokens.create(admin.id, { name: 'initial admin token', value });
  } catch (error) {
    domain.ctx.db.delete(usersTable).where(eq(usersTable.id, admin.id)).run();
    throw error;
  }
  return { username: admin.username, tokenFile };
}
