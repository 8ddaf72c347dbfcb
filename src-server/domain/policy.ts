/**
 * Who may do what: every permission decision of the API is made here, from the caller's global role,
 * their role on the app (if they collaborate on it) and whether they own it (rulings R16).
 *
 * Global roles: admin (everything), developer (create and manage every app), member (apps they
 * collaborate on). App roles: admin and developer manage the app, member reads it. The owner is the
 * app's first admin collaborator. Routes declare which action they need (http/access.ts); nothing
 * else in the code base decides permissions.
 */
import type { AppRole, GlobalRole } from '../storage/schema.ts';

export interface Actor {
  userId: number;
  role: GlobalRole;
}

/** Actions that do not concern one app. */
export type GlobalAction =
  | 'session' //          any signed-in, unlocked user: who am I, my tokens, create an app, devices
  | 'users:manage' //     list, search, create, read, edit, delete, lock, unlock users; others' tokens
  | 'apps:see_all' //     list every app rather than those one collaborates on
  | 'devices:delete'; //  forget a registered test device

/** Actions on one app, its schemes, channels, releases and collaborators. */
export type AppAction =
  | 'read' //          see the app, its schemes and channels (and their keys)
  | 'manage' //        rename, archive, create/edit/delete schemes and channels, upload, edit releases
  | 'delete' //        delete the whole app
  | 'collaborators' // read, add, re-role and remove collaborators (spec: "a global developer or an app developer")
  | 'grant_admin'; //  make someone an app admin, or change or remove an app admin

export interface AppStanding {
  /** the caller's role on this app, null when they do not collaborate on it */
  appRole: AppRole | null;
  isOwner: boolean;
}

const globalRank: Record<GlobalRole, number> = { member: 0, developer: 1, admin: 2 };
const appRank: Record<AppRole, number> = { member: 0, developer: 1, admin: 2 };

function atLeastGlobal(actor: Actor, role: GlobalRole): boolean {
  return globalRank[actor.role] >= globalRank[role];
}

function atLeastOnApp(standing: AppStanding, role: AppRole): boolean {
  return standing.isOwner || (standing.appRole !== null && appRank[standing.appRole] >= appRank[role]);
}

export function mayGlobally(actor: Actor, action: GlobalAction): boolean {
  switch (action) {
    case 'session':
      return true;
    case 'users:manage':
      return actor.role === 'admin';
    case 'apps:see_all':
    case 'devices:delete':
      return atLeastGlobal(actor, 'developer');
  }
}

export function mayOnApp(actor: Actor, action: AppAction, standing: AppStanding): boolean {
  // Global admins and developers manage every app (R16).
  if (atLeastGlobal(actor, 'developer')) return true;
  switch (action) {
    case 'read':
      return atLeastOnApp(standing, 'member');
    case 'manage':
    case 'collaborators':
      return atLeastOnApp(standing, 'developer');
    case 'delete':
    case 'grant_admin':
      return atLeastOnApp(standing, 'admin');
  }
}
