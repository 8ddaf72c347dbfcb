/**
 * Role names as clients send them. Both shapes accept `user` and `member` for the same role (R9);
 * internally it is `member`. Output names are the serializers' business (serializers/shapes.ts).
 */
import type { AppRole, GlobalRole } from '../storage/schema.ts';

export const ROLE_INPUTS = ['admin', 'developer', 'member', 'user'] as const;
export type RoleInput = (typeof ROLE_INPUTS)[number];

export function toRole(input: RoleInput): GlobalRole & AppRole {
  return input === 'user' ? 'member' : input;
}
