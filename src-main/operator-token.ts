// The operator token: a personal access token of the first admin, minted by the desktop app for one
// run of the server and handed only to its own console over the preload bridge (never served on
// the LAN, never logged). It expires OPERATOR_TOKEN_TTL_MS after its last renewal, so that a crash
// cannot leave a token that works forever, and is revoked when the server stops. A crashed run's
// token is revoked at the next start.
import type { Domain } from '../src-server/domain/index.ts';
import { NotFoundError } from '../src-server/domain/errors.ts';

export const OPERATOR_TOKEN_NAME = 'Hangar desktop (operator, this run)';
export const OPERATOR_TOKEN_TTL_MS = 24 * 3600 * 1000;
/** Renewed when less than this is left (checked hourly, and whenever the console asks for it). */
export const OPERATOR_TOKEN_RENEW_BELOW_MS = 12 * 3600 * 1000;

export interface OperatorToken {
  readonly userId: number;
  /**
   * The value to use now. Extends the expiry when it is near (same value: the console keeps
   * working); a token someone revoked from the token list stays revoked, and a new value is minted.
   */
  current(): string;
  revoke(): void;
}

/** The admin the console acts as: the first unlocked one (ensureFirstAdmin made `admin` at first start). */
function operatorOf(domain: Domain): number {
  const admin = domain.users.list().find((user) => user.role === 'admin' && user.lockedAt === null);
  if (!admin) throw new Error('no unlocked admin to mint the operator token for');
  return admin.id;
}

function revokeQuietly(domain: Domain, userId: number, tokenId: number): void {
  try {
    domain.tokens.revoke(userId, tokenId);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error; // revoked already (e.g. from the console's token list)
  }
}

export function mintOperatorToken(domain: Domain): OperatorToken {
  const userId = operatorOf(domain);
  for (const left of domain.tokens.list(userId)) {
    if (left.name === OPERATOR_TOKEN_NAME) revokeQuietly(domain, userId, left.id);
  }
  const mint = (value?: string) => domain.tokens.create(userId, { name: OPERATOR_TOKEN_NAME, expiresAt: domain.ctx.now() + OPERATOR_TOKEN_TTL_MS, ...(value && { value }) });
  let { token, value } = mint();
  let revoked = false;

  return {
    userId,
    current() {
      if (revoked) return value;
      const stored = domain.tokens.list(userId).find((t) => t.id === token.id);
      if (!stored) {
        ({ token, value } = mint());
      } else if ((stored.expiresAt ?? Infinity) - domain.ctx.now() < OPERATOR_TOKEN_RENEW_BELOW_MS) {
        // Tokens have no "extend": the row is replaced by one with the same value and a later
        // expiry, in one synchronous step that no request can fall between.
        domain.tokens.revoke(userId, token.id);
        token = mint(value).token;
      }
      return value;
    },
    revoke() {
      if (revoked) return;
      revoked = true;
      revokeQuietly(domain, userId, token.id);
    },
  };
}
