/** User, Collaborator and personal access token bodies. */
import type { ApiToken, CollaboratorWithUser, User } from '../domain/context.ts';
import type { UserDefaults } from '../domain/user-settings.ts';
import type { Shape } from './shapes.ts';

/** A user's settings fall back to the server-wide defaults (spec: "default is the global setting"). */
export function userBody(user: User, shape: Shape, defaults: UserDefaults) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    locale: user.locale ?? defaults.locale,
    appearance: user.appearance ?? defaults.appearance,
    timezone: user.timezone ?? defaults.timezone,
    role: shape.role(user.role),
    locked: user.lockedAt !== null,
  };
}

export function collaboratorBody(entry: CollaboratorWithUser, shape: Shape) {
  return {
    id: entry.user.id,
    username: entry.user.username,
    email: entry.user.email,
    role: shape.role(entry.collaborator.role),
    owner: entry.isOwner,
  };
}

/** A token as listed; `value` only in the answer to its creation. */
export function tokenBody(token: ApiToken, shape: Shape, value?: string) {
  return {
    id: token.id,
    name: token.name,
    prefix: token.prefix,
    ...(value !== undefined && { token: value }),
    last_used_at: shape.timestamp(token.lastUsedAt),
    expires_at: shape.timestamp(token.expiresAt),
    created_at: shape.timestamp(token.createdAt),
  };
}
