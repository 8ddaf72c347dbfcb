/**
 * What every domain service works with, and the row types they hand to serializers.
 */
import type { Db } from '../storage/database.ts';
import type { FileStore } from '../storage/files.ts';
import type { EventBus } from './events.ts';
import type * as schema from '../storage/schema.ts';

export interface DomainContext {
  db: Db;
  files: FileStore;
  events: EventBus;
  /** the installation's secret (signs visit cookies and download links); never leaves the server */
  secret: Buffer;
  /** milliseconds since the epoch; injectable so that tests can pin time */
  now(): number;
}

export type User = typeof schema.users.$inferSelect;
export type ApiToken = typeof schema.apiTokens.$inferSelect;
export type App = typeof schema.apps.$inferSelect;
export type Collaborator = typeof schema.collaborators.$inferSelect;
export type Scheme = typeof schema.schemes.$inferSelect;
export type Channel = typeof schema.channels.$inferSelect;
export type Release = typeof schema.releases.$inferSelect;
export type DebugFile = typeof schema.debugFiles.$inferSelect;
export type Device = typeof schema.devices.$inferSelect;
export type Webhook = typeof schema.webhooks.$inferSelect;
export type WebhookDelivery = typeof schema.webhookDeliveries.$inferSelect;

export interface SchemeWithChannels extends Scheme {
  channels: Channel[];
}
export interface AppWithSchemes extends App {
  schemes: SchemeWithChannels[];
}
export interface CollaboratorWithUser {
  collaborator: Collaborator;
  user: User;
  isOwner: boolean;
}

export interface Page {
  page: number;
  perPage: number;
}

export function offsetOf(page: Page): number {
  return (page.page - 1) * page.perPage;
}

/** True for SQLite's UNIQUE constraint failure (better-sqlite3 error code). */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Trims a name-like input; the schemas have already refused blank and over-long values. */
export function cleanName(value: string): string {
  return value.trim();
}
