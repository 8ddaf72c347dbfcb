/**
 * `hangar` command line: `serve` runs the server; `user` and `token` manage accounts for a lab
 * without a console. Run through bin/hangar, which sets up Node and the dependencies first.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, resolveConfig, type ConfigFlags } from '../config/config.ts';
import { serve } from './serve.ts';
import { tokenCreate, userCreate, userList, userPassword } from './accounts.ts';
import { backup, restore } from './backup.ts';
import { UsageError } from './errors.ts';

export const USAGE = `Usage: hangar <command> [options]

Commands:
  serve                      run the server (stops cleanly on SIGTERM/SIGINT)
  user create                create a user
  user list                  list users
  user password --user NAME  set a user's console password (read from standard input)
  token create --user NAME   create a personal access token (printed once)
  backup --to PATH           write a backup of the data directory to a new folder (server may run)
  restore --from PATH        restore a backup into an empty or new data directory
  help                       show this text

Options of every command (environment variable in brackets):
  --data DIR                 data directory [HANGAR_DATA_DIR] (default: ./data)

serve:
  --host HOST                interface to listen on [HANGAR_HOST] (default: 0.0.0.0, all)
  --port PORT                HTTP port [HANGAR_PORT] (default: 7700)
  --https-port PORT|off      HTTPS port, for iOS installs [HANGAR_HTTPS_PORT] (default: 7701)
  --interface NAME|ADDRESS   network interface whose address devices use [HANGAR_INTERFACE]
                             (default: the first LAN interface)
  --no-mdns                  do not advertise on the LAN (DNS-SD _hangar._tcp) [HANGAR_MDNS=0]
  --base-url URL             public base URL for links and QR codes [HANGAR_BASE_URL]
                             (default: derived from this machine's LAN address)
  --api-shape SHAPE          base or extended [HANGAR_API_SHAPE] (default: extended)
  --timezone ZONE            IANA zone of timestamps [HANGAR_TIMEZONE] (default: this host's)
  --log-level LEVEL          info, debug, warn... [HANGAR_LOG_LEVEL] (default: info)
  On an empty data directory an "admin" user is created; its first token is HANGAR_ADMIN_TOKEN
  when set, otherwise a random one written to <data>/initial-admin-token.

user create:
  --username NAME --email EMAIL [--role admin|developer|member]
  [--password-stdin]         read the console password from standard input

token create:
  --user NAME [--name LABEL] [--expires-in-days N]

backup:
  --to PATH                  a new folder: the database, the files its rows name, secret.key and
                             tls/ (secrets: written readable by you only), and hangar-backup.json
restore:
  --from PATH                a folder written by "hangar backup"; every file is checked first
  [--force]                  move a data directory that is not empty aside instead of refusing
`;

const options = {
  data: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  'https-port': { type: 'string' },
  interface: { type: 'string' },
  'no-mdns': { type: 'boolean' },
  'base-url': { type: 'string' },
  'api-shape': { type: 'string' },
  timezone: { type: 'string' },
  'log-level': { type: 'string' },
  username: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  user: { type: 'string' },
  name: { type: 'string' },
  'expires-in-days': { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} satisfies ParseArgsConfig['options'];

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  const [command, sub] = positionals;
  if (values.help || command === undefined || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  const flags: ConfigFlags = {
    data: values.data,
    host: values.host,
    port: values.port,
    httpsPort: values['https-port'],
    networkInterface: values.interface,
    ...(values['no-mdns'] ? { mdns: false } : {}),
    baseUrl: values['base-url'],
    apiShape: values['api-shape'],
    timezone: values.timezone,
    logLevel: values['log-level'],
  };
  const config = resolveConfig(flags);
  switch (`${command}${sub ? ` ${sub}` : ''}`) {
    case 'serve':
      return serve(config);
    case 'user create':
      return userCreate(config, values);
    case 'user list':
      return userList(config);
    case 'user password':
      return userPassword(config, values);
    case 'token create':
      return tokenCreate(config, values);
    case 'backup':
      return backup(config, values);
    case 'restore':
      return restore(config, values);
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const known = error instanceof ConfigError || error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`hangar: ${(error as Error).message}\n`);
    if (known) process.stderr.write('Run "hangar help" for usage.\n');
    process.exitCode = known ? 2 : 1;
  },
);
