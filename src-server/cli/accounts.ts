/** `hangar user create|list` and `hangar token create`: account management without a console. */
import { GLOBAL_ROLES, type GlobalRole } from '../storage/schema.ts';
import type { ServerConfig } from '../config/config.ts';
import { ValidationError } from '../domain/errors.ts';
import { toRole, ROLE_INPUTS, type RoleInput } from '../domain/roles.ts';
import { openHangar, type Hangar } from '../server.ts';
import { UsageError } from './errors.ts';
import { firstStartNotice } from './serve.ts';

interface Values {
  username?: string | undefined;
  email?: string | undefined;
  role?: string | undefined;
  'password-stdin'?: boolean | undefined;
  user?: string | undefined;
  name?: string | undefined;
  'expires-in-days'?: string | undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const USERNAME = /^[\p{L}\p{M}\p{N}._-]{1,64}$/u;

async function withHangar<T>(config: ServerConfig, run: (hangar: Hangar) => Promise<T>): Promise<T> {
  const hangar = await openHangar(config);
  try {
    const notice = firstStartNotice(hangar.firstStart);
    if (notice) process.stderr.write(notice + '\n');
    return await run(hangar);
  } finally {
    hangar.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

function describe(error: unknown): never {
  if (error instanceof ValidationError) {
    const fields = Object.entries(error.entry).map(([field, messages]) => `${field} ${messages.join(', ')}`);
    throw new UsageError(fields.join('; '));
  }
  throw error;
}

export async function userCreate(config: ServerConfig, values: Values): Promise<number> {
  const { username, email } = values;
  if (!username || !USERNAME.test(username)) throw new UsageError('--username is required: letters, digits, ".", "_" or "-", at most 64');
  if (!email || !EMAIL.test(email)) throw new UsageError('--email is required and must be an email address');
  const role = (values.role ?? 'member') as RoleInput;
  if (!ROLE_INPUTS.includes(role)) throw new UsageError(`--role must be one of ${GLOBAL_ROLES.join(', ')}`);
  const password = values['password-stdin'] ? await readStdin() : undefined;
  if (password !== undefined && (password.length < 8 || password.length > 128)) throw new UsageError('the password must have 8 to 128 characters');

  return withHangar(config, async ({ domain }) => {
    const user = await domain.users.create({ username, email, role: toRole(role) as GlobalRole, password }).catch(describe);
    process.stdout.write(`Created user ${user.username} (id ${user.id}, ${user.role}).\n`);
    return 0;
  });
}

/** Sets a user's console password from standard input (e.g. for the first admin, made with a token only). */
export async function userPassword(config: ServerConfig, values: Values): Promise<number> {
  if (!values.user) throw new UsageError('--user NAME is required');
  const password = await readStdin();
  if (password.length < 8 || password.length > 128) throw new UsageError('the password (on standard input) must have 8 to 128 characters');
  return withHangar(config, async ({ domain }) => {
    const user = domain.users.findByUsername(values.user!);
    if (!user) throw new UsageError(`no user named "${values.user}"`);
    await domain.users.update(user.id, { password }).catch(describe);
    domain.sessions.signOutEverywhere(user.id);
    process.stdout.write(`Password of ${user.username} set; their console sessions were ended.\n`);
    return 0;
  });
}

export async function userList(config: ServerConfig): Promise<number> {
  return withHangar(config, async ({ domain }) => {
    const rows = domain.users.list().map((u) => [String(u.id), u.username, u.email, u.role, u.lockedAt ? 'locked' : '']);
    const header = ['ID', 'USERNAME', 'EMAIL', 'ROLE', 'STATE'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    for (const row of [header, ...rows]) process.stdout.write(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd() + '\n');
    return 0;
  });
}

export async function tokenCreate(config: ServerConfig, values: Values): Promise<number> {
  if (!values.user) throw new UsageError('--user NAME is required');
  const days = values['expires-in-days'];
  if (days !== undefined && !/^[1-9]\d{0,3}$/.test(days)) throw new UsageError('--expires-in-days must be a whole number of days (1-9999)');
  const name = values.name?.trim() || 'created with hangar token create';

  return withHangar(config, async ({ domain }) => {
    const user = domain.users.findByUsername(values.user!);
    if (!user) throw new UsageError(`no user named "${values.user}"`);
    const expiresAt = days === undefined ? null : Date.now() + Number(days) * 86_400_000;
    const { value } = domain.tokens.create(user.id, { name, expiresAt });
    // The value alone on stdout, so that scripts can capture it; it is not stored and cannot be shown again.
    process.stdout.write(value + '\n');
    process.stderr.write(`Token "${name}" for ${user.username}${expiresAt ? `, expires ${new Date(expiresAt).toISOString()}` : ''}. It is shown only this once.\n`);
    return 0;
  });
}
