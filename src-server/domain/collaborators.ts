/**
 * Collaborators: users given a role on one app (R16). Rules owned here: a user collaborates at most
 * once per app (409 on a second add); the owner stays an admin collaborator (cannot be removed or
 * re-roled); only app admins (or global admins and developers) may grant the admin role or touch an
 * admin collaborator, so a developer cannot promote themselves.
 */
import { and, eq } from 'drizzle-orm';
import { collaborators } from '../storage/schema.ts';
import type { AppRole } from '../storage/schema.ts';
import type { AppService } from './apps.ts';
import type { CollaboratorWithUser, DomainContext } from './context.ts';
import { isUniqueViolation } from './context.ts';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from './errors.ts';
import type { Actor } from './policy.ts';
import { mayOnApp } from './policy.ts';
import type { UserService } from './users.ts';

export function createCollaboratorService(ctx: DomainContext, appService: AppService, userService: UserService) {
  const { db } = ctx;

  function get(appId: number, userId: number): CollaboratorWithUser {
    const found = appService.collaborators(appId).find((c) => c.user.id === userId);
    if (!found) throw new NotFoundError('Collaborator');
    return found;
  }

  function assertMayGrant(actor: Actor, appId: number, roles: AppRole[]): void {
    if (roles.includes('admin') && !mayOnApp(actor, 'grant_admin', appService.standing(actor, appId))) {
      throw new ForbiddenError('Only an app admin can grant or change the admin role');
    }
  }

  function assertNotOwner(entry: CollaboratorWithUser, action: string): void {
    if (entry.isOwner) throw ValidationError.field('user_id', `is the owner of the app and cannot be ${action}`);
  }

  return {
    get,
    list: (appId: number) => appService.collaborators(appId),

    add(actor: Actor, appId: number, userId: number, role: AppRole): CollaboratorWithUser {
      appService.find(appId);
      userService.find(userId);
      if (appService.collaborators(appId).some((c) => c.user.id === userId)) {
        throw new ConflictError('Collaborator already exists');
      }
      assertMayGrant(actor, appId, [role]);
      const now = ctx.now();
      try {
        db.insert(collaborators).values({ appId, userId, role, createdAt: now, updatedAt: now }).run();
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError('Collaborator already exists');
        throw error;
      }
      return get(appId, userId);
    },

    updateRole(actor: Actor, appId: number, userId: number, role: AppRole): CollaboratorWithUser {
      const entry = get(appId, userId);
      if (entry.collaborator.role === role) return entry;
      assertNotOwner(entry, 're-roled');
      assertMayGrant(actor, appId, [role, entry.collaborator.role]);
      db.update(collaborators)
        .set({ role, updatedAt: ctx.now() })
        .where(and(eq(collaborators.appId, appId), eq(collaborators.userId, userId)))
        .run();
      return get(appId, userId);
    },

    remove(actor: Actor, appId: number, userId: number): void {
      const entry = get(appId, userId);
      assertNotOwner(entry, 'removed');
      assertMayGrant(actor, appId, [entry.collaborator.role]);
      db.delete(collaborators).where(and(eq(collaborators.appId, appId), eq(collaborators.userId, userId))).run();
    },
  };
}

export type CollaboratorService = ReturnType<typeof createCollaboratorService>;
