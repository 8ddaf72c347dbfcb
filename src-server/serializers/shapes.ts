/**
 * The two shapes of the API (R1). A request is answered in one of them: the server's `apiShape`
 * setting, or the request's `X-Api-Shape` header. Everything that differs between the shapes is
 * decided through a Shape: which fields are present, timestamp format, role names, and the bodies
 * that differ as a whole (app create, lock/unlock). Resource serializers never test the shape name.
 */
import type { ApiShape } from '../config/config.ts';
import type { AppRole, GlobalRole } from '../storage/schema.ts';
import { extendedTimestamp, isoTimestamp } from './time.ts';

/** Role names as they appear in responses. */
export type RoleName = GlobalRole | AppRole | 'user';

export interface Shape {
  readonly name: ApiShape;
  /** fields the spec marks "ext" */
  readonly extendedFields: boolean;
  /** fields the spec marks "base" */
  readonly baseFields: boolean;
  timestamp(ms: number): string;
  timestamp(ms: number | null): string | null;
  /** `member` is `user` in the base shape (R9) */
  role(role: GlobalRole | AppRole): RoleName;
  /** create and update of an app: base `[App]`, extended `App` (spec, R5) */
  appResponse<T>(app: T): T | T[];
  /** lock/unlock: base `{"mesage":"OK"}`, extended the User (R5) */
  lockBody<T>(user: T): T | { mesage: 'OK' };
}

function shape(name: ApiShape, timeZone: string): Shape {
  const extended = name === 'extended';
  const format = extended ? extendedTimestamp : isoTimestamp;
  function timestamp(ms: number): string;
  function timestamp(ms: number | null): string | null;
  function timestamp(ms: number | null): string | null {
    return ms === null ? null : format(ms, timeZone);
  }
  return {
    name,
    extendedFields: extended,
    baseFields: !extended,
    timestamp,
    role: (role) => (!extended && role === 'member' ? 'user' : role),
    appResponse: (app) => (extended ? app : [app]),
    lockBody: (user) => (extended ? user : { mesage: 'OK' }),
  };
}

const cache = new Map<string, Shape>();

export function shapeFor(name: ApiShape, timeZone: string): Shape {
  const key = `${name} ${timeZone}`;
  let found = cache.get(key);
  if (!found) {
    found = shape(name, timeZone);
    cache.set(key, found);
  }
  return found;
}
